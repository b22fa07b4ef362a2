import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// ASiC-S signed by `META-INF/timestamp.tst`: recognition, the token over the data object's
/// bytes, TSA trust, and the structure the container must have. Verdicts asserted one by one.
final class TimeStampTokenContainerTests: SimpleContainerTestCase {
    func testHandMadeTokenContainerIsValidAndOpenSSLAgrees() throws {
        let token = try opensslToken(over: Self.content)
        let file = try pythonZip(
            "hand.asics",
            [
                ("mimetype", Self.mimetype, false), ("a.txt", Self.content, true),
                ("META-INF/timestamp.tst", token, false),
            ])
        let container = try Container(openingAt: file)
        XCTAssertEqual(container.kind, .asics)
        XCTAssertEqual(container.dataFiles.map(\.name), ["a.txt"])
        XCTAssertTrue(container.isSigned)
        XCTAssertEqual(container.structureWarnings, [])

        let report = container.validate(try trusted)
        XCTAssertEqual(report.status, .valid, "\(report)")
        XCTAssertEqual(report.containerType, "ASiC-S")
        let signature = try XCTUnwrap(report.signatures.first)
        XCTAssertEqual(report.signatures.count, 1)
        XCTAssertEqual(signature.profile, "TimeStampToken")
        XCTAssertEqual(signature.file, "META-INF/timestamp.tst")
        XCTAssertEqual(signature.signer, try TestEnvironment.certificate("tsa").subject)
        XCTAssertEqual(signature.signatureMethod, "http://www.w3.org/2001/04/xmlenc#sha256")
        let parsed = try TimeStampToken(der: token)
        XCTAssertEqual(signature.id, parsed.serialNumber)
        XCTAssertFalse(parsed.serialNumber.isEmpty)
        XCTAssertEqual(signature.timeStampTime, XSDDateTime.format(parsed.genTime))

        // The independent check: OpenSSL verifies the same token over the same bytes.
        let data = path("a.txt"), tst = path("a.tst")
        try Self.content.write(to: URL(fileURLWithPath: data))
        try token.write(to: URL(fileURLWithPath: tst))
        try assertExternalCheckPasses(
            "/usr/bin/openssl",
            [
                "ts", "-verify", "-data", data, "-in", tst, "-token_in",
                "-CAfile", TestEnvironment.pki("root.cert.pem"),
                "-untrusted", TestEnvironment.pki("tsa.cert.pem"),
            ])
    }

    func testListingShowsTheTokenSignature() throws {
        let container = try Container(openingAt: try tokenContainer())
        let summary = try XCTUnwrap(container.signatureSummaries().first)
        XCTAssertEqual(summary.file, "META-INF/timestamp.tst")
        XCTAssertEqual(summary.signer, try TestEnvironment.certificate("tsa").subject)
        XCTAssertNotNil(summary.signingTime)
    }

    func testExtractWritesTheDataObject() throws {
        let container = try Container(openingAt: try tokenContainer())
        let out = folder.appendingPathComponent("out").path
        let written = try container.extract(to: out)
        XCTAssertEqual(written.map { URL(fileURLWithPath: $0).lastPathComponent }, ["a.txt"])
        XCTAssertEqual(try TestEnvironment.bytes(written[0]), Self.content)
    }

    func testRenamedDataObjectStaysValid() throws {
        // The imprint covers the bytes only, never the name (as the reference observes).
        let token = try opensslToken(over: Self.content)
        let file = try writeZip(
            "r.asics",
            [
                ("mimetype", Self.mimetype, .stored), ("renamed.bin", Self.content, .stored),
                ("META-INF/timestamp.tst", token, .stored),
            ])
        XCTAssertEqual(try Container(openingAt: file).validate(try trusted).status, .valid)
    }

    func testTokenOverOtherBytesIsInvalidWithImprintMismatch() throws {
        let token = try opensslToken(over: Data("other bytes\n".utf8))
        let report = try Container(openingAt: try tokenContainer(token: token)).validate(try trusted)
        assertCode(report, "timestamp-imprint", .invalid, contains: "message imprint mismatch")
    }

    func testChangedDataIsInvalid() throws {
        let token = try opensslToken(over: Self.content)
        var changed = Self.content
        changed[0] ^= 1
        let report = try Container(openingAt: try tokenContainer(data: changed, token: token)).validate(try trusted)
        assertCode(report, "timestamp-imprint", .invalid, contains: "message imprint mismatch")
    }

    func testSHA1TokenIsValidWithAWeakDigestWarning() throws {
        let token = try opensslToken(over: Self.content, digest: "sha1")
        let report = try Container(openingAt: try tokenContainer(token: token)).validate(try trusted)
        assertCode(report, "weak-digest", .warning, contains: "SHA-1")
        XCTAssertEqual(report.signatures.first?.signatureMethod, "http://www.w3.org/2000/09/xmldsig#sha1")
    }

