import ASiC
import CoSigner
import Foundation
import HTTPService
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

struct FixedThresholdPIN: ThresholdPINProvider {
    let value: String
    func pin(role: ShareRole, account: String) async throws -> SecretBytes { SecretBytes(Array(value.utf8)) }
}

/// The split key end to end: enrollment over HTTP with a one-time code, the key's certificate
/// from the co-signer's CA (a request the threshold key signed itself), then an LT signature on
/// a container that tamga and pyasice verify.
final class ThresholdSignerTests: XCTestCase {
    func testEnrollCertifyAndSignAContainerAtLT() async throws {
        let folder = try TestEnvironment.temporaryFolder("threshold-signer")
        defer { TestEnvironment.removeFolder(folder) }
        // A copy of the test PKI: the CA appends what it issues to the copy's index, which the
        // test OCSP responder reads.
        let pki = folder.appendingPathComponent("pki")
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("pki"), toPath: pki.path)
        let services = try TestServices(pki: pki.path)
        defer { services.stop() }
        let ca = try CertificateAuthority(
            certificatePEM: Data(contentsOf: pki.appendingPathComponent("issuing-ca.cert.pem")),
            keyPEM: Data(contentsOf: pki.appendingPathComponent("issuing-ca.key.pem")),
            ocspURL: services.url("ocsp").absoluteString, issuerURL: nil,
            indexFile: pki.appendingPathComponent("issuing-ca.index.txt").path)
        let store = try CoSignerStore(
            path: folder.appendingPathComponent("cosigner.db").path, serverKey: [UInt8](repeating: 5, count: 32))
        let service = CoSignerService(
            store: store,
            party: try ServerParty(
                pid: Transcript.taggedHash("ca", [[1]]), ringPedersen: CoSignerStoreTests.ringPedersen),
            certificateAuthority: ca)
        let server = try HTTPServer { service.handle($0) }
        defer { server.stop() }

        let code = try store.issueEnrollmentCode(documentNumber: "38001085718")
        let keyStore = try ShareKeyStore(account: "38001085718", root: folder.appendingPathComponent("device"))
        var steps: [String] = []
        let client = ThresholdClient(server: URL(string: "http://127.0.0.1:\(server.port)")!)
        let (_, registration, certificate) = try await client.enroll(
            code: code, role: .sign, pin: SecretBytes(Array("24680".utf8)), store: keyStore,
            progress: { steps.append($0) })
        XCTAssertEqual(steps.count, 3, "\(steps)")
        XCTAssertEqual(registration.documentNumber, "38001085718")
        XCTAssertEqual(certificate.keyUsage?.contains(.nonRepudiation), true)
        XCTAssertTrue(certificate.subject.contains("PNOEE-38001085718"), certificate.subject)

        let signer = try ThresholdSigner(
            account: "38001085718", store: keyStore, pinProvider: FixedThresholdPIN(value: "24680"))
        let container = Container(creatingAt: folder.appendingPathComponent("split.asice").path)
        try container.addDataFile(
            path: TestEnvironment.write("signed with a split key\n", named: "split.txt", in: folder))
        try container.save()
        let opened = try Container(openingAt: container.path)
        let transport = HTTPTransport(timeout: 5)
        try await opened.sign(
            with: signer, options: SignatureOptions(profile: .LT),
            services: LongTermServices(
                timeStamping: TimeStampClient(url: services.url("tsa"), transport: transport),
                ocsp: OCSPClient(transport: transport), ocspURL: services.url("ocsp"),
                issuerCandidates: [try TestEnvironment.certificate("issuing-ca")], transport: transport))
        // PIN2 and the share's decryption (PBKDF2) are the unlock phase; the three rounds the signature's.
        let phases = try XCTUnwrap(opened.lastSigningPhases)
        XCTAssertGreaterThan(phases.unlock, 0.01, "\(phases)")
        XCTAssertGreaterThan(phases.sign, 0.001, "\(phases)")
        let report = try Container(openingAt: container.path).validate(
            ValidationOptions(trust: TestEnvironment.testTrust(), minimumProfile: .LT))
        XCTAssertEqual(report.signatures.first?.status, .valid, "\(report)")
        let check = try TestEnvironment.run(
            TestEnvironment.pyasicePython,
            [TestEnvironment.script("pyasice-check.py"), "--require-raw-ecdsa", container.path])
        XCTAssertEqual(check.status, 0, check.output + check.error)
        // A wrong PIN: reported with tries left, asked before prove, so the session is cancelled
        // before any c3 exists — the key is not locked and the right PIN signs next.
        let wrong = try ThresholdSigner(
            account: "38001085718", store: keyStore, pinProvider: FixedThresholdPIN(value: "00000"))
        do {
            _ = try await wrong.sign(digest: Digest.compute(.sha256, over: Data("x".utf8)))
            XCTFail("signed with a wrong PIN")
        } catch ThresholdError.wrongPIN(let left) {
            XCTAssertEqual(left, 4, "the co-signer blocks after five tries in a row, sooner than the device deletes")
        }
        let digest = Digest.compute(.sha256, over: Data("after a typo".utf8))
        let raw = try await signer.sign(digest: digest)
        XCTAssertTrue(certificate.publicKey.verify(signature: raw, digest: digest, algorithm: .ecdsaP256SHA256))
        XCTAssertEqual(
            try store.activity(documentNumber: "38001085718").map(\.event).filter { $0 == "session-declined" }.count, 1)
    }
}
