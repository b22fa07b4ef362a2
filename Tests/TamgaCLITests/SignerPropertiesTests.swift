import ASiC
import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// The report's rows for a key file, with and without a trusted list: the certificate of the
/// test PKI says nothing of qualification, and the test list's CA/QC service for its issuer
/// (QCWithQSCD, QCStatement) makes it a qualified certificate on a QSCD.
final class SignerPropertiesTests: XCTestCase {
    func testAKeyFileAndWhatATrustedListMakesOfItsCertificate() throws {
        var password = Array("test1234".utf8)
        let signer = try SoftwareSigner(
            pkcs12: Data(TestEnvironment.bytes(TestEnvironment.pki("ec-p256.p12"))),
            password: SecretBytes(consuming: &password))
        let certificate = signer.signingCertificate
        let plain = SignerProperties.describe(
            signer, certificate: certificate, location: "key file ec-p256.p12", signatureValueBytes: 64)
        XCTAssertEqual(plain.keyLeaves, "yes: a key file can be copied (it is encrypted with its password)")
        XCTAssertEqual(plain.triesBeforeLock, "none: a copied file can be guessed at offline without limit")
        XCTAssertEqual(plain.serverAlone, SignerProperties.noServer)
        XCTAssertEqual(plain.signature, "ECDSA P-256 with SHA-256, P-256, 64 B value")
        XCTAssertFalse(plain.qualification.qualified)
        XCTAssertFalse(plain.qualification.qscd)
        XCTAssertTrue(
            plain.qualification.source.contains("no trusted list: the trust cache is empty"), plain.qualification.source
        )
        // With --trust (PEM anchors), the row says that anchors are not a list, not that none was given.
        let anchored = SignerProperties.describe(
            signer, certificate: certificate, location: "key file ec-p256.p12", signatureValueBytes: 64,
            anchorsGiven: true)
        XCTAssertTrue(
            anchored.qualification.source.contains("--trust names CAs, not a trusted list"),
            anchored.qualification.source)
        XCTAssertFalse(anchored.qualification.source.contains("no trusted list"), anchored.qualification.source)

        let pinned = [
            try Certificate(derOrPEM: TestEnvironment.bytes(TestEnvironment.fixture("tsl/tsl-signer.cert.pem")))
        ]
        let list = try TrustedList(
            data: TestEnvironment.bytes(TestEnvironment.fixture("tsl/tsl-good.xml")), signers: pinned)
        let issuer = try Certificate(derOrPEM: TestEnvironment.bytes(TestEnvironment.pki("issuing-ca.cert.pem")))
        let listed = SignerProperties.describe(
            signer, certificate: certificate, location: "key file ec-p256.p12", signatureValueBytes: 64,
            trustedList: list, intermediates: [issuer])
        XCTAssertTrue(listed.qualification.qscd, "QCWithQSCD")
        XCTAssertEqual(listed.qualification.source, "the certificate and the trusted list that names its issuer")
        // A list that does not name the issuer leaves the certificate's own word.
        let elsewhere = SignerProperties.describe(
            signer, certificate: certificate, location: "", signatureValueBytes: nil,
            trustedList: list, intermediates: [])
        XCTAssertEqual(
            elsewhere.qualification.qscd, listed.qualification.qscd,
            "found by its issuer's name on the list even without the issuer's certificate")
    }
}
