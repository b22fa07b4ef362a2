import XCTest
@testable import ASiC
import TamgaCore
import TamgaTestSupport

/// Inputs built to exhaust the validator, look-alike evidence, and lenient decoding.
final class ValidatorLimitsTests: ContainerTestCase {
    /// Replaces the signature file of a signed container with `xml` (same entry name).
    private func withSignatureXML(_ xml: String, base: Container) throws -> String {
        let out = path("replaced.asice")
        let script = """
        import sys, zipfile
        src = zipfile.ZipFile(sys.argv[1]); dst = zipfile.ZipFile(sys.argv[2], "w")
        for info in src.infolist():
            data = sys.stdin.buffer.read() if info.filename == "META-INF/signatures0.xml" else src.read(info.filename)
            dst.writestr(info, data, compress_type=info.compress_type)
        dst.close()
        """
        let result = try TestEnvironment.run("/usr/bin/python3", ["-c", script, base.path, out], input: Data(xml.utf8))
        XCTAssertEqual(result.status, 0, result.error)
        return out
    }

    func testThousandsOfSignaturesInOneFileAreNotEachChecked() async throws {
        let base = try await signedContainer()
        let xml = "<asic:XAdESSignatures xmlns:asic=\"http://uri.etsi.org/02918/v1.2.1#\" xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\">"
            + String(repeating: "<ds:Signature><ds:SignedInfo/></ds:Signature>", count: 5_000) + "</asic:XAdESSignatures>"
        let report = try validate(Container(openingAt: withSignatureXML(xml, base: base)))
        XCTAssertEqual(report.signatures.count, 1)
        XCTAssertEqual(report.signatures[0].findings.map(\.code), ["too-many-signatures"])
    }

    func testFindingsPerSignatureAreCapped() async throws {
        let base = try await signedContainer()
        let xml = "<asic:XAdESSignatures xmlns:asic=\"http://uri.etsi.org/02918/v1.2.1#\" xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\"><ds:Signature><ds:SignedInfo>"
            + String(repeating: "<ds:Reference/>", count: 500) + "</ds:SignedInfo></ds:Signature></asic:XAdESSignatures>"
        let report = try validate(Container(openingAt: withSignatureXML(xml, base: base)))
        XCTAssertEqual(report.status, .invalid)
        XCTAssertLessThanOrEqual(report.signatures[0].findings.count, SignatureValidator.maximumFindings + 1)
        XCTAssertEqual(report.signatures[0].findings.last?.code, "more-findings")
    }

    func testLookAlikeEvidenceInAnotherNamespaceDoesNotRaiseTheProfile() async throws {
        let base = try await signedContainer()
        var xml = String(decoding: base.signatures[0].data, as: UTF8.self)
        xml = xml.replacingOccurrences(of: "</xades:SignedProperties>", with: "</xades:SignedProperties><xades:UnsignedProperties><xades:UnsignedSignatureProperties><x:SignatureTimeStamp xmlns:x=\"urn:junk\"/><x:RevocationValues xmlns:x=\"urn:junk\"/></xades:UnsignedSignatureProperties></xades:UnsignedProperties>")
        let report = try Container(openingAt: withSignatureXML(xml, base: base)).validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
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
        XCTAssertThrowsError(try container.prepareSignature(certificate: signer.signingCertificate, algorithm: signer.algorithm,
                                                            options: SignatureOptions(profile: .B, roles: ["x\u{1}"]))) {
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
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), container.path, "the link is still a link")
        XCTAssertEqual(try Container(openingAt: container.path).dataFiles.count, 3)
    }

    func testOnePassSigningWithSHA512HashesTheBytesWritten() async throws {
        let container = Container(creatingAt: path("sha512.asice"))
        try container.addDataFile(path: TestEnvironment.write("content", named: "d.txt", in: folder))
        try await container.sign(with: TestEnvironment.signer("ec-p256"), options: SignatureOptions(profile: .B, referenceDigest: .sha512))
        XCTAssertNotNil(container.cachedDigest(named: "d.txt", .sha512), "computed while writing, not re-read later")
        XCTAssertEqual(try validate(Container(openingAt: path("sha512.asice"))).status, .valid)
    }
}
