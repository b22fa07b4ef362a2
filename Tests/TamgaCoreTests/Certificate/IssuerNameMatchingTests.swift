import TamgaCore
import TamgaTestSupport
import XCTest

/// `X509IssuerName` in every RFC 4514 form, each matched and mismatched against the issuer of
/// a real certificate made by `openssl` (IssuerSerial as XAdES v1 carries it), the serial as an
/// integer, and `IssuerSerialV2` as a DER name. Where tamga's verdict differs from the reference
/// (docs/design/asics-tm-names.md §3), the cell says so.
final class IssuerNameMatchingTests: XCTestCase {
    nonisolated(unsafe) static var folder: URL!
    nonisolated(unsafe) static var pkis: [String: NamedIssuerPKI] = [:]

    /// The four issuers: an Estonian-style CA (organizationIdentifier, emailAddress), UTF-8
    /// values, TeletexString + BMPString values, and two OUs with a multi-valued RDN.
    static let subjects: [(label: String, subject: String, mask: NamedIssuerPKI.StringMask)] = [
        (
            "eid", "/C=EE/O=SK ID Solutions AS/2.5.4.97=NTREE-10747013/CN=TEST of ESTEID2018/emailAddress=pki@sk.ee",
            .utf8only
        ),
        ("utf8", "/C=EE/O=Tõnu Ūdens/CN=ÕÄÖÜ CA", .utf8only),
        ("bmp", "/C=EE/O=Tõnu/CN=Ādam CA", .default),
        ("multi", "/C=EE/O=Multi Org/OU=Unit A/OU=Unit B/CN=Multi CA+serialNumber=123", .default),
    ]

    override class func setUp() {
        super.setUp()
        do {
            folder = try TestEnvironment.temporaryFolder("names")
            for entry in subjects {
                pkis[entry.label] = try NamedIssuerPKI.make(
                    label: entry.label, subject: entry.subject, mask: entry.mask, in: folder)
            }
        } catch {
            XCTFail("test PKI: \(error)")
        }
    }

    override class func tearDown() {
        if let folder { TestEnvironment.removeFolder(folder) }
        super.tearDown()
    }

    private func signer(_ label: String) throws -> Certificate { try XCTUnwrap(Self.pkis[label]).signerCertificate }

    private func compare(
        _ label: String, _ name: String, serial: String = NamedIssuerPKI.signerSerialDecimal
    ) throws -> IssuerSerialComparison {
        try signer(label).compareIssuerSerial(issuerName: name, serialNumber: serial)
    }

    private func assertMatches(
        _ label: String, _ name: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(try compare(label, name), .matches, name, file: file, line: line)
    }

    private func assertDiffers(
        _ label: String, _ name: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(try compare(label, name), .issuerDiffers, name, file: file, line: line)
    }

    /// `#` + DER hex of a string value of universal `tag` (0x0C UTF8, 0x13 Printable, 0x16 IA5,
    /// 0x12 Numeric, 0x14 Teletex/Latin-1, 0x1E BMP, 0x1C Universal).
    private func hex(_ tag: UInt8, _ text: String) -> String {
        let content: [UInt8]
        switch tag {
        case 0x14: content = text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        case 0x1E: content = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case 0x1C: content = text.unicodeScalars.flatMap { s in [24, 16, 8, 0].map { UInt8((s.value >> $0) & 0xFF) } }
        default: content = Array(text.utf8)
        }
        return "#" + ([tag, UInt8(content.count)] + content).map { String(format: "%02x", $0) }.joined()
    }

    // MARK: the issuers as OpenSSL reads them

    /// A value that ends in a space is written with the space escaped; the XML white space
    /// around the element is not part of the name, the escaped space is (and RFC 4518 then
    /// ignores it when comparing). Trimming it made the name end in a lone `\`: malformed.
    func testAnEscapedSpaceAtTheEndIsPartOfTheNameAndXMLWhiteSpaceIsNot() throws {
        let name =
            "emailAddress=pki@sk.ee,CN=TEST of ESTEID2018,organizationIdentifier=NTREE-10747013,O=SK ID Solutions AS,C=EE"
        try assertMatches("eid", name + "\\ ")
        try assertMatches("eid", "\n  " + name + "\\ \n  ")
        try assertMatches("eid", "\n  " + name + "\t\n")
        // An escaped backslash before the white space does not escape it: the value is `EE\`.
        try assertDiffers("eid", name + "\\\\ ")
    }

