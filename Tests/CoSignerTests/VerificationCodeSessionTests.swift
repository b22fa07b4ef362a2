import CoSigner
import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

/// A SIGN session's verification code: the relying party gets it when it opens the session,
/// the device computes the same from the digest it would sign (never taken from the co-signer).
extension SessionNamingTests {
    func testASignSessionGivesTheRelyingPartyTheVerificationCode() async throws {
        let (share, _) = try await enroll(document: "38001085718")
        // Smart-ID's published example: the code of SHA-256("Hello World!") is 7712.
        let digest = Array(Digest.compute(.sha256, over: Data("Hello World!".utf8)).bytes)
        let (status, created) = try await call(
            "POST", "/v3/rp/session",
            [
                "keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest),
                "displayText": "Sign the contract",
            ])
        XCTAssertEqual(status, 200)
        XCTAssertEqual(created["verificationCode"] as? String, "7712")
    }

    func testTheRelyingPartysCodeIsTheOneTheDeviceComputesFromWhatItSigns() async throws {
        let (share, token) = try await enroll(document: "38001085718")
        let spki = TwoPartySigning.subjectPublicKeyInfo(share.publicKey)
        let client = ThresholdClient(server: URL(string: base)!, transport: transport, attestation: devices[token])
        let registration = ThresholdClient.Registration(
            server: base, documentNumber: "38001085718", deviceToken: token, ringPedersenPin: "")
        for text in ["Hello World!", "contract 1", "contract 2", "contract 3"] {
            let digest = Array(Digest.compute(.sha256, over: Data(text.utf8)).bytes)
            let (_, created) = try await call(
                "POST", "/v3/rp/session",
                ["keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest), "displayText": text])
            let id = try XCTUnwrap(created["sessionID"] as? String)
            let shown = try XCTUnwrap(created["verificationCode"] as? String)
            XCTAssertEqual(shown, VerificationCode.smartID(hash: digest))
            let pending = try await client.pending(registration)
            let listed = try XCTUnwrap(pending.first { $0.id == id })
            XCTAssertEqual(try listed.verificationCode(subjectPublicKeyInfo: spki), shown, text)
            let info = try await client.session(id, registration: registration)
            XCTAssertEqual(try info.verificationCode(subjectPublicKeyInfo: spki), shown, text)
        }
    }
}
