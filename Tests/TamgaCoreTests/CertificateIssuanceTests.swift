import Foundation
import TamgaTestSupport
import XCTest

@testable import TamgaCore

/// Certificate requests signed outside OpenSSL (here by a software key through the raw-signature
/// path the threshold key uses) and certificates issued for them, checked by the openssl CLI.
final class CertificateIssuanceTests: XCTestCase {
    var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("issuance") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    func signedRequest() async throws -> (Data, Data) {
        let signer = try TestEnvironment.signer("ec-p256")
        let certificate = try await signer.certificate()
        let spki = try XCTUnwrap(certificate.publicKey.subjectPublicKeyInfo)
        let request = try CertificateRequest(
            subjectPublicKeyInfo: spki,
            subject: [("C", "EE"), ("serialNumber", "PNOEE-38001085718"), ("CN", "THRESHOLD,TEST,38001085718")])
        let signature = try await signer.sign(digest: request.digest)
        return (try request.signed(with: signature), spki)
    }

    func testARequestSignedWithARawSignatureVerifiesWithOpenSSL() async throws {
        let (der, spki) = try await signedRequest()
        let file = folder.appendingPathComponent("req.der")
        try der.write(to: file)
        let result = try TestEnvironment.run(
            "/usr/bin/openssl", ["req", "-in", file.path, "-inform", "DER", "-verify", "-noout"])
        XCTAssertTrue(
            (result.output + result.error).contains("verify OK")
                || (result.output + result.error).contains("Certificate request self-signature verify OK"),
            result.output + result.error)
        let checked = try CertificateRequest.verify(der)
        XCTAssertTrue(checked.valid)
        XCTAssertEqual(checked.subjectPublicKeyInfo, spki)
        var tampered = der
        tampered[tampered.count - 5] ^= 0x01
        XCTAssertFalse((try? CertificateRequest.verify(tampered))?.valid ?? false)
    }

    func testTheCAIssuesSigningAndAuthenticationCertificatesOpenSSLAccepts() async throws {
        let (_, spki) = try await signedRequest()
        let index = folder.appendingPathComponent("index.txt")
        XCTAssertTrue(FileManager.default.createFile(atPath: index.path, contents: nil))
        let ca = try CertificateAuthority(
            certificatePEM: TestEnvironment.bytes(TestEnvironment.pki("issuing-ca.cert.pem")),
            keyPEM: TestEnvironment.bytes(TestEnvironment.pki("issuing-ca.key.pem")),
            ocspURL: "http://127.0.0.1:8788/ocsp", issuerURL: "http://127.0.0.1:8788/ca/issuing-ca.cert.der",
            indexFile: index.path)
        let signing = try ca.issue(
            subjectPublicKeyInfo: spki, subject: [("C", "EE"), ("CN", "THRESHOLD SIGN")], profile: .signing)
        let authentication = try ca.issue(
            subjectPublicKeyInfo: spki, subject: [("C", "EE"), ("CN", "THRESHOLD AUTH")], profile: .authentication)
        XCTAssertEqual(signing.keyUsage?.contains(.nonRepudiation), true)
        XCTAssertTrue(signing.qualification.qualified && signing.qualification.onQualifiedDevice)
        XCTAssertEqual(authentication.keyUsage?.contains(.nonRepudiation), false)
        XCTAssertEqual(signing.ocspURLs, ["http://127.0.0.1:8788/ocsp"])
        for certificate in [signing, authentication] {
            let file = folder.appendingPathComponent("c.pem")
            try certificate.pem.write(to: file, atomically: true, encoding: .utf8)
            let verified = try TestEnvironment.run(
                "/usr/bin/openssl", ["verify", "-CAfile", TestEnvironment.pki("chain.pem"), file.path])
            XCTAssertEqual(verified.status, 0, verified.output + verified.error)
        }
        let lines = try String(contentsOf: index, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        XCTAssertTrue(lines[0].hasPrefix("V\t"))
    }
}
