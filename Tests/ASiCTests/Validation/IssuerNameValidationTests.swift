import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// Signatures whose `X509IssuerName` is written in the forms real producers use validate, and a
/// wrong issuer or serial is refused. Each signature is made by tamga with a test CA whose name
/// has organizationIdentifier, emailAddress, UTF-8, BMPString or a multi-valued RDN, then the
/// IssuerSerial is rewritten and SignedInfo signed again by `scripts/asice-resign.py` (Python,
/// no tamga code), as another tool would have written it. Cells named `…_reference…` record
/// where the reference (docs/design/asics-tm-names.md §3) gives another verdict.
final class IssuerNameValidationTests: ContainerTestCase {
    nonisolated(unsafe) static var pkiFolder: URL!
    nonisolated(unsafe) static var pkis: [String: NamedIssuerPKI] = [:]

    override class func setUp() {
        super.setUp()
        do {
            pkiFolder = try TestEnvironment.temporaryFolder("issuer-names")
            for (label, subject, mask) in [
                (
                    "eid",
                    "/C=EE/O=SK ID Solutions AS/2.5.4.97=NTREE-10747013/CN=TEST of ESTEID2018/emailAddress=pki@sk.ee",
                    NamedIssuerPKI.StringMask.utf8only
                ),
                ("utf8", "/C=EE/O=Tõnu Ūdens/CN=ÕÄÖÜ CA", .utf8only),
                ("bmp", "/C=EE/O=Tõnu/CN=Ādam CA", .default),
                ("multi", "/C=EE/O=Multi Org/OU=Unit A/OU=Unit B/CN=Multi CA+serialNumber=123", .default),
            ] {
                pkis[label] = try NamedIssuerPKI.make(label: label, subject: subject, mask: mask, in: pkiFolder)
            }
        } catch {
            XCTFail("test PKI: \(error)")
        }
    }

    override class func tearDown() {
        if let pkiFolder { TestEnvironment.removeFolder(pkiFolder) }
        super.tearDown()
    }

    private func pki(_ label: String) throws -> NamedIssuerPKI { try XCTUnwrap(Self.pkis[label]) }