    func testSHA512TokenIsValid() throws {
        let token = try opensslToken(over: Self.content, digest: "sha512")
        XCTAssertEqual(try Container(openingAt: try tokenContainer(token: token)).validate(try trusted).status, .valid)
    }

    func testTimeStampResponseInsteadOfTokenIsInvalid() throws {
        let response = try opensslToken(over: Self.content, response: true)
        XCTAssertTrue(TimeStampSignatureValidator.looksLikeTimeStampResponse(response))
        XCTAssertFalse(TimeStampSignatureValidator.looksLikeTimeStampResponse(try opensslToken(over: Self.content)))
        let report = try Container(openingAt: try tokenContainer(token: response)).validate(try trusted)
        assertCode(report, "timestamp-response-not-token", .invalid, contains: "TimeStampResp")
    }

    func testGarbageTokenIsInvalid() throws {
        let report = try Container(openingAt: try tokenContainer(token: Data("not a token".utf8))).validate(try trusted)
        assertCode(report, "timestamp-malformed", .invalid)
    }

    func testUntrustedTSAIsUnknown() throws {
        let container = try Container(openingAt: try tokenContainer())
        assertCode(container.validate(ValidationOptions()), "timestamp-untrusted", .unknown)
        // Trusting something else is no better: the TSA does not chain to it.
        let other = ValidationOptions(trust: TrustStore(anchors: [try TestEnvironment.certificate("ocsp-responder")]))
        assertCode(container.validate(other), "timestamp-untrusted", .unknown)
    }

    func testTSATrustFromATrustedList() throws {
        // The TSA is judged at genTime against the list's TSA/QTST services, as in ASiC-E.
        let signers = [
            try Certificate(derOrPEM: TestEnvironment.bytes(TestEnvironment.fixture("tsl/tsl-signer.cert.pem")))
        ]
        func options(_ file: String) throws -> ValidationOptions {
            let list = try TrustedList(
                data: TestEnvironment.bytes(TestEnvironment.fixture("tsl/\(file)")), signers: signers)
            return ValidationOptions(
                trust: TrustStore(intermediates: [try TestEnvironment.certificate("issuing-ca")]), trustedList: list)
        }
        let container = try Container(openingAt: try tokenContainer())
        XCTAssertEqual(container.validate(try options("tsl-good.xml")).status, .valid)
        assertCode(container.validate(try options("tsl-tsa-missing.xml")), "timestamp-untrusted", .unknown)
    }

    func testEmptyDataObjectIsValid() throws {
        let token = try opensslToken(over: Data())
        XCTAssertEqual(
            try Container(openingAt: try tokenContainer(data: Data(), token: token)).validate(try trusted).status,
            .valid)
    }

    func testASiCSIsReadOnly() throws {
        let container = try Container(openingAt: try tokenContainer())
        let file = try TestEnvironment.write("x", named: "x.txt", in: folder)
        XCTAssertThrowsError(try container.addDataFile(path: file)) {
            XCTAssertEqual($0 as? ContainerError, .asicsReadOnly)
        }
        XCTAssertThrowsError(try container.removeDataFile(named: "a.txt")) {
            XCTAssertEqual($0 as? ContainerError, .asicsReadOnly)
        }
        XCTAssertThrowsError(try container.save()) { XCTAssertEqual($0 as? ContainerError, .asicsReadOnly) }
    }

    // MARK: - Structure

    func testTwoDataFilesAreRefused() throws {
        let file = try tokenContainer(extra: [("b.txt", Data("b".utf8), .stored)])
        assertRefused(file, .asicsDataObjectCount(["a.txt", "b.txt"]))
        XCTAssertTrue(
            ContainerError.asicsDataObjectCount(["a.txt", "b.txt"]).description.contains("exactly one data object"))
    }

    func testNoDataObjectIsRefused() throws {
        let file = try writeZip(
            "n.asics",
            [("mimetype", Self.mimetype, .stored), ("META-INF/timestamp.tst", try opensslToken(over: Data()), .stored)])
        assertRefused(file, .asicsDataObjectCount([]))
    }

    func testSubfolderDataObjectIsRefused() throws {
        let token = try opensslToken(over: Self.content)
        let file = try writeZip(
            "f.asics",
            [
                ("mimetype", Self.mimetype, .stored), ("docs/a.txt", Self.content, .stored),
                ("META-INF/timestamp.tst", token, .stored),
            ])
        assertRefused(file, .asicsDataObjectInFolder("docs/a.txt"))
    }

    func testDotSlashDataObjectIsRefused() throws {
        let token = try opensslToken(over: Self.content)
        let file = try writeZip(
            "d.asics",
            [
                ("mimetype", Self.mimetype, .stored), ("./a.txt", Self.content, .stored),
                ("META-INF/timestamp.tst", token, .stored),
            ])
        assertRefused(file, .unsafeEntryName("./a.txt"))
    }

