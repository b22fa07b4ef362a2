import TamgaCore
import TamgaTestSupport
import XCTest

/// Signatures from `SoftwareSigner` verified by the openssl command line, not by tamga.
final class SoftwareSignerTests: XCTestCase {
    private var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder() }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    /// Verifies `signature` over `digest` with `openssl pkeyutl` and the certificate's public key.
    private func opensslVerifies(
        _ signature: Data, _ digest: Digest, certificate name: String, pss: Bool = false,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let pub = folder.appendingPathComponent("pub.pem").path
        let extract = try TestEnvironment.run(
            "/usr/bin/openssl",
            ["x509", "-in", TestEnvironment.pki("\(name).cert.pem"), "-pubkey", "-noout", "-out", pub])
        XCTAssertEqual(extract.status, 0, file: file, line: line)
        try digest.bytes.write(to: folder.appendingPathComponent("digest.bin"))
        try signature.write(to: folder.appendingPathComponent("sig.bin"))
        var args = [
            "pkeyutl", "-verify", "-pubin", "-inkey", pub, "-in", folder.appendingPathComponent("digest.bin").path,
            "-sigfile", folder.appendingPathComponent("sig.bin").path, "-pkeyopt",
            "digest:\(digest.algorithm.rawValue)",
        ]
        if pss { args += ["-pkeyopt", "rsa_padding_mode:pss", "-pkeyopt", "rsa_pss_saltlen:digest"] }
        let result = try TestEnvironment.run("/usr/bin/openssl", args)
        XCTAssertEqual(result.status, 0, "openssl: \(result.output) \(result.error)", file: file, line: line)
    }

    private func sign(_ name: String, _ algorithm: SignatureAlgorithm? = nil) throws -> (Data, Digest, SoftwareSigner) {
        let signer = try TestEnvironment.signer(name, algorithm: algorithm)
        let digest = Digest.compute(signer.algorithm.digest, over: Data("tamga".utf8))
        return (try signer.signSynchronously(digest: digest), digest, signer)
    }

    func testECDSAP256IsRawSixtyFourBytesAndOpenSSLAgrees() throws {
        let (raw, digest, signer) = try sign("ec-p256")
        XCTAssertEqual(signer.algorithm, .ecdsaP256SHA256)
        XCTAssertEqual(raw.count, 64)
        try opensslVerifies(ECDSASignature.der(fromRaw: raw, curve: .p256), digest, certificate: "ec-p256")
    }

    func testECDSAP384UsesSHA384AndNinetySixBytes() throws {
        let (raw, digest, signer) = try sign("ec-p384")
        XCTAssertEqual(signer.algorithm, .ecdsaP384SHA384)
        XCTAssertEqual(raw.count, 96)
        try opensslVerifies(ECDSASignature.der(fromRaw: raw, curve: .p384), digest, certificate: "ec-p384")
    }

    func testRSAPKCS1() throws {
        let (sig, digest, _) = try sign("rsa-2048")
        XCTAssertEqual(sig.count, 256)
        try opensslVerifies(sig, digest, certificate: "rsa-2048")
    }

    func testRSAPKCS1SHA512() throws {
        let (sig, digest, _) = try sign("rsa-2048", .rsaPKCS1SHA512)
        try opensslVerifies(sig, digest, certificate: "rsa-2048")
    }

    func testRSAPSS() throws {
        let (sig, digest, _) = try sign("rsa-2048", .rsaPSSSHA256)
        try opensslVerifies(sig, digest, certificate: "rsa-2048", pss: true)
        // The PKCS#1 v1.5 check must not accept a PSS signature.
        let cert = try TestEnvironment.certificate("rsa-2048")
        XCTAssertFalse(cert.publicKey.verify(signature: sig, digest: digest, algorithm: .rsaPKCS1SHA256))
        XCTAssertTrue(cert.publicKey.verify(signature: sig, digest: digest, algorithm: .rsaPSSSHA256))
    }

    func testPKCS12WithItsPassword() throws {
        let signer = try SoftwareSigner(
            pkcs12: TestEnvironment.bytes(TestEnvironment.pki("ec-p256.p12")),
            password: SecretBytes(Array("test1234".utf8)))
        XCTAssertEqual(signer.signingCertificate, try TestEnvironment.certificate("ec-p256"))
        let digest = Digest.compute(.sha256, over: Data("x".utf8))
        XCTAssertTrue(
            signer.signingCertificate.publicKey.verify(
                signature: try signer.signSynchronously(digest: digest),
                digest: digest, algorithm: .ecdsaP256SHA256))
    }

    func testWrongAndMissingPasswordsAreDistinguishedAndNotRetried() throws {
        let p12 = try TestEnvironment.bytes(TestEnvironment.pki("ec-p256.p12"))
        XCTAssertThrowsError(try SoftwareSigner(pkcs12: p12, password: SecretBytes(Array("nope".utf8)))) {
            XCTAssertEqual($0 as? CoreError, .wrongPassword)
        }
        let encrypted = try TestEnvironment.bytes(TestEnvironment.pki("ec-p256.enc.key.pem"))
        let cert = try TestEnvironment.certificate("ec-p256")
        XCTAssertThrowsError(try SoftwareSigner(key: encrypted, certificate: cert)) {
            XCTAssertEqual($0 as? CoreError, .passwordRequired)
        }
        XCTAssertThrowsError(
            try SoftwareSigner(key: encrypted, certificate: cert, password: SecretBytes(Array("nope".utf8)))
        ) {
            XCTAssertEqual($0 as? CoreError, .wrongPassword)
        }
        XCTAssertNoThrow(
            try SoftwareSigner(key: encrypted, certificate: cert, password: SecretBytes(Array("test1234".utf8))))
    }

    func testKeyAndCertificateMustMatch() throws {
        XCTAssertThrowsError(
            try SoftwareSigner(
                key: TestEnvironment.bytes(TestEnvironment.pki("ec-p256.key.pem")),
                certificate: TestEnvironment.certificate("other-ec-p256"))
        ) {
            XCTAssertEqual($0 as? CoreError, .keyCertificateMismatch)
        }
    }

    func testDigestOfAnotherHashIsRefused() throws {
        let signer = try TestEnvironment.signer("ec-p384")
        XCTAssertThrowsError(try signer.signSynchronously(digest: Digest.compute(.sha256, over: Data()))) {
            XCTAssertEqual($0 as? CoreError, .digestAlgorithmMismatch(expected: .sha384, actual: .sha256))
        }
    }

    func testSignatureMethodURIsRoundTrip() {
        for algorithm in [
            SignatureAlgorithm.ecdsaP256SHA256, .ecdsaP384SHA384, .rsaPKCS1SHA256, .rsaPKCS1SHA384, .rsaPKCS1SHA512,
            .rsaPSSSHA256,
        ] {
            XCTAssertEqual(SignatureAlgorithm(xmlURI: algorithm.xmlURI, curve: algorithm.curve), algorithm)
        }
        XCTAssertEqual(SignatureAlgorithm.ecdsaP256SHA256.xmlURI, "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256")
        XCTAssertEqual(SignatureAlgorithm.rsaPSSSHA256.xmlURI, "http://www.w3.org/2007/05/xmldsig-more#sha256-rsa-MGF1")
        XCTAssertNil(SignatureAlgorithm(xmlURI: "http://example.com/unknown", curve: nil))
    }

    func testSecretBytesHoldsItsValue() {
        var buffer: [UInt8] = Array("1234".utf8)
        let secret = SecretBytes(consuming: &buffer)
        XCTAssertEqual(buffer, [0, 0, 0, 0], "the source buffer is wiped")
        secret.withUnsafeBytes { XCTAssertEqual(Array($0), Array("1234".utf8)) }
    }
}
