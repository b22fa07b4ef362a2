import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// Signatures that carry the signer's chain in `ds:KeyInfo`, as other EU tools write them
/// (rewritten and signed again by `scripts/asice-resign.py`, no tamga code). The signer is the
/// certificate the signed CertDigest names; only its key verifies the SignatureValue, and the
/// other certificates help build the chain. A certificate or key put in by someone else gives a
/// finding about the wrong key or certificate, never about how many certificates there are.
final class KeyInfoChainTests: ContainerTestCase {
    private let chain = ["ec-p256", "issuing-ca", "root"].map { TestEnvironment.pki("\($0).cert.pem") }

    /// A container signed by ec-p256 (SigningCertificateV2), rewritten with `changes` and signed
    /// again with `key`.
    private func rewritten(
        _ changes: [String], key: String = "ec-p256", reference: SignatureOptions.CertificateReference = .v2,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws -> Container {
        let base = try await signedContainer(options: SignatureOptions(profile: .B, certificateReference: reference))
        let out = path("rewritten.asice")
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                TestEnvironment.script("asice-resign.py"), base.path, out,
                "--key", TestEnvironment.pki("\(key).key.pem"),
            ] + changes)
        XCTAssertEqual(result.status, 0, result.error, file: file, line: line)
        return try Container(openingAt: out)
    }

    private func keyInfo(_ paths: [String]) -> [String] { paths.flatMap { ["--keyinfo", $0] } }

    private func assertNoCountFinding(
        _ result: ValidationReport.SignatureResult, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertFalse(
            result.findings.map(\.code).contains("keyinfo-certificate"), "\(result.findings)", file: file, line: line)
        XCTAssertFalse(
            result.findings.contains { $0.message.contains("exactly one") }, "\(result.findings)", file: file,
            line: line)
    }

    func testTheSignersChainInKeyInfoValidates() async throws {
        let report = try validate(try await rewritten(keyInfo(chain)))
        XCTAssertEqual(report.status, .valid, "\(report.signatures[0].findings)")
        XCTAssertEqual(report.signatures[0].signer, try TestEnvironment.certificate("ec-p256").subject)
    }

    func testTheSignerNeedNotComeFirst() async throws {
        let report = try validate(try await rewritten(keyInfo(chain.reversed()), reference: .v1))
        XCTAssertEqual(report.status, .valid, "\(report.signatures[0].findings)")
        XCTAssertEqual(report.signatures[0].signer, try TestEnvironment.certificate("ec-p256").subject)
    }

    func testTheOtherKeyInfoCertificatesServeAsIntermediates() async throws {
        let onlyRoot = ValidationOptions(
            trust: TrustStore(anchors: [try TestEnvironment.certificate("root")]), minimumProfile: .B)
        let plain = try await signedContainer(options: .baselineB, name: "plain.asice")
        XCTAssertEqual(plain.validate(onlyRoot).status, .unknown, "without the issuing CA the chain cannot be built")
        let withChain = try await rewritten(keyInfo(chain))
        XCTAssertEqual(
            withChain.validate(onlyRoot).status, .valid, "\(withChain.validate(onlyRoot).signatures[0].findings)")
    }

    func testACertDigestNamingAnotherChainCertificateIsTheWrongKey() async throws {
        let container = try await rewritten(
            keyInfo(chain) + ["--cert-digest-of", TestEnvironment.pki("issuing-ca.cert.pem")])
        let result = try validate(container).signatures[0]
        XCTAssertEqual(result.status, .invalid)
        XCTAssertTrue(result.findings.map(\.code).contains("signature-value"), "\(result.findings)")
        XCTAssertTrue(
            result.findings.contains { $0.code == "signature-value" && $0.message.contains("tamga Test Issuing CA") },
            "the finding names the certificate whose key was used: \(result.findings)")
        assertNoCountFinding(result)
    }

    func testASubstitutedKeyBesideTheSignersCertificateIsNeverTried() async throws {
        // Someone else signs SignedInfo and adds their certificate; the signed CertDigest still
        // names ec-p256, so only ec-p256's key counts and the SignatureValue fails.
        let container = try await rewritten(
            keyInfo(chain + [TestEnvironment.pki("other-ec-p256.cert.pem")]), key: "other-ec-p256")
        let result = try validate(container).signatures[0]
        XCTAssertEqual(result.status, .invalid)
        XCTAssertEqual(result.findings.map(\.code), ["signature-value"])
        XCTAssertEqual(result.signer, try TestEnvironment.certificate("ec-p256").subject)
        assertNoCountFinding(result)
    }

    func testKeyInfoWithoutTheSignedCertificateIsTheWrongCertificate() async throws {
        let others = [TestEnvironment.pki("other-ec-p256.cert.pem")] + chain.dropFirst()
        let container = try await rewritten(keyInfo(others), key: "other-ec-p256")
        let result = try validate(container).signatures[0]
        XCTAssertEqual(result.status, .invalid)
        XCTAssertEqual(result.findings.map(\.code), ["signing-certificate-digest"])
        XCTAssertTrue(
            result.findings[0].message.contains("no KeyInfo certificate has the signed CertDigest"),
            result.findings[0].message)
        XCTAssertNil(result.signer, "no certificate is guessed")
        assertNoCountFinding(result)
    }

    func testALoneSubstitutedCertificateIsStillRefused() async throws {
        // The single-certificate case keeps its old verdict: that certificate is taken, and its
        // key, digest and issuer-serial all disagree with what was signed.
        let container = try await rewritten(keyInfo([TestEnvironment.pki("other-ec-p256.cert.pem")]))
        let result = try validate(container).signatures[0]
        XCTAssertEqual(
            Set(result.findings.map(\.code)),
            ["signature-value", "signing-certificate-digest", "signing-certificate-issuer-serial"])
    }

    func testASelfSignedCAInKeyInfoIsNoTrustAnchor() async throws {
        // A CA named like the test root, put in KeyInfo by whoever made the signature: it helps
        // build a chain but never ends one; only the --trust anchors do.
        let rogue = try NamedIssuerPKI.make(
            label: "rogue", subject: "/C=EE/O=tamga TEST ONLY/CN=tamga Test Root CA", mask: .utf8only, in: folder)
        let container = try makeContainer("rogue.asice")
        try await container.sign(with: rogue.signer(), options: .baselineB)
        let out = path("rogue-chain.asice")
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                TestEnvironment.script("asice-resign.py"), container.path, out,
                "--key", rogue.signerKeyPath,
            ] + keyInfo([rogue.signerCertificatePath, rogue.caCertificatePath]))
        XCTAssertEqual(result.status, 0, result.error)
        let report = try validate(Container(openingAt: out))
        XCTAssertEqual(report.status, .unknown)
        XCTAssertEqual(report.signatures[0].findings.map(\.code), ["trust-not-established"])
    }
}
