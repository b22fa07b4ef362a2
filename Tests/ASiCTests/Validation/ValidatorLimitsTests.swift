import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// Inputs built to exhaust the validator, look-alike evidence, and lenient decoding.
final class ValidatorLimitsTests: ContainerTestCase {
    func testThousandsOfSignaturesInOneFileAreNotEachChecked() async throws {
        let base = try await signedContainer()
        let xml =
            "<asic:XAdESSignatures xmlns:asic=\"http://uri.etsi.org/02918/v1.2.1#\" xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\">"
            + String(repeating: "<ds:Signature><ds:SignedInfo/></ds:Signature>", count: 5_000)
            + "</asic:XAdESSignatures>"
        let report = try validate(Container(openingAt: withSignatureXML(xml, base: base)))
        XCTAssertEqual(report.signatures.count, 1)
        XCTAssertEqual(report.signatures[0].findings.map(\.code), ["too-many-signatures"])
    }

    /// 16 signatures in each of 70 files: past 1,000 in the container the rest are not checked.
    func testThousandsOfSignaturesAcrossFilesAreNotEachChecked() async throws {
        let base = try await signedContainer()
        let xml =
            "<asic:XAdESSignatures xmlns:asic=\"http://uri.etsi.org/02918/v1.2.1#\" xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\">"
            + String(
                repeating: "<ds:Signature><ds:SignedInfo/></ds:Signature>",
                count: SignatureValidator.maximumSignaturesPerFile) + "</asic:XAdESSignatures>"
        let out = path("many-files.asice")
        let script = """
            import sys, zipfile
            src = zipfile.ZipFile(sys.argv[1]); dst = zipfile.ZipFile(sys.argv[2], "w"); xml = sys.stdin.buffer.read()
            for info in src.infolist():
                if not info.filename.startswith("META-INF/signatures"): dst.writestr(info, src.read(info.filename), compress_type=info.compress_type)
            for i in range(70): dst.writestr("META-INF/signatures%d.xml" % i, xml, compress_type=zipfile.ZIP_DEFLATED)
            dst.close()
            """
        let result = try TestEnvironment.run("/usr/bin/python3", ["-c", script, base.path, out], input: Data(xml.utf8))
        XCTAssertEqual(result.status, 0, result.error)
        let report = try validate(Container(openingAt: out))
        // Whole files are checked until the bound is reached: at most one file's worth past it.
        XCTAssertGreaterThanOrEqual(report.signatures.count, Container.maximumSignatures)
        XCTAssertLessThan(
            report.signatures.count, Container.maximumSignatures + SignatureValidator.maximumSignaturesPerFile)
        XCTAssertEqual(report.findings.map(\.code), ["too-many-signatures"])
        XCTAssertEqual(report.status, .invalid)
    }

    func testFindingsPerSignatureAreCapped() async throws {
        let base = try await signedContainer()
        let xml =
            "<asic:XAdESSignatures xmlns:asic=\"http://uri.etsi.org/02918/v1.2.1#\" xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\" xmlns:xades=\"http://uri.etsi.org/01903/v1.3.2#\"><ds:Signature><ds:SignedInfo/>"
            + String(repeating: "<xades:CounterSignature/>", count: 500) + "</ds:Signature></asic:XAdESSignatures>"
        let report = try validate(Container(openingAt: withSignatureXML(xml, base: base)))
        XCTAssertEqual(report.status, .invalid)
        XCTAssertLessThanOrEqual(report.signatures[0].findings.count, SignatureValidator.maximumFindings + 1)
        XCTAssertEqual(report.signatures[0].findings.last?.code, "more-findings")
    }

    func testLookAlikeEvidenceInAnotherNamespaceDoesNotRaiseTheProfile() async throws {
        let base = try await signedContainer()
        var xml = String(decoding: base.signatures[0].data, as: UTF8.self)
        xml = xml.replacingOccurrences(
            of: "</xades:SignedProperties>",
            with:
                "</xades:SignedProperties><xades:UnsignedProperties><xades:UnsignedSignatureProperties><x:SignatureTimeStamp xmlns:x=\"urn:junk\"/><x:RevocationValues xmlns:x=\"urn:junk\"/></xades:UnsignedSignatureProperties></xades:UnsignedProperties>"
        )
        let report = try Container(openingAt: withSignatureXML(xml, base: base)).validate(
            ValidationOptions(trust: try TestEnvironment.testTrust()))
        XCTAssertEqual(report.signatures[0].profile, "B")
        XCTAssertEqual(report.status, .invalid)
        XCTAssertTrue(report.signatures[0].findings.map(\.code).contains("profile-too-low"))
    }

