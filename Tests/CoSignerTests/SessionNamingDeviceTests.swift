import CoSigner
import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

/// The device's side of a certificate session: the request it sends, rebuilt by the co-signer.
extension SessionNamingTests {
    func testTheCertificateRequestTheCoSignerRebuildsIsAcceptedAndAnyOtherRefused() async throws {
        let (share, token) = try await enroll(document: "38001085718")
        let keyID = WireFormat.hex(share.keyID)
        let spki = TwoPartySigning.subjectPublicKeyInfo(share.publicKey)
        let forged = try CertificateRequest(subjectPublicKeyInfo: spki, subject: [("C", "EE"), ("CN", "SOMEONE ELSE")])
        let (status, code) = try await refusal(
            "v3/mobile/certificate/session", ["keyID": keyID, "request": WireFormat.hex(Array(forged.toBeSigned))],
            token: token)
        XCTAssertEqual(status, 422)
        XCTAssertEqual(code, "request-mismatch")
        // The right request with a digest that is not its own: refused as well.
        let genuine = try CertificateRequest(
            subjectPublicKeyInfo: spki,
            subject: ThresholdClient.certificateSubject(document: "38001085718", role: .sign))
        let (mixed, mixedCode) = try await refusal(
            "v3/mobile/certificate/session",
            [
                "keyID": keyID, "request": WireFormat.hex(Array(genuine.toBeSigned)),
                "digest": WireFormat.hex(Array(forged.digest.bytes)),
            ], token: token)
        XCTAssertEqual(mixed, 422)
        XCTAssertEqual(mixedCode, "request-mismatch")
        let (ok, created) = try await call(
            "POST", "/v3/mobile/certificate/session",
            ["keyID": keyID, "request": WireFormat.hex(Array(genuine.toBeSigned))],
            token: token)
        XCTAssertEqual(ok, 200)
        let (_, info) = try await call(
            "GET", "/v3/mobile/session/\(try XCTUnwrap(created["sessionID"] as? String))", token: token)
        XCTAssertEqual(
            info["digest"] as? String, WireFormat.hex(Array(genuine.digest.bytes)),
            "the digest is the one the co-signer built")
        XCTAssertEqual(info["rpName"] as? String, ReservedNames.certificateAuthority)
    }
}