    func testIssuerRDNsComeFromOpenSSLInDEROrderWithTheMultiValuedSetKept() throws {
        let multi = try signer("multi").issuerName
        XCTAssertEqual(multi.relativeNames.map(\.attributes.count), [1, 1, 1, 1, 2])
        XCTAssertEqual(multi.relativeNames.first?.attributes.first?.type, .countryName)
        let eid = try signer("eid").issuerName
        XCTAssertEqual(
            eid.relativeNames.flatMap(\.attributes).map(\.type.oid),
            ["2.5.4.6", "2.5.4.10", "2.5.4.97", "2.5.4.3", "1.2.840.113549.1.9.1"])
        XCTAssertEqual(eid.relativeNames[2].attributes[0].value, .string("NTREE-10747013"))
        XCTAssertEqual(
            try signer("bmp").issuerName.relativeNames.map { $0.attributes[0].value },
            [.string("EE"), .string("Tõnu"), .string("Ādam CA")], "TeletexString and BMPString read as text")
    }

    func testTheCertificatesOwnIssuerStringMatches() throws {
        for label in Self.pkis.keys.sorted() {
            try assertMatches(label, try signer(label).issuer)
        }
    }

    // MARK: organizationIdentifier and emailAddress (every Estonian CA since 2015)

    func testEID_asTheReferenceWritesIt() throws {
        try assertMatches(
            "eid",
            "emailAddress=pki@sk.ee,CN=TEST of ESTEID2018,organizationIdentifier=NTREE-10747013,O=SK ID Solutions AS,C=EE"
        )
    }

    func testEID_hexValuesOfTheIssue() throws {
        try assertMatches(
            "eid",
            "1.2.840.113549.1.9.1=#1609706b6940736b2e6565,CN=TEST of ESTEID2018,"
                + "2.5.4.97=#0c0e4e545245452d3130373437303133,O=SK ID Solutions AS,C=EE")
    }

    func testEID_hexPrintableStringForAUTF8StringValue() throws {
        try assertMatches(
            "eid",
            "E=pki@sk.ee,CN=\(hex(0x13, "TEST of ESTEID2018")),2.5.4.97=\(hex(0x13, "NTREE-10747013")),O=SK ID Solutions AS,C=\(hex(0x13, "EE"))"
        )
    }

    func testEID_shortNameECaseAndSpacesAfterCommas() throws {
        // Reference: ` CN`, ` O`… (keys with the space) are skipped, so it matches anything there.
        try assertMatches(
            "eid",
            "E=PKI@SK.EE, CN=test of esteid2018, organizationIdentifier=NTREE-10747013, O=SK ID Solutions AS, C=ee")
    }

    func testEID_dottedOIDsOnly() throws {
        try assertMatches(
            "eid",
            "1.2.840.113549.1.9.1=pki@sk.ee,2.5.4.3=TEST of ESTEID2018,2.5.4.97=NTREE-10747013,2.5.4.10=SK ID Solutions AS,2.5.4.6=EE"
        )
    }

    func testEID_DEROrderAsSomeProducersWriteIt() throws {
        try assertMatches(
            "eid",
            "C=EE,O=SK ID Solutions AS,organizationIdentifier=NTREE-10747013,CN=TEST of ESTEID2018,emailAddress=pki@sk.ee"
        )
    }

    func testEID_wrongOrganizationIdentifier() throws {
        try assertDiffers(
            "eid",
            "1.2.840.113549.1.9.1=#1609706b6940736b2e6565,CN=TEST of ESTEID2018,"
                + "2.5.4.97=#0c0e4e545245452d3130373437303134,O=SK ID Solutions AS,C=EE")
    }

    func testEID_omittedEmailAddress_referenceSkipsIt() throws {
        try assertDiffers(
            "eid", "CN=TEST of ESTEID2018,organizationIdentifier=NTREE-10747013,O=SK ID Solutions AS,C=EE")
    }

    func testEID_valuePrefixes_referenceAccepts() throws {
        try assertDiffers(
            "eid", "emailAddress=pki@sk.ee,CN=TEST of ESTEID,organizationIdentifier=NTREE-10747013,O=SK,C=EE")
    }

    func testEID_extraOU() throws {
        try assertDiffers(
            "eid",
            "emailAddress=pki@sk.ee,CN=TEST of ESTEID2018,OU=Extra,organizationIdentifier=NTREE-10747013,O=SK ID Solutions AS,C=EE"
        )
    }

    func testEID_permutedRDNs_onlyTheTwoOrdersMatch() throws {
        try assertDiffers(
            "eid",
            "CN=TEST of ESTEID2018,emailAddress=pki@sk.ee,organizationIdentifier=NTREE-10747013,O=SK ID Solutions AS,C=EE"
        )
    }

    func testEID_emptyName_referenceAccepts() throws {
        try assertDiffers("eid", "")
    }

