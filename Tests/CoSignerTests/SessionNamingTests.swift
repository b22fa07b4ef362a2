import CoSigner
import Foundation
import HTTPService
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

/// What a session says about itself: a certificate session signs only the certificate request
/// the co-signer builds for the key, no relying party may take a name the co-signer gives its
/// own sessions.
final class SessionNamingTests: CoSignerHTTPTestCase {
    override func setUpWithError() throws {
        folder = try TestEnvironment.temporaryFolder("cosigner-naming")
        // The test PKI's issuing CA; its index is a copy (the CA appends what it issues).
        let index = folder.appendingPathComponent("index.txt")
        try Data().write(to: index)
        let ca = try CertificateAuthority(
            certificatePEM: Data(contentsOf: URL(fileURLWithPath: TestEnvironment.pki("issuing-ca.cert.pem"))),
            keyPEM: Data(contentsOf: URL(fileURLWithPath: TestEnvironment.pki("issuing-ca.key.pem"))),
            ocspURL: "http://127.0.0.1:9/ocsp", issuerURL: nil, indexFile: index.path)
        let store = try CoSignerStore(
            path: folder.appendingPathComponent("cosigner.db").path, serverKey: [UInt8](repeating: 3, count: 32))
        service = CoSignerService(
            store: store,
            party: try ServerParty(
                pid: Transcript.taggedHash("svc", [[1]]), ringPedersen: CoSignerStoreTests.ringPedersen),
            certificateAuthority: ca)
        rpKey = try store.addRelyingParty(name: "Test Bank")
        let handler = service!
        server = try HTTPServer { handler.handle($0) }
    }

    /// (status, the co-signer's error code) of a device call expected to be refused.
    func refusal(_ path: String, _ body: [String: Any], token: String) async throws -> (Int, String) {
        let client = ThresholdClient(server: URL(string: base)!, transport: transport, attestation: devices[token])
        do {
            _ = try await client.call("POST", path, body, token: token)
            return (200, "")
        } catch CoreError.serviceRefused(_, _, let status, let code, _) {
            return (status, code)
        }
    }

    func testACertificateSessionSignsNoDigestButTheRequestTheCoSignerBuilds() async throws {
        let (share, token) = try await enroll(document: "38001085718")
        let keyID = WireFormat.hex(share.keyID)
        // Any digest the device names: before, the co-signer opened a session for it (shown as
        // "co-signer CA: certificate request") and signed whatever it was.
        let contract = WireFormat.hex(
            Array(Digest.compute(.sha256, over: Data("a contract the person never saw".utf8)).bytes))
        let (status, code) = try await refusal(
            "v3/mobile/certificate/session", ["keyID": keyID, "digest": contract], token: token)
        XCTAssertEqual(status, 400, "no certificate request sent: \(code)")
        // A request for another subject (or another key) is not the co-signer's request.
        let spki = TwoPartySigning.subjectPublicKeyInfo(share.publicKey)
        let forged = try CertificateRequest(subjectPublicKeyInfo: spki, subject: [("C", "EE"), ("CN", "SOMEONE ELSE")])
        let (forgedStatus, forgedCode) = try await refusal(
            "v3/mobile/certificate/session",
            [
                "keyID": keyID, "digest": WireFormat.hex(Array(forged.digest.bytes)),
                "request": "3000",
            ], token: token)
        XCTAssertEqual(forgedStatus, 422)
        XCTAssertEqual(forgedCode, "request-mismatch")
        let (_, pending) = try await call("GET", "/v3/mobile/pending/38001085718", token: token)
        XCTAssertEqual((pending["sessions"] as? [[String: Any]])?.count, 0, "nothing was opened")
    }

    func testEnrollmentStillGetsItsCertificate() async throws {
        let code = try service.store.issueEnrollmentCode(documentNumber: "38001085718")
        let keyStore = try ShareKeyStore(account: "38001085718", root: folder.appendingPathComponent("device"))
        let (_, _, certificate) = try await ThresholdClient(server: URL(string: base)!, transport: transport)
            .enroll(code: code, role: .sign, pin: SecretBytes(Array("24680".utf8)), store: keyStore)
        XCTAssertTrue(certificate.subject.contains("PNOEE-38001085718"), certificate.subject)
        let sessions = try service.store.database.query("SELECT rp_name, display_text, state FROM sessions")
        XCTAssertEqual(
            sessions.map { [$0[0].text, $0[1].text, $0[2].text] },
            [["co-signer CA", "certificate request", "COMPLETE"]])
    }

    func testNoRelyingPartyMayTakeANameTheCoSignerUsesItself() async throws {
        let store = service.store
        let taken = [
            "this device", "This Device", "THIS  DEVICE", "this-device", "Thís Device",
            "\u{FF54}\u{FF48}\u{FF49}\u{FF53} device",
            "this\u{200B}device", "co-signer CA", "Co-Signer ca", "cosigner CA", "co signer\u{00A0}CA", "co‐signer CA",
            "device:38001085718", "Device: 1",
        ]
        for name in taken {
            XCTAssertThrowsError(try store.addRelyingParty(name: name), name.debugDescription) { error in
                XCTAssertEqual(
                    (error as? ThresholdError)?.code, "threshold-reserved-name", "\(name.debugDescription): \(error)")
                XCTAssertTrue(
                    String(describing: error).contains("register the relying party under a name of its own"), "\(error)"
                )
            }
        }
        for name in ["This Device Shop", "Device Bank", "CA Bank", "co-signer"] {
            XCTAssertNoThrow(try store.addRelyingParty(name: name), name)
        }
        // Why it matters: a relying party named "this device" would read the device's own sessions.
        XCTAssertEqual(
            try store.database.query("SELECT COUNT(*) FROM relying_parties WHERE name = 'this device'").first?.first?
                .integer, 0)
    }
}