    func testPercentDecodingAcceptsOnlyTwoHexDigits() {
        XCTAssertEqual(URIPath.decode("a%20b%C3%B6"), "a bö")
        XCTAssertNil(URIPath.decode("%+5"))
        XCTAssertNil(URIPath.decode("%-0"))
        XCTAssertNil(URIPath.decode("%4"))
        XCTAssertNil(URIPath.decode("%FF"), "not UTF-8")
    }

    func testMediaTypesAndPropertiesThatXMLCannotCarryAreRefusedBeforeWriting() throws {
        let container = try makeContainer()
        let before = try TestEnvironment.bytes(container.path)
        let file = try TestEnvironment.write("x", named: "x.txt", in: folder)
        for bad in ["text/plain\u{1}", "text", "a/b/c", "text/pla in"] {
            XCTAssertThrowsError(try container.addDataFile(path: file, mediaType: bad), bad) {
                XCTAssertEqual(($0 as? ContainerError)?.code, "invalid-media-type")
            }
        }
        XCTAssertThrowsError(try container.addDataFile(path: file, name: "x\u{FFFE}.txt")) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "invalid-data-file-name")
        }
        let signer = try TestEnvironment.signer("ec-p256")
        XCTAssertThrowsError(
            try container.prepareSignature(
                certificate: signer.signingCertificate, algorithm: signer.algorithm,
                options: SignatureOptions(profile: .B, roles: ["x\u{1}"]))
        ) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "invalid-signature-property")
        }
        XCTAssertEqual(try TestEnvironment.bytes(container.path), before)
    }

    func testRewritingKeepsPermissionsAndWritesThroughSymlinks() throws {
        let container = try makeContainer()
        chmod(container.path, 0o600)
        let link = path("link.asice")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: container.path)
        let viaLink = try Container(openingAt: link)
        try viaLink.addDataFile(path: TestEnvironment.write("third", named: "c.txt", in: folder))
        try viaLink.save()
        let attributes = try FileManager.default.attributesOfItem(atPath: container.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: link), container.path, "the link is still a link")
        XCTAssertEqual(try Container(openingAt: container.path).dataFiles.count, 3)
    }

    func testOnePassSigningWithSHA512HashesTheBytesWritten() async throws {
        let container = Container(creatingAt: path("sha512.asice"))
        try container.addDataFile(path: TestEnvironment.write("content", named: "d.txt", in: folder))
        try await container.sign(
            with: TestEnvironment.signer("ec-p256"), options: SignatureOptions(profile: .B, referenceDigest: .sha512))
        XCTAssertNotNil(container.cachedDigest(named: "d.txt", .sha512), "computed while writing, not re-read later")
        XCTAssertEqual(try validate(Container(openingAt: path("sha512.asice"))).status, .valid)
    }

    // MARK: Bounded work: the probe's reproducers (once seconds to hours of CPU), generated small.

    private func assertRefusedAsTooComplex(
        _ xml: String, _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) async throws {
        let base = try await signedContainer()
        let hostile = try withSignatureXML(xml, base: base)
        let before = try Data(contentsOf: URL(fileURLWithPath: hostile))
        XCTAssertThrowsError(try Container(openingAt: hostile), what, file: file, line: line) { error in
            guard case ContainerError.xmlTooComplex(_, let reason) = error else {
                return XCTFail("\(error)", file: file, line: line)
            }
            XCTAssertTrue(reason.contains(what), reason, file: file, line: line)
        }
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: hostile)), before, "nothing was changed", file: file, line: line)
    }

    private static let root =
        "<asic:XAdESSignatures xmlns:asic=\"http://uri.etsi.org/02918/v1.2.1#\" xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\""

    func testThousandsOfNamespaceDeclarationsAreRefusedBeforeParsing() async throws {
        // On the root (the probe's case: 37 s of canonicalization), where they are also too many
        // attributes, and spread one per element.
        let declarations = (0..<5_000).map { " xmlns:n\($0)=\"urn:n\($0)\"" }.joined()
        try await assertRefusedAsTooComplex(
            Self.root + declarations + "><ds:Signature/></asic:XAdESSignatures>", "attributes")
        let spread = (0..<5_000).map { "<n\($0):x xmlns:n\($0)=\"urn:n\($0)\"/>" }.joined()
        try await assertRefusedAsTooComplex(
            Self.root + "><ds:Signature>" + spread + "</ds:Signature></asic:XAdESSignatures>", "namespace declarations")
    }

    /// XML allows white space around `=`: `xmlns:p ="u"` declares a namespace as surely as
    /// `xmlns:p="u"` (the audit's bypass: 50 levels of 60 such declarations, 52 s to verify).
    func testNamespaceDeclarationsWithWhiteSpaceBeforeTheEqualsSignAreCounted() async throws {
        for separator in [" ", "\t", "\n", " \r\n\t"] {
            let spread = (0..<5_000).map { "<n\($0):x xmlns:n\($0)\(separator)=\"urn:n\($0)\"/>" }.joined()
            try await assertRefusedAsTooComplex(
                Self.root + "><ds:Signature>" + spread + "</ds:Signature></asic:XAdESSignatures>",
                "namespace declarations")
        }
        let limits = XMLLimits(
            maximumElements: 10, maximumAttributesPerElement: 10, maximumNamespaceDeclarations: 1, maximumDepth: 10,
            maximumNamespacesInScope: 100)
        XCTAssertNil(limits.violation(in: Data("<a xmlns:p =\n'u' b\t= 'x'/>".utf8)))
        XCTAssertNotNil(limits.violation(in: Data("<a xmlns:p\t='u'><b xmlns:q\n\n=\"v\"/></a>".utf8)))
    }

    /// Each count within its limit, but many declarations in scope above many elements:
    /// canonicalization looks at every one at every element (124 × 95,000 took 4.4 s).
    func testManyDeclarationsInScopeOverManyElementsAreRefusedBeforeParsing() async throws {
        let first = (0..<60).map { " xmlns:p\($0)=\"urn:\($0)\"" }.joined()
        let second = (0..<60).map { " xmlns:q\($0)=\"urn:\($0)\"" }.joined()
        let xml =
            Self.root + "><ds:Signature><x" + first + "><y" + second + ">" + String(repeating: "<f/>", count: 95_000)
            + "</y></x></ds:Signature></asic:XAdESSignatures>"
        try await assertRefusedAsTooComplex(xml, "in scope")
        let limits = XMLLimits(
            maximumElements: 100, maximumAttributesPerElement: 10, maximumNamespaceDeclarations: 10, maximumDepth: 10,
            maximumNamespacesInScope: 9)
        // 2 in scope at a, 2 at b (from a), 1 + 2 at c: 7; a sibling after c's end sees 2 again,
        // one inside c sees 3 (10 in all).
        XCTAssertNil(limits.violation(in: Data("<a xmlns:p='1' xmlns:q='2'><b/><c xmlns:r='3'/></a>".utf8)))
        XCTAssertNil(limits.violation(in: Data("<a xmlns:p='1' xmlns:q='2'><c xmlns:r='3'></c><b/></a>".utf8)))
        XCTAssertNotNil(limits.violation(in: Data("<a xmlns:p='1' xmlns:q='2'><c xmlns:r='3'><b/></c><b/></a>".utf8)))
    }

    /// The pre-scan reads bytes as ASCII markup; a UTF-16 member is refused for its encoding,
    /// not for a depth it never had (the audit saw "nested deeper than 64").
    func testAUTF16SignatureIsRefusedForItsEncoding() async throws {
        let base = try await signedContainer()
        let xml = String(decoding: base.signatures[0].data, as: UTF8.self)
            .replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"UTF-16\"")
        for (bom, encoding) in [
            ([UInt8]([0xFF, 0xFE]), String.Encoding.utf16LittleEndian), ([0xFE, 0xFF], .utf16BigEndian),
            ([], .utf16LittleEndian),
        ] {
            let bytes = Data(bom) + (xml.data(using: encoding) ?? Data())
            let hostile = try withSignatureBytes(bytes, base: base)
            XCTAssertThrowsError(try Container(openingAt: hostile)) { error in
                guard case ContainerError.malformedXML(_, let reason) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(reason.contains("UTF-16"), reason)
            }
        }
    }

    func testAnElementWithThousandsOfAttributesIsRefusedBeforeParsing() async throws {
        let attributes = (0..<200_000).map { " a\($0)='1'" }.joined()
        try await assertRefusedAsTooComplex(
            Self.root + "><ds:Signature" + attributes + "/></asic:XAdESSignatures>", "attributes")
    }

    func testMillionsOfEmptyElementsAreRefusedBeforeParsing() async throws {
        try await assertRefusedAsTooComplex(
            Self.root + "><ds:Signature>" + String(repeating: "<a/>", count: 1_000_000)
                + "</ds:Signature></asic:XAdESSignatures>",
            "elements")
    }

    func testDeepNestingIsRefusedBeforeParsing() async throws {
        try await assertRefusedAsTooComplex(
            Self.root + ">" + String(repeating: "<a>", count: 200) + String(repeating: "</a>", count: 200)
                + "</asic:XAdESSignatures>",
            "nested deeper")
    }

    func testLimitsDoNotCountWhatIsInsideCommentsQuotesAndCDATA() throws {
        let limits = XMLLimits(
            maximumElements: 3, maximumAttributesPerElement: 1, maximumNamespaceDeclarations: 1, maximumDepth: 2,
            maximumNamespacesInScope: 100)
        XCTAssertNil(
            limits.violation(
                in: Data("<a x='<b c=1 d=2>'><!-- <c/><c/><c/> --><![CDATA[<e/><e/>]]><?pi <f/> ?><b/></a>".utf8)))
        XCTAssertNotNil(limits.violation(in: Data("<a x='1' y='2'/>".utf8)))
        XCTAssertNotNil(limits.violation(in: Data("<a xmlns:p='1'><b xmlns:q='2'/></a>".utf8)))
        XCTAssertNotNil(limits.violation(in: Data("<a><b><c>x</c></b></a>".utf8)))
        XCTAssertNotNil(limits.violation(in: Data("<a/><a/><a/><a/>".utf8)))
    }

    func testTenThousandReferencesToTheSignedPropertiesAreNotEachCanonicalized() async throws {
        let base = try await signedContainer()
        var xml = String(decoding: base.signatures[0].data, as: UTF8.self)
        guard let type = xml.range(of: "Type=\"http://uri.etsi.org/01903#SignedProperties\""),
            let start = xml.range(of: "<ds:Reference ", options: .backwards, range: xml.startIndex..<type.lowerBound),
            let end = xml.range(of: "</ds:Reference>", range: type.upperBound..<xml.endIndex)
        else {
            return XCTFail("no SignedProperties reference in \(xml.prefix(400))")
        }
        let reference = String(xml[start.lowerBound..<end.upperBound])
        xml.replaceSubrange(start.lowerBound..<end.upperBound, with: String(repeating: reference, count: 10_000))
        let report = try validate(Container(openingAt: withSignatureXML(xml, base: base)))
        XCTAssertEqual(report.status, .invalid)
        XCTAssertEqual(report.signatures.first?.findings.map(\.code).contains("too-many-references"), true)
    }

    /// "é" precomposed (NFC) and decomposed (NFD) are equal Swift strings but different names:
    /// a reference to one does not sign the other.
    func testAReferenceMatchesADataFileByteForByte() async throws {
        let container = try makeContainer("nfc.asice", files: ["\u{E9}t\u{E9}.txt": "summer\n"])
        try await container.sign(with: TestEnvironment.signer("ec-p256"), options: .baselineB)
        let signed = try Container(openingAt: container.path)
        var xml = String(decoding: signed.signatures[0].data, as: UTF8.self)
        XCTAssertTrue(xml.contains("URI=\"%C3%A9t%C3%A9.txt\""))
        xml = xml.replacingOccurrences(of: "URI=\"%C3%A9t%C3%A9.txt\"", with: "URI=\"e%CC%81te%CC%81.txt\"")
        let report = try validate(Container(openingAt: withSignatureXML(xml, base: signed)))
        let codes = report.signatures[0].findings.map(\.code)
        XCTAssertTrue(codes.contains("reference-file-missing"), "\(codes)")
        XCTAssertTrue(codes.contains("data-file-not-signed"), "\(codes)")
    }
}