    func testEID_wrongValuesUnderTypesTheReferenceSkips() throws {
        // The reference knows only CN L ST O OU C STREET DC UID (case-sensitive) and skips the rest.
        try assertDiffers(
            "eid", "emailAddress=pki@sk.ee,cn=WRONG,organizationIdentifier=NTREE-10747013,O=SK ID Solutions AS,C=EE")
        try assertDiffers(
            "eid",
            "emailAddress=WRONG@sk.ee,CN=TEST of ESTEID2018,organizationIdentifier=WRONG,O=SK ID Solutions AS,C=EE")
        try assertDiffers(
            "eid",
            "emailAddress=pki@sk.ee,CN=TEST of ESTEID2018,organizationIdentifier=NTREE-10747013,O=SK ID Solutions AS,C=EE,SERIALNUMBER=123"
        )
    }

    func testEID_anEscapedLastCharacter_referenceDropsTheLastPiece() throws {
        try assertDiffers(
            "eid",
            #"emailAddress=pki@sk.ee,CN=TEST of ESTEID2018,organizationIdentifier=NTREE-10747013,O=SK ID Solutions AS,C=Wrong\,"#
        )
    }

    func testEID_semicolonSeparatorsAreNotRFC4514() throws {
        XCTAssertEqual(try compare("eid", "CN=TEST of ESTEID2018;C=EE").code, "malformed-issuer-name")
    }

    // MARK: each DER string type as a #hex value, matched and mismatched

    private func eidName(commonName value: String) -> String {
        "emailAddress=pki@sk.ee,CN=\(value),organizationIdentifier=NTREE-10747013,O=SK ID Solutions AS,C=EE"
    }

    private func assertHexCell(_ tag: UInt8, file: StaticString = #filePath, line: UInt = #line) throws {
        // The issuer's CN is a UTF8String; every string type with the same text is the same name.
        try assertMatches("eid", eidName(commonName: hex(tag, "TEST of ESTEID2018")), file: file, line: line)
        try assertDiffers("eid", eidName(commonName: hex(tag, "TEST of ESTEID2019")), file: file, line: line)
    }

    func testHex_UTF8String() throws { try assertHexCell(0x0C) }
    func testHex_PrintableString() throws { try assertHexCell(0x13) }
    func testHex_IA5String() throws { try assertHexCell(0x16) }
    func testHex_TeletexString() throws { try assertHexCell(0x14) }
    func testHex_BMPString() throws { try assertHexCell(0x1E) }
    func testHex_UniversalString() throws { try assertHexCell(0x1C) }
    func testHex_VisibleString() throws { try assertHexCell(0x1A) }

    func testHex_NumericString() throws {
        try assertMatches("multi", "CN=Multi CA+2.5.4.5=\(hex(0x12, "123")),OU=Unit B,OU=Unit A,O=Multi Org,C=EE")
        try assertDiffers("multi", "CN=Multi CA+2.5.4.5=\(hex(0x12, "124")),OU=Unit B,OU=Unit A,O=Multi Org,C=EE")
    }

    func testHex_aNonStringTypeNeverMatchesAString() throws {
        try assertDiffers("eid", eidName(commonName: "#020105"))
    }

    func testEID_dottedOIDsWithOneWrongValue() throws {
        try assertDiffers(
            "eid",
            "1.2.840.113549.1.9.1=pki@sk.ee,2.5.4.3=TEST of ESTEID2018,2.5.4.97=NTREE-10747013,2.5.4.10=SK ID Solutions BS,2.5.4.6=EE"
        )
    }

    func testEID_aWrongValueAfterASpace_referenceSkipsIt() throws {
        try assertDiffers(
            "eid", "E=pki@sk.ee, CN=TEST of ESTEID2018, organizationIdentifier=NTREE-10747013, O=WRONG, C=XX")
    }

    // MARK: UTF-8 values

