import TamgaCore
import XCTest

/// The RFC 4514 parser on its own: what each form parses to, and a typed error (never a trap)
/// for every hostile input. Matching against real certificates is in IssuerNameMatchingTests.
final class DistinguishedNameTests: XCTestCase {
    private func parse(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> DistinguishedName? {
        do {
            return try DistinguishedName(rfc4514: text)
        } catch {
            XCTFail("\(text): \(error)", file: file, line: line)
            return nil
        }
    }

    private func assertRefused(
        _ text: String, _ expected: DistinguishedName.ParseError, file: StaticString = #filePath, line: UInt = #line
    ) {
        assertRefused(Array(text.utf8), expected, file: file, line: line)
    }

    private func assertRefused(
        _ bytes: [UInt8], _ expected: DistinguishedName.ParseError, file: StaticString = #filePath, line: UInt = #line
    ) {
        do {
            let name = try DistinguishedName(rfc4514UTF8: bytes)
            XCTFail("\(String(decoding: bytes.prefix(80), as: UTF8.self)) parsed as \(name)", file: file, line: line)
        } catch {
            XCTAssertEqual(error, expected, file: file, line: line)
            XCTAssertFalse(error.description.isEmpty, file: file, line: line)
        }
    }

    /// (OID, text) per RDN, in DER order.
    private func pairs(_ name: DistinguishedName?) -> [[String]] {
        (name?.relativeNames ?? []).map { rdn in
            rdn.attributes.map { attribute in
                switch attribute.value {
                case .string(let text): "\(attribute.type.oid)=\(text)"
                case .encoded(let der): "\(attribute.type.oid)=#\(der.map { String(format: "%02x", $0) }.joined())"
                }
            }
        }
    }

    // MARK: forms

    func testShortNamesAreReadLastRDNFirstIntoDEROrder() {
        XCTAssertEqual(pairs(parse("CN=Test CA,O=Org,C=EE")), [["2.5.4.6=EE"], ["2.5.4.10=Org"], ["2.5.4.3=Test CA"]])
    }

    func testEveryKnownShortNameHasItsOID() {
        let table: [(String, String)] = [
            ("CN", "2.5.4.3"), ("commonName", "2.5.4.3"), ("cn", "2.5.4.3"), ("L", "2.5.4.7"), ("ST", "2.5.4.8"),
            ("O", "2.5.4.10"), ("OU", "2.5.4.11"), ("C", "2.5.4.6"), ("STREET", "2.5.4.9"), ("street", "2.5.4.9"),
            ("DC", "0.9.2342.19200300.100.1.25"), ("UID", "0.9.2342.19200300.100.1.1"), ("SERIALNUMBER", "2.5.4.5"),
            ("serialNumber", "2.5.4.5"), ("emailAddress", "1.2.840.113549.1.9.1"), ("E", "1.2.840.113549.1.9.1"),
            ("organizationIdentifier", "2.5.4.97"), ("GN", "2.5.4.42"), ("givenName", "2.5.4.42"), ("SN", "2.5.4.4"),
            ("surname", "2.5.4.4"), ("title", "2.5.4.12"), ("pseudonym", "2.5.4.65"), ("OID.2.5.4.3", "2.5.4.3"),
        ]
        for (keyword, oid) in table {
            XCTAssertEqual(parse("\(keyword)=x")?.relativeNames.first?.attributes.first?.type.oid, oid, keyword)
        }
    }

    func testDottedOIDsAreReadAsTypes() {
        XCTAssertEqual(pairs(parse("1.3.6.1.4.1.99999.1=abc")), [["1.3.6.1.4.1.99999.1=abc"]])
    }

    func testHexValuesOfEveryStringTypeDecodeToText() {
        let cases: [(String, String)] = [
            ("#0c0e4e545245452d3130373437303133", "NTREE-10747013"),  // UTF8String
            ("#130e4e545245452d3130373437303133", "NTREE-10747013"),  // PrintableString
            ("#1609706b6940736b2e6565", "pki@sk.ee"),  // IA5String
            ("#140454f56e75", "Tõnu"),  // TeletexString, read as Latin-1
            ("#1e0601000064006d", "Ādm"),  // BMPString
            ("#1c080000010000000064", "Ād"),  // UniversalString
            ("#1203313233", "123"),  // NumericString
            ("#1a03616263", "abc"),  // VisibleString
            ("#0c04c3b5c3a4", "õä"),  // UTF8String, non-ASCII
        ]
        for (hex, text) in cases {
            XCTAssertEqual(pairs(parse("2.5.4.97=\(hex)")), [["2.5.4.97=\(text)"]], hex)
        }
    }

    func testAHexValueOfAnotherTypeIsKeptAsDER() {
        XCTAssertEqual(pairs(parse("1.2.3.4=#020105")), [["1.2.3.4=#020105"]])
    }

    func testAHexValueWithALongFormLengthIsRead() {
        let text = String(repeating: "a", count: 200)
        let hex = "#0c81c8" + String(repeating: "61", count: 200)
        XCTAssertEqual(pairs(parse("CN=\(hex)")), [["2.5.4.3=\(text)"]])
    }

    func testEscapedSpecialsAndHexBytes() {
        XCTAssertEqual(pairs(parse(##"CN=a\,b\+c\\d\"e\;f\<g\>h\=i\#j"##)), [[#"2.5.4.3=a,b+c\d"e;f<g>h=i#j"#]])
        XCTAssertEqual(pairs(parse(#"CN=\ lead and trail\ "#)), [["2.5.4.3= lead and trail "]])
        XCTAssertEqual(pairs(parse(##"CN=\#not hex"##)), [["2.5.4.3=#not hex"]])
        XCTAssertEqual(pairs(parse(#"O=T\C3\B5nu \c5\aadens"#)), [["2.5.4.10=Tõnu Ūdens"]])
        XCTAssertEqual(pairs(parse(#"CN=\41\20B"#)), [["2.5.4.3=A B"]])
        XCTAssertEqual(pairs(parse("CN=a=b")), [["2.5.4.3=a=b"]], "an unescaped '=' in a value is allowed by RFC 4514")
    }

    func testMultiValuedRDNs() {
        XCTAssertEqual(
            pairs(parse("CN=Multi CA+serialNumber=123,C=EE")), [["2.5.4.6=EE"], ["2.5.4.3=Multi CA", "2.5.4.5=123"]])
    }

    func testSpacesAroundSeparatorsAreIgnoredButNotInsideValues() {
        XCTAssertEqual(
            pairs(parse("  CN = Test  CA ,  O=Org + OU=Unit , C=EE  ")),
            [["2.5.4.6=EE"], ["2.5.4.10=Org", "2.5.4.11=Unit"], ["2.5.4.3=Test  CA"]])
    }

    func testTheEmptyStringIsTheEmptyName() {
        XCTAssertEqual(parse("")?.isEmpty, true)
        XCTAssertEqual(parse("   ")?.isEmpty, true)
        XCTAssertEqual(pairs(parse("CN=")), [["2.5.4.3="]], "an empty value is allowed")
    }

    func testDescriptionReadsBackAsTheSameName() throws {
        for text in [
            "CN=Multi CA+serialNumber=123,OU=Unit B,OU=Unit A,C=EE", #"CN=a\,b\+c,O=\ x\ "#, "1.2.3.4=#020105,C=EE",
            "O=Tõnu Ūdens,C=EE",
        ] {
            let name = try XCTUnwrap(parse(text))
            XCTAssertEqual(try DistinguishedName(rfc4514: name.description), name, text)
        }
    }

    func testNamesMatchCaseInsensitivelyWithInsignificantSpacesAndNFKC() throws {
        let a = try DistinguishedName(rfc4514: "CN=Test  CA,O=Ｏｒｇ,C=EE")
        let b = try DistinguishedName(rfc4514: "cn= test ca,o=org,c=ee")
        XCTAssertTrue(a.matches(b))
        XCTAssertFalse(
            a.matches(try DistinguishedName(rfc4514: "CN=TestCA,O=Org,C=EE")), "inner spaces still separate words")
        XCTAssertFalse(a.matches(a.reversed), "order counts")
        XCTAssertTrue(
            try DistinguishedName(rfc4514: "O=To\u{0303}nu").matches(try DistinguishedName(rfc4514: "O=T\u{00F5}nu")),
            "NFD = NFC")
    }

    // MARK: hostile input: a typed error, never a trap

    func testNonASCIIHexDigitsAreRefused() {
        assertRefused("CN=#0c01\u{FF10}\u{FF10}", .invalidHexDigit(offset: 8))  // U+FF10 FULLWIDTH DIGIT ZERO
        assertRefused("CN=\\\u{FF10}\u{FF10}", .invalidEscape(offset: 3))
        assertRefused("CN=#0c0g", .invalidHexDigit(offset: 7))
    }

    func testTruncatedEscapesAreRefused() {
        assertRefused("CN=a\\", .truncatedEscape(offset: 4))
        assertRefused("CN=a\\4", .truncatedEscape(offset: 4))
        assertRefused("CN=a\\4x", .truncatedEscape(offset: 4))
        assertRefused("CN=a\\q", .invalidEscape(offset: 4))
    }

    func testOddOrEmptyHexIsRefused() {
        assertRefused("CN=#0c0", .oddHexDigits(offset: 4))
        assertRefused("CN=#", .oddHexDigits(offset: 4))
        assertRefused("CN=#,C=EE", .oddHexDigits(offset: 4))
    }

    func testMalformedBERIsRefused() {
        assertRefused("CN=#0c05616263", .malformedBER("the length says 5 content bytes, 3 follow"))
        assertRefused("CN=#0c80", .malformedBER("indefinite length (BER, not DER)"))
        assertRefused("CN=#0c", .malformedBER("1 byte(s) cannot hold a tag and a length"))
        assertRefused("CN=#0c8103616263", .malformedBER("non-minimal length"))
        assertRefused("CN=#2c0403026162", .malformedBER("constructed utf8String (BER, not DER)"))
        assertRefused("CN=#1f0100", .malformedBER("multi-byte tags are not attribute values"))
    }

    func testInvalidStringContentIsRefused() {
        assertRefused("CN=#0c02c328", .invalidStringContent("UTF8String is not UTF-8"))
        assertRefused("CN=#1e03000041", .invalidStringContent("BMPString has an odd number of bytes"))
        assertRefused("CN=#1e02d800", .invalidStringContent("BMPString holds U+D800, not a Unicode scalar"))
        assertRefused("CN=#1c0400110000", .invalidStringContent("UniversalString holds U+110000, not a Unicode scalar"))
        assertRefused("CN=#1301e9", .invalidStringContent("printableString holds a byte above 0x7F"))
    }

    func testEscapedBytesThatAreNotUTF8AreRefused() {
        assertRefused(#"O=T\D5nu"#, .invalidUTF8(offset: 2))  // Latin-1 Õ, not UTF-8
        assertRefused(#"CN=\C3\28"#, .invalidUTF8(offset: 3))
        assertRefused([0x43, 0x4E, 0x3D, 0xFF, 0xFE], .invalidUTF8(offset: 3))
    }

    func testStructureErrors() {
        assertRefused("XYZ=1", .unknownAttributeType("XYZ"))
        assertRefused("1.2..3=x", .malformedOID("1.2..3"))
        assertRefused("02.5.4.3=x", .malformedOID("02.5.4.3"))
        assertRefused("3.5=x", .malformedOID("3.5"))
        assertRefused("7=x", .malformedOID("7"))
        assertRefused("CN", .missingEquals(offset: 2))
        assertRefused("CN:x", .missingEquals(offset: 2))
        assertRefused("=x", .missingEquals(offset: 0))
        assertRefused("CN=a,,O=b", .emptyRelativeName(offset: 5))
        assertRefused("CN=a,", .emptyRelativeName(offset: 5))
        assertRefused(",CN=a", .emptyRelativeName(offset: 0))
        assertRefused("CN=a+", .emptyRelativeName(offset: 5))
        assertRefused("CN=a;O=b", .unescapedSpecial(offset: 4))
        assertRefused("CN=\"a\"", .unescapedSpecial(offset: 3))
        assertRefused("CN=a<b", .unescapedSpecial(offset: 4))
        assertRefused([0x43, 0x4E, 0x3D, 0x61, 0x00], .unescapedSpecial(offset: 4))
        assertRefused("CN=#0c0161 x", .unexpectedCharacter(offset: 11))
    }

    func testHugeInputsAreRefusedWithinTheCaps() {
        assertRefused(
            String(repeating: "a", count: DistinguishedName.maximumTextLength + 1),
            .tooLong(bytes: DistinguishedName.maximumTextLength + 1))
        assertRefused(
            Array(repeating: "CN=a", count: DistinguishedName.maximumRelativeNames + 1).joined(separator: ","),
            .tooManyRelativeNames)
        assertRefused(
            Array(repeating: "CN=a", count: DistinguishedName.maximumAttributes + 1).joined(separator: "+"),
            .tooManyAttributes)
        assertRefused(
            "1." + String(repeating: "9", count: 30) + "=x", .malformedOID("1." + String(repeating: "9", count: 30)))
        XCTAssertNotNil(
            parse(Array(repeating: "CN=a", count: DistinguishedName.maximumRelativeNames).joined(separator: ",")))
    }

    /// A deterministic stand-in for the libfuzzer target to come: random and mutated inputs
    /// end in a name or a ParseError, never a trap.
    func testRandomAndMutatedInputsNeverTrap() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        let seeds = [#"CN=T\C3\B5nu\,x+2.5.4.97=#0c0e4e545245452d3130373437303133,C=EE"#, "CN=#1e0601000064006d", ""]
        let alphabet =
            Array(##"\#,+=;"<> 0123456789abcdefABCDEF.COU"##.utf8) + [0x00, 0xC3, 0xB5, 0xFF, 0xEF, 0xBC, 0x90]
        var parsed = 0
        for round in 0..<20_000 {
            var bytes = Array(seeds[round % seeds.count].utf8)
            for _ in 0..<Int(next() % 6) {
                let position = bytes.isEmpty ? 0 : Int(next() % UInt64(bytes.count + 1))
                let byte = alphabet[Int(next() % UInt64(alphabet.count))]
                switch next() % 3 {
                case 0: bytes.insert(byte, at: position)
                case 1 where position < bytes.count: bytes[position] = byte
                default: if position < bytes.count { bytes.remove(at: position) }
                }
            }
            if let name = try? DistinguishedName(rfc4514UTF8: bytes) {
                parsed += 1
                _ = name.matches(name.reversed)
                _ = name.description
            }
        }
        XCTAssertGreaterThan(parsed, 100)
    }
}