    /// A container signed by `label`'s signer with the given reference form, rewritten by
    /// asice-resign.py with `changes`, and its report with the test CA as the only anchor.
    private func report(
        _ label: String, _ changes: [String], reference: SignatureOptions.CertificateReference = .v1,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws -> ValidationReport.SignatureResult {
        let pki = try pki(label)
        let container = try makeContainer("\(label)-base.asice")
        try await container.sign(
            with: pki.signer(), options: SignatureOptions(profile: .B, certificateReference: reference))
        let out = path("\(label)-resigned.asice")
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                TestEnvironment.script("asice-resign.py"), container.path, out,
                "--key", pki.signerKeyPath,
            ] + changes)
        XCTAssertEqual(result.status, 0, result.error, file: file, line: line)
        let report = try Container(openingAt: out).validate(
            ValidationOptions(trust: TrustStore(anchors: [pki.caCertificate]), minimumProfile: .B))
        return try XCTUnwrap(report.signatures.first, file: file, line: line)
    }

    private func assertValid(
        _ label: String, issuerName: String, serial: String = NamedIssuerPKI.signerSerialDecimal,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let result = try await report(label, ["--issuer-name", issuerName, "--serial", serial], file: file, line: line)
        XCTAssertEqual(result.status, .valid, "\(issuerName) / \(serial): \(result.findings)", file: file, line: line)
    }

    private func assertIssuerSerialRefused(
        _ label: String, issuerName: String, serial: String = NamedIssuerPKI.signerSerialDecimal,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let result = try await report(label, ["--issuer-name", issuerName, "--serial", serial], file: file, line: line)
        XCTAssertEqual(result.status, .invalid, file: file, line: line)
        XCTAssertEqual(
            result.findings.map(\.code), ["signing-certificate-issuer-serial"], "\(result.findings)", file: file,
            line: line)
    }

    // MARK: controls

    func testTheResigningScriptAloneKeepsTheSignatureValid() async throws {
        let result = try await report("eid", [])
        XCTAssertEqual(result.status, .valid, "\(result.findings)")
    }

    func testTheResigningIsCheckedAtAll() async throws {
        // The CertDigest of another certificate, signed again: the changed signed property counts.
        let result = try await report("eid", ["--cert-digest-of", try pki("utf8").signerCertificatePath])
        XCTAssertEqual(result.status, .invalid)
        XCTAssertTrue(result.findings.map(\.code).contains("signing-certificate-digest"), "\(result.findings)")
    }

    // MARK: forms that validate

    func testHexValuesOfOrganizationIdentifierAndEmailAddress() async throws {
        try await assertValid(
            "eid",
            issuerName: "1.2.840.113549.1.9.1=#1609706b6940736b2e6565,CN=TEST of ESTEID2018,"
                + "2.5.4.97=#0c0e4e545245452d3130373437303133,O=SK ID Solutions AS,C=EE")
    }

    func testShortNamesWithSpacesAfterCommasAndOtherCase() async throws {
        try await assertValid(
            "eid",
            issuerName:
                "E=PKI@sk.ee, CN=TEST of ESTEID2018, organizationIdentifier=NTREE-10747013, O=SK ID Solutions AS, C=ee")
    }

    func testTheDEROrder() async throws {
        try await assertValid(
            "eid",
            issuerName: "C=EE,O=SK ID Solutions AS,2.5.4.97=NTREE-10747013,CN=TEST of ESTEID2018,emailAddress=pki@sk.ee"
        )
    }

    func testEscapedUTF8BytesAsTheReferenceWritesThem() async throws {
        try await assertValid("utf8", issuerName: #"CN=\C3\95\C3\84\C3\96\C3\9C CA,O=T\C3\B5nu \C5\AAdens,C=EE"#)
    }

    func testRawUTF8InNFD_referenceRefuses() async throws {
        try await assertValid(
            "utf8", issuerName: "CN=O\u{0303}A\u{0308}O\u{0308}U\u{0308} CA,O=To\u{0303}nu U\u{0304}dens,C=EE")
    }

    func testABMPStringIssuerWrittenAsHexAndAsEscapes() async throws {
        try await assertValid("bmp", issuerName: #"CN=#1e0e010000640061006d002000430041,O=T\C3\B5nu,C=EE"#)
        try await assertValid("bmp", issuerName: #"CN=\C4\80dam CA,O=T\C3\B5nu,C=EE"#)
    }

    func testAMultiValuedRDN_referenceFailsItsOwnSignature() async throws {
        try await assertValid("multi", issuerName: "CN=Multi CA+serialNumber=123,OU=Unit B,OU=Unit A,O=Multi Org,C=EE")
        try await assertValid("multi", issuerName: "serialNumber=123+CN=Multi CA,OU=Unit B,OU=Unit A,O=Multi Org,C=EE")
    }

    func testASerialWithALeadingZero_referenceRefuses() async throws {
        try await assertValid("eid", issuerName: try pki("eid").signerCertificate.issuer, serial: "0065298")
    }

    func testSigningCertificateV2IsComparedAsAName() async throws {
        let certificate = try pki("bmp").signerCertificate
        // The same issuer in UTF8Strings, in another case: X509_NAME_cmp-equal, not byte-equal.
        func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag, UInt8(content.count)] + content }
        let name = tlv(
            0x30,
            [([0x55, 0x04, 0x06], "ee"), ([0x55, 0x04, 0x0A], "TÕNU"), ([0x55, 0x04, 0x03], "ādam ca")]
                .flatMap { tlv(0x31, tlv(0x30, tlv(0x06, $0.0) + tlv(0x0C, Array($0.1.utf8)))) })
        let sameName = Data(tlv(0x30, tlv(0x30, tlv(0xA4, name)) + tlv(0x02, [0x00, 0xFF, 0x12])))
        XCTAssertNotEqual(sameName, certificate.issuerSerialDER)
        let valid = try await report("bmp", ["--issuer-serial-v2", sameName.base64EncodedString()], reference: .v2)
        XCTAssertEqual(valid.status, .valid, "\(valid.findings)")
        let otherSerial = Data(tlv(0x30, tlv(0x30, tlv(0xA4, name)) + tlv(0x02, [0x00, 0xFF, 0x13])))
        let refused = try await report(
            "bmp", ["--issuer-serial-v2", otherSerial.base64EncodedString()], reference: .v2)
        XCTAssertEqual(refused.findings.map(\.code), ["signing-certificate-issuer-serial"])
    }

    // MARK: forms that are refused

    func testAWrongOrganizationIdentifier() async throws {
        try await assertIssuerSerialRefused(
            "eid",
            issuerName: "1.2.840.113549.1.9.1=#1609706b6940736b2e6565,CN=TEST of ESTEID2018,"
                + "2.5.4.97=#0c0e4e545245452d3130373437303134,O=SK ID Solutions AS,C=EE")
    }

    func testAWrongSerial() async throws {
        try await assertIssuerSerialRefused("eid", issuerName: try pki("eid").signerCertificate.issuer, serial: "65299")
    }

    func testAHexSerial() async throws {
        try await assertIssuerSerialRefused(
            "eid", issuerName: try pki("eid").signerCertificate.issuer, serial: "0xff12")
    }

    func testValuePrefixes_referenceAccepts() async throws {
        try await assertIssuerSerialRefused(
            "eid", issuerName: "emailAddress=pki@sk.ee,CN=TEST,organizationIdentifier=NTREE,O=SK,C=E")
    }

    func testAnOmittedAttribute_referenceSkipsIt() async throws {
        try await assertIssuerSerialRefused(
            "eid", issuerName: "CN=TEST of ESTEID2018,organizationIdentifier=NTREE-10747013,O=SK ID Solutions AS,C=EE")
    }

    func testAnEmptyName_referenceAccepts() async throws {
        try await assertIssuerSerialRefused("eid", issuerName: "")
    }

    func testALatin1Escape() async throws {
        try await assertIssuerSerialRefused("utf8", issuerName: #"CN=\D5\C4\D6\DC CA,O=T\F5nu \C5\AAdens,C=EE"#)
    }
}