    func testUTF8_escapedBytesAsTheReferenceWritesThem() throws {
        try assertMatches("utf8", #"CN=\C3\95\C3\84\C3\96\C3\9C CA,O=T\C3\B5nu \C5\AAdens,C=EE"#)
    }

    func testUTF8_lowerCaseHexEscapes() throws {
        try assertMatches("utf8", #"CN=\c3\95\c3\84\c3\96\c3\9c CA,O=T\c3\b5nu \c5\aadens,C=EE"#)
    }

    func testUTF8_rawText() throws {
        try assertMatches("utf8", "CN=ÕÄÖÜ CA,O=Tõnu Ūdens,C=EE")
    }

    func testUTF8_NFDText_referenceRefuses() throws {
        try assertMatches("utf8", "CN=O\u{0303}A\u{0308}O\u{0308}U\u{0308} CA,O=To\u{0303}nu U\u{0304}dens,C=EE")
    }

    func testUTF8_otherCase_referenceRefuses() throws {
        try assertMatches("utf8", "CN=õäöü ca,O=tõnu ūdens,C=ee")
    }

    func testUTF8_hexUTF8StringAndBMPString() throws {
        try assertMatches("utf8", "CN=\(hex(0x0C, "ÕÄÖÜ CA")),O=\(hex(0x1E, "Tõnu Ūdens")),C=EE")
    }

    func testUTF8_aLetterMissing() throws {
        try assertDiffers("utf8", "CN=ÕÄÖ CA,O=Tõnu Ūdens,C=EE")
    }

    func testUTF8_escapedBytesWithALetterMissing() throws {
        try assertDiffers("utf8", #"CN=\C3\95\C3\84\C3\96 CA,O=T\C3\B5nu \C5\AAdens,C=EE"#)
    }

    func testUTF8_latin1EscapeIsNotUTF8() throws {
        XCTAssertEqual(
            try compare("utf8", #"CN=\D5\C4\D6\DC CA,O=T\F5nu \C5\AAdens,C=EE"#).code, "malformed-issuer-name")
    }

    // MARK: TeletexString and BMPString values

    func testBMP_text() throws {
        try assertMatches("bmp", "CN=Ādam CA,O=Tõnu,C=EE")
    }

    func testBMP_escapedUTF8AsTheReferenceWritesIt() throws {
        try assertMatches("bmp", #"CN=\C4\80dam CA,O=T\C3\B5nu,C=EE"#)
    }

    func testBMP_hexInTheirOwnTypes() throws {
        try assertMatches("bmp", "CN=\(hex(0x1E, "Ādam CA")),O=\(hex(0x14, "Tõnu")),C=\(hex(0x13, "EE"))")
    }

    func testBMP_hexUniversalStringAndUTF8String() throws {
        try assertMatches("bmp", "CN=\(hex(0x1C, "Ādam CA")),O=\(hex(0x0C, "Tõnu")),C=EE")
    }

    func testBMP_withoutTheMacron() throws {
        try assertDiffers("bmp", "CN=Adam CA,O=Tõnu,C=EE")
    }

    func testBMP_wrongHex() throws {
        try assertDiffers("bmp", "CN=\(hex(0x1E, "Ādam CB")),O=Tõnu,C=EE")
    }

    // MARK: two OUs and a multi-valued RDN

    func testMulti_asOpenSSLWritesIt() throws {
        try assertMatches("multi", "CN=Multi CA+serialNumber=123,OU=Unit B,OU=Unit A,O=Multi Org,C=EE")
    }

    func testMulti_attributesOfTheRDNInAnyOrder_referenceFailsItsOwn() throws {
        try assertMatches("multi", "SERIALNUMBER=123 + CN=Multi CA, OU=Unit B, OU=Unit A, O=Multi Org, C=EE")
    }

    func testMulti_hexNumericStringInTheRDN() throws {
        try assertMatches("multi", "2.5.4.5=#1203313233+CN=Multi CA,OU=Unit B,OU=Unit A,O=Multi Org,C=EE")
    }

    func testMulti_DEROrder() throws {
        try assertMatches("multi", "C=EE,O=Multi Org,OU=Unit A,OU=Unit B,CN=Multi CA+serialNumber=123")
    }

    func testMulti_theRDNSplitInTwo() throws {
        try assertDiffers("multi", "CN=Multi CA,serialNumber=123,OU=Unit B,OU=Unit A,O=Multi Org,C=EE")
    }

    func testMulti_OUsSwapped() throws {
        try assertDiffers("multi", "CN=Multi CA+serialNumber=123,OU=Unit A,OU=Unit B,O=Multi Org,C=EE")
    }

    func testMulti_anAttributeMissingFromTheRDN() throws {
        try assertDiffers("multi", "CN=Multi CA,OU=Unit B,OU=Unit A,O=Multi Org,C=EE")
    }

    // MARK: X509SerialNumber as an integer

    func testSerialNumbers() throws {
        let issuer = try signer("eid").issuer
        let cases: [(String, String)] = [
            ("65298", "matches"), (" 65298\n", "matches"), ("065298", "matches"), ("+65298", "matches"),
            ("65299", "serial-differs"), ("-65298", "serial-differs"),
            ("0xff12", "malformed-serial-number"), ("65 298", "malformed-serial-number"),
            ("", "malformed-serial-number"),
            ("\u{FF16}5298", "malformed-serial-number"), ("65298.0", "malformed-serial-number"),
            (String(repeating: "9", count: 300), "malformed-serial-number"),
        ]
        for (serial, expected) in cases {
            XCTAssertEqual(try compare("eid", issuer, serial: serial).code, expected, serial)
        }
    }

    // MARK: IssuerSerialV2: the DER name compared as a name, the serial as an integer

    private func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        precondition(content.count < 0x80 * 0x100)
        let length: [UInt8] =
            content.count < 0x80
            ? [UInt8(content.count)]
            : content.count < 0x100
                ? [0x81, UInt8(content.count)] : [0x82, UInt8(content.count >> 8), UInt8(content.count & 0xFF)]
        return [tag] + length + content
    }

    /// A DER Name, RDNs in DER order, every value a UTF8String.
    private func utf8Name(_ rdns: [(oid: [UInt8], text: String)]) -> [UInt8] {
        tlv(0x30, rdns.flatMap { tlv(0x31, tlv(0x30, tlv(0x06, $0.oid) + tlv(0x0C, Array($0.text.utf8)))) })
    }

    private func issuerSerialV2(name: [UInt8], serial: [UInt8], extraName: Bool = false) -> Data {
        let general = tlv(0xA4, name) + (extraName ? tlv(0xA4, name) : [])
        return Data(tlv(0x30, tlv(0x30, general) + tlv(0x02, serial)))
    }

    private let country: [UInt8] = [0x55, 0x04, 0x06], organization: [UInt8] = [0x55, 0x04, 0x0A],
        common: [UInt8] = [0x55, 0x04, 0x03]

    func testIssuerSerialV2_asTamgaWritesIt() throws {
        for label in Self.pkis.keys.sorted() {
            let certificate = try signer(label)
            XCTAssertEqual(certificate.compareIssuerSerialV2(der: certificate.issuerSerialDER), .matches, label)
        }
    }

    func testIssuerSerialV2_theSameNameInOtherStringTypesAndCase() throws {
        // The issuer holds PrintableString, TeletexString and BMPString; these are UTF8Strings.
        let name = utf8Name([(country, "ee"), (organization, "TÕNU"), (common, "Ādam  ca")])
        XCTAssertEqual(
            try signer("bmp").compareIssuerSerialV2(der: issuerSerialV2(name: name, serial: [0x00, 0xFF, 0x12])),
            .matches)
    }

    func testIssuerSerialV2_aRedundantLeadingZeroIsTheSameInteger() throws {
        let name = utf8Name([(country, "EE"), (organization, "Tõnu"), (common, "Ādam CA")])
        XCTAssertEqual(
            try signer("bmp").compareIssuerSerialV2(der: issuerSerialV2(name: name, serial: [0x00, 0x00, 0xFF, 0x12])),
            .matches)
    }

    func testIssuerSerialV2_anotherIssuer() throws {
        let name = utf8Name([(country, "EE"), (organization, "Tõnu"), (common, "Ādam CB")])
        XCTAssertEqual(
            try signer("bmp").compareIssuerSerialV2(der: issuerSerialV2(name: name, serial: [0x00, 0xFF, 0x12])),
            .issuerDiffers)
        let reversed = utf8Name([(common, "Ādam CA"), (organization, "Tõnu"), (country, "EE")])
        XCTAssertEqual(
            try signer("bmp").compareIssuerSerialV2(der: issuerSerialV2(name: reversed, serial: [0x00, 0xFF, 0x12])),
            .issuerDiffers,
            "a DER name has one order")
    }

    func testIssuerSerialV2_anotherSerial() throws {
        let name = utf8Name([(country, "EE"), (organization, "Tõnu"), (common, "Ādam CA")])
        XCTAssertEqual(
            try signer("bmp").compareIssuerSerialV2(der: issuerSerialV2(name: name, serial: [0x00, 0xFF, 0x13])),
            .serialDiffers)
    }

    func testIssuerSerialV2_malformed() throws {
        let certificate = try signer("bmp")
        let name = utf8Name([(country, "EE"), (organization, "Tõnu"), (common, "Ādam CA")])
        for (label, der) in [
            ("two GeneralNames", issuerSerialV2(name: name, serial: [0x01], extraName: true)),
            ("garbage", Data([0x30, 0x03, 0x01, 0x02])),
            ("trailing bytes", certificate.issuerSerialDER + Data([0x00])),
            ("not a Name", issuerSerialV2(name: [0x04, 0x01, 0x00], serial: [0x01])),
        ] {
            XCTAssertEqual(certificate.compareIssuerSerialV2(der: der).code, "malformed-issuer-serial-v2", label)
        }
    }
}