    func testNoSignatureOpensButIsInvalid() throws {
        let file = try writeZip(
            "u.asics",
            [
                ("mimetype", Self.mimetype, .stored), ("a.txt", Self.content, .stored),
                ("META-INF/manifest.xml", Data("<x/>".utf8), .stored),
            ])
        let container = try Container(openingAt: file)
        XCTAssertFalse(container.isSigned)
        assertCode(container.validate(try trusted), "no-signatures", .invalid)
    }

    func testTokenAndXAdESTogetherAreRefused() throws {
        let file = try tokenContainer(extra: [("META-INF/signatures.xml", Data("<a/>".utf8), .deflated)])
        XCTAssertThrowsError(try Container(openingAt: file)) { error in
            XCTAssertEqual((error as? ContainerError)?.code, "asics-signature-conflict")
        }
    }

    func testCAdESIsRefusedAsUnsupported() throws {
        let file = try writeZip(
            "c.asics",
            [
                ("mimetype", Self.mimetype, .stored), ("a.txt", Self.content, .stored),
                ("META-INF/signature.p7s", Data([0x30, 0x00]), .stored),
            ])
        assertRefused(file, .unsupportedSignatureFormat("META-INF/signature.p7s"))
    }

    func testWrongFirstMimetypeIsRefused() throws {
        let token = try opensslToken(over: Self.content)
        let file = try writeZip(
            "w.asics",
            [
                ("mimetype", Data("text/plain".utf8), .stored), ("a.txt", Self.content, .stored),
                ("META-INF/timestamp.tst", token, .stored),
            ])
        assertRefused(file, .asicsMimetypeWrong("text/plain"))
        // An ASiC-E mimetype makes it an ASiC-E (as the reference falls back), which needs a manifest.
        let asice = try writeZip(
            "e.asics",
            [
                ("mimetype", Data(Container.mimetype.utf8), .stored), ("a.txt", Self.content, .stored),
                ("META-INF/timestamp.tst", token, .stored),
            ])
        assertRefused(asice, .manifestMissing)
    }

    func testASiCSMimetypeIsRecognisedUnderAnyNameButAnASiCEOne() throws {
        XCTAssertEqual(try Container(openingAt: try tokenContainer("archive.zip")).kind, .asics)
        XCTAssertEqual(try Container(openingAt: try tokenContainer("no-extension")).kind, .asics)
        // The reference never opens .asice/.sce/.bdoc as ASiC-S: their mimetype is simply wrong.
        for name in ["t.asice", "t.sce", "t.bdoc"] {
            assertRefused(try tokenContainer(name), .mimetypeWrong(SimpleLayout.mimetype))
        }
    }

    /// Decision (docs/cli.md): EN 319 162-1 makes `mimetype` optional in ASiC-S and the reference
    /// accepts it missing, last or deflated; tamga accepts these too, by the .asics/.scs name,
    /// and reports each as a container-structure WARNING.
    func testMissingMimetypeIsAcceptedByNameWithAWarning() throws {
        let token = try opensslToken(over: Self.content)
        let file = try pythonZip("m.asics", [("a.txt", Self.content, true), ("META-INF/timestamp.tst", token, false)])
        let container = try Container(openingAt: file)
        XCTAssertEqual(container.kind, .asics)
        assertCode(container.validate(try trusted), "container-structure", .warning, contains: "no mimetype")
        // Without the name, nothing says it is ASiC-S: read as ASiC-E, which requires mimetype.
        let zip = try pythonZip("m.zip", [("a.txt", Self.content, true), ("META-INF/timestamp.tst", token, false)])
        assertRefused(zip, .mimetypeMissing)
    }

    func testMimetypeLastIsIgnoredWithAWarning() throws {
        let token = try opensslToken(over: Self.content)
        let file = try pythonZip(
            "l.asics",
            [
                ("a.txt", Self.content, true), ("META-INF/timestamp.tst", token, false),
                ("mimetype", Data("text/plain".utf8), false),
            ])
        let container = try Container(openingAt: file)
        XCTAssertEqual(container.dataFiles.map(\.name), ["a.txt"])
        assertCode(container.validate(try trusted), "container-structure", .warning, contains: "not the first entry")
    }

    func testDeflatedMimetypeIsAcceptedWithAWarning() throws {
        let token = try opensslToken(over: Self.content)
        let file = try pythonZip(
            "z.asics",
            [
                ("mimetype", Self.mimetype, true), ("a.txt", Self.content, true),
                ("META-INF/timestamp.tst", token, false),
            ])
        assertCode(
            try Container(openingAt: file).validate(try trusted), "container-structure", .warning,
            contains: "compressed")
    }

    func testOtherMetaInfFilesAreIgnored() throws {
        let file = try tokenContainer(extra: [
            ("META-INF/manifest.xml", Data("<x/>".utf8), .deflated),
            ("META-INF/deeper/note.txt", Data("n".utf8), .stored),
        ])
        XCTAssertEqual(try Container(openingAt: file).validate(try trusted).status, .valid)
    }
}
