import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// Time-stamp renewal in ASiC-S (docs/design/asics-tm-names.md §1.3): each ASiCArchiveManifest lists the
/// data and the older chain files with digests, and its SigReference token covers the
/// manifest's exact bytes. Checked oldest first; the first failure ends the chain check.
final class ArchiveManifestChainTests: SimpleContainerTestCase {
    let data = SimpleContainerTestCase.content

    /// Entries after one renewal, as the reference writes them.
    /// - Parameter manifest: makes the manifest from the first token (default: as the reference).
    private func oneRenewal(
        manifest make: ((Data) -> Data)? = nil, tokenOverManifest: Data? = nil
    ) throws -> [(String, Data, ZipEntry.Method)] {
        let first = try opensslToken(over: data)
        let manifest =
            make?(first)
            ?? archiveManifest(
                sigReference: "META-INF/timestamp001.tst",
                references: [("a.txt", data, false), ("META-INF/timestamp.tst", first, false)])
        let second = try opensslToken(over: tokenOverManifest ?? manifest)
        return [
            ("mimetype", Self.mimetype, .stored), ("a.txt", data, .deflated),
            ("META-INF/timestamp.tst", first, .stored),
            ("META-INF/timestamp001.tst", second, .stored), ("META-INF/ASiCArchiveManifest.xml", manifest, .deflated),
        ]
    }

    /// Entries after two renewals: the older manifest renamed 001, the newest pointing to it.
    private func twoRenewals(
        tamperOlder: Bool = false, newestRootfile: String = "META-INF/ASiCArchiveManifest001.xml",
        olderRootfile: String? = nil
    ) throws -> [(String, Data, ZipEntry.Method)] {
        let first = try opensslToken(over: data)
        var olderReferences: [(uri: String, data: Data, rootfile: Bool)] = [
            ("a.txt", data, false), ("META-INF/timestamp.tst", first, false),
        ]
        if let olderRootfile { olderReferences.append((olderRootfile, Data(), true)) }
        var older = archiveManifest(sigReference: "META-INF/timestamp001.tst", references: olderReferences)
        let second = try opensslToken(over: older)
        let newest = archiveManifest(
            sigReference: "META-INF/timestamp002.tst",
            references: [
                ("a.txt", data, false), (newestRootfile, older, true),
                ("META-INF/timestamp001.tst", second, false), ("META-INF/timestamp.tst", first, false),
            ])
        if tamperOlder { older.append(contentsOf: Data("<!-- changed -->\n".utf8)) }
        let third = try opensslToken(over: newest)
        return [
            ("mimetype", Self.mimetype, .stored), ("a.txt", data, .deflated),
            ("META-INF/timestamp.tst", first, .stored),
            ("META-INF/timestamp001.tst", second, .stored), ("META-INF/ASiCArchiveManifest001.xml", older, .deflated),
            ("META-INF/timestamp002.tst", third, .stored), ("META-INF/ASiCArchiveManifest.xml", newest, .deflated),
        ]
    }

    func testOneRenewalIsValid() throws {
        let report = try Container(openingAt: try writeZip("one.asics", try oneRenewal())).validate(try trusted)
        XCTAssertEqual(report.status, .valid, "\(report)")
        let renewals = try XCTUnwrap(report.signatures.first?.archiveTimeStamps)
        XCTAssertEqual(renewals.map(\.file), ["META-INF/timestamp001.tst"])
        XCTAssertEqual(renewals.first?.tsa, try TestEnvironment.certificate("tsa").subject)
    }

    func testUntrustedRenewalTSAIsUnknown() throws {
        let report = try Container(openingAt: try writeZip("u.asics", try oneRenewal())).validate(ValidationOptions())
        XCTAssertEqual(report.status, .unknown, "\(report)")
        XCTAssertEqual(
            report.signatures.first?.findings.map(\.code), ["timestamp-untrusted", "archive-timestamp-untrusted"])
    }

    func testTwoRenewalsAreValidOldestFirst() throws {
        let report = try Container(openingAt: try writeZip("two.asics", try twoRenewals())).validate(try trusted)
        XCTAssertEqual(report.status, .valid, "\(report)")
        XCTAssertEqual(
            report.signatures.first?.archiveTimeStamps?.map(\.manifest),
            ["META-INF/ASiCArchiveManifest001.xml", "META-INF/ASiCArchiveManifest.xml"])
    }

    func testManifestWithoutTheFirstTokenIsValid() throws {
        // The reference accepts a manifest listing only the data and its own token.
        let manifest = archiveManifest(sigReference: "META-INF/timestamp001.tst", references: [("a.txt", data, false)])
        let report = try Container(openingAt: try writeZip("lone.asics", try oneRenewal(manifest: { _ in manifest })))
            .validate(try trusted)
        XCTAssertEqual(report.status, .valid, "\(report)")
    }

    func testTamperedOlderManifestIsInvalidWithImprintMismatchOnly() throws {
        let report = try Container(openingAt: try writeZip("t.asics", try twoRenewals(tamperOlder: true))).validate(
            try trusted)
        assertCode(report, "archive-timestamp-imprint", .invalid, contains: "message imprint mismatch")
        // The first failure ends the chain: the newest manifest's digest of it is not reported too.
        XCTAssertEqual(report.signatures.first?.findings.map(\.code), ["archive-timestamp-imprint"])
    }

    func testTokenOverOtherBytesThanTheManifestIsInvalid() throws {
        let report = try Container(
            openingAt: try writeZip("o.asics", try oneRenewal(tokenOverManifest: Data("x".utf8)))
        ).validate(try trusted)
        assertCode(report, "archive-timestamp-imprint", .invalid, contains: "message imprint mismatch")
    }

    func testChangedDataFailsTheTokenAndTheManifestReference() throws {
        var entries = try oneRenewal()
        entries[1].1 = Data("changed\n".utf8)
        let report = try Container(openingAt: try writeZip("c.asics", entries)).validate(try trusted)
        assertCode(report, "timestamp-imprint", .invalid, contains: "message imprint mismatch")
        assertCode(report, "archive-reference-digest", .invalid, contains: "Reference 'a.txt' digest does not match")
    }

    func testRootfileCycleTerminates() throws {
        // 001 points back at the newest manifest: without a guard the chain would never end.
        let entries = try twoRenewals(olderRootfile: "META-INF/ASiCArchiveManifest.xml")
        let report = try Container(openingAt: try writeZip("cycle.asics", entries)).validate(try trusted)
        assertCode(report, "archive-chain", .invalid, contains: "cycle")
    }

    func testSelfReferencingManifestTerminates() throws {
        let entries = try twoRenewals(newestRootfile: "META-INF/ASiCArchiveManifest.xml")
        let report = try Container(openingAt: try writeZip("self.asics", entries)).validate(try trusted)
        assertCode(report, "archive-chain", .invalid, contains: "cycle")
    }

    func testMissingOlderManifestIsInvalid() throws {
        let entries = try twoRenewals().filter { $0.0 != "META-INF/ASiCArchiveManifest001.xml" }
        let report = try Container(openingAt: try writeZip("gone.asics", entries)).validate(try trusted)
        assertCode(report, "archive-chain", .invalid, contains: "File not found 'META-INF/ASiCArchiveManifest001.xml'")
    }

    func testMissingSigReferenceFileIsInvalid() throws {
        let entries = try oneRenewal().filter { $0.0 != "META-INF/timestamp001.tst" }
        let report = try Container(openingAt: try writeZip("s.asics", entries)).validate(try trusted)
        assertCode(
            report, "archive-sigreference", .invalid, contains: "SigReference META-INF/timestamp001.tst is missing")
    }

    func testSigReferenceOfAnotherTypeIsInvalid() throws {
        let manifest = { (first: Data) in
            self.archiveManifest(
                sigReference: "META-INF/timestamp001.tst",
                references: [("a.txt", self.data, false), ("META-INF/timestamp.tst", first, false)],
                sigMimeType: "application/pkcs7-signature")
        }
        let report = try Container(openingAt: try writeZip("m.asics", try oneRenewal(manifest: manifest))).validate(
            try trusted)
        assertCode(report, "archive-sigreference", .invalid, contains: "SigReference is missing")
    }

    func testReferenceToAMissingFileIsInvalid() throws {
        let manifest = { (first: Data) in
            self.archiveManifest(
                sigReference: "META-INF/timestamp001.tst",
                references: [
                    ("a.txt", self.data, false), ("META-INF/timestamp.tst", first, false), ("b.txt", Data(), false),
                ])
        }
        let report = try Container(openingAt: try writeZip("r.asics", try oneRenewal(manifest: manifest))).validate(
            try trusted)
        assertCode(report, "archive-reference-missing", .invalid, contains: "File not found 'b.txt'")
    }

    func testNewerManifestDroppingACoveredFileIsInvalid() throws {
        let first = try opensslToken(over: data)
        let older = archiveManifest(
            sigReference: "META-INF/timestamp001.tst",
            references: [("a.txt", data, false), ("META-INF/timestamp.tst", first, false)])
        let second = try opensslToken(over: older)
        let newest = archiveManifest(
            sigReference: "META-INF/timestamp002.tst",
            references: [("a.txt", data, false), ("META-INF/ASiCArchiveManifest001.xml", older, true)])
        let third = try opensslToken(over: newest)
        let entries: [(String, Data, ZipEntry.Method)] = [
            ("mimetype", Self.mimetype, .stored), ("a.txt", data, .deflated),
            ("META-INF/timestamp.tst", first, .stored),
            ("META-INF/timestamp001.tst", second, .stored), ("META-INF/ASiCArchiveManifest001.xml", older, .deflated),
            ("META-INF/timestamp002.tst", third, .stored), ("META-INF/ASiCArchiveManifest.xml", newest, .deflated),
        ]
        let report = try Container(openingAt: try writeZip("d.asics", entries)).validate(try trusted)
        assertCode(
            report, "archive-reference-not-found", .invalid,
            contains: "Reference 'META-INF/timestamp.tst' not found in manifest")
    }

    func testManifestWithoutTimestampTstIsInvalid() throws {
        let entries = try oneRenewal().filter { $0.0 != "META-INF/timestamp.tst" }
        let container = try Container(openingAt: try writeZip("n.asics", entries))
        XCTAssertTrue(container.isSigned)
        assertCode(container.validate(try trusted), "archive-chain", .invalid, contains: "timestamp.tst is missing")
    }

    func testMalformedManifestIsInvalid() throws {
        let report = try Container(
            openingAt: try writeZip("x.asics", try oneRenewal(manifest: { _ in Data("<not-a-manifest/>".utf8) }))
        )
        .validate(try trusted)
        assertCode(report, "archive-manifest-malformed", .invalid, contains: "ASiCManifest")
    }
}
