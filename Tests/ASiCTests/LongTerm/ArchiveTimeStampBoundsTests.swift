import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// Archive time-stamps cannot make the verifier read the data files again and again: a chain
/// of them is hashed as one growing stream, and a signature with thousands is refused.
final class ArchiveTimeStampBoundsTests: LongTermTestCase {
    /// The LTA signature of a fresh container with its one ArchiveTimeStamp repeated `copies` times.
    private func withArchiveTimeStamps(_ copies: Int) async throws -> Container {
        let lta = try await ltContainer(profile: .LTA, name: "lta.asice")
        var xml = String(decoding: lta.signatures[0].data, as: UTF8.self)
        guard let start = xml.range(of: "<xades141:ArchiveTimeStamp"),
            let end = xml.range(of: "</xades141:ArchiveTimeStamp>", range: start.upperBound..<xml.endIndex)
        else {
            XCTFail("no ArchiveTimeStamp in the LTA signature")
            return lta
        }
        let element = String(xml[start.lowerBound..<end.upperBound])
        xml.replaceSubrange(start.lowerBound..<end.upperBound, with: String(repeating: element, count: copies))
        return try Container(openingAt: withSignatureXML(xml, base: lta, name: "many-archives.asice"))
    }

    func testAChainOfArchiveTimeStampsReadsEachDataFileOnce() async throws {
        let container = try await withArchiveTimeStamps(40)
        let report = container.validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
        XCTAssertEqual(report.signatures.count, 1)
        // Once for the references' digests, once for the whole chain of 40 (one method, one hash).
        XCTAssertLessThanOrEqual(
            container.dataFileReads, 2 * container.dataFiles.count,
            "data files were read \(container.dataFileReads) times")
        // The first time-stamp is the real one; its 39 copies cover other bytes and say so.
        let codes = report.signatures[0].findings.map(\.code)
        XCTAssertTrue(codes.contains("archive-timestamp"), "\(codes)")
    }

    func testTheFirstArchiveTimeStampOfAChainStillVerifies() async throws {
        let container = try await withArchiveTimeStamps(1)
        let report = container.validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
        XCTAssertTrue(report.isValid, "\(report.signatures.first?.findings ?? [])")
    }

    func testThousandsOfArchiveTimeStampsAreRefusedUnread() async throws {
        let container = try await withArchiveTimeStamps(LongTermValidator.maximumArchiveTimeStamps + 1)
        let report = container.validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
        XCTAssertEqual(report.status, .invalid)
        XCTAssertTrue(report.signatures[0].findings.map(\.code).contains("too-many-timestamps"))
        XCTAssertLessThanOrEqual(container.dataFileReads, container.dataFiles.count)
    }
}

/// What an archive time-stamp's input reads: its references are bounded like the reference
/// check's, a data file named twice is refused before it is read, and the data files are read
/// once per hash for every signature and canonicalization that signs them in the same order.
final class ArchiveTimeStampInputBoundsTests: LongTermTestCase {
    /// `xml` with the first Reference whose text contains `marker` repeated `copies` times in all.
    private func repeatingReference(_ xml: String, containing marker: String, copies: Int) -> String? {
        guard let hit = xml.range(of: marker),
            let start = xml.range(of: "<ds:Reference ", options: .backwards, range: xml.startIndex..<hit.lowerBound),
            let end = xml.range(of: "</ds:Reference>", range: hit.upperBound..<xml.endIndex)
        else { return nil }
        var result = xml
        result.replaceSubrange(
            start.lowerBound..<end.upperBound,
            with: String(repeating: String(xml[start.lowerBound..<end.upperBound]), count: copies))
        return result
    }

    private func lta(withReference marker: String, copies: Int) async throws -> (Container, ValidationReport) {
        let lta = try await ltContainer(profile: .LTA, name: "lta.asice")
        let xml = String(decoding: lta.signatures[0].data, as: UTF8.self)
        guard let changed = repeatingReference(xml, containing: marker, copies: copies) else {
            XCTFail("no Reference with \(marker) in \(xml.prefix(600))")
            return (lta, lta.validate(ValidationOptions(trust: try TestEnvironment.testTrust())))
        }
        let container = try Container(openingAt: withSignatureXML(changed, base: lta, name: "refs.asice"))
        return (container, container.validate(ValidationOptions(trust: try TestEnvironment.testTrust())))
    }

    /// The audit's case: 200 references to one file (8 MB of zeros there, 11 s) and a copied
    /// token. The references are refused unread, and the archive input is not computed either.
    func testReferencesPastTheBoundAreNotReadForTheArchiveInput() async throws {
        let (container, report) = try await lta(withReference: "URI=\"b.txt\"", copies: 200)
        let codes = report.signatures[0].findings.map(\.code)
        XCTAssertTrue(codes.contains("too-many-references"), "\(codes)")
        XCTAssertTrue(codes.contains("archive-timestamp"), "\(codes)")
        XCTAssertEqual(container.dataFileReads, 0, "data files were read \(container.dataFileReads) times")
    }

    /// Below the bound, a data file named again and again is read once: the archive input
    /// refuses the second name before reading anything.
    func testADataFileReferencedManyTimesIsNotReadOncePerReference() async throws {
        let (container, report) = try await lta(withReference: "URI=\"b.txt\"", copies: 12)
        let findings = report.signatures[0].findings
        XCTAssertFalse(findings.map(\.code).contains("too-many-references"), "\(findings)")
        XCTAssertTrue(findings.map(\.code).contains("duplicate-reference"), "\(findings)")
        XCTAssertTrue(
            findings.contains { $0.code == "archive-timestamp" && $0.message.contains("more than once") }, "\(findings)"
        )
        XCTAssertLessThanOrEqual(
            container.dataFileReads, container.dataFiles.count, "data files were read \(container.dataFileReads) times")
    }

    /// The "first SignedProperties reference only" branch on its own: eleven references to the
    /// SignedProperties, below the references bound, are counted but canonicalized once.
    func testRepeatedSignedPropertiesReferencesBelowTheBoundAreCountedNotEachChecked() async throws {
        let (_, report) = try await lta(withReference: "#SignedProperties", copies: 11)
        let findings = report.signatures[0].findings
        XCTAssertFalse(findings.map(\.code).contains("too-many-references"), "\(findings)")
        XCTAssertTrue(
            findings.contains { $0.code == "signed-properties-reference" && $0.message.contains("found 11") },
            "\(findings)")
        XCTAssertFalse(
            findings.map(\.code).contains("signed-properties-digest"), "the first reference still verifies: \(findings)"
        )
    }

    /// Two LTA signatures over the same files: the files are read once for the references'
    /// digests and once for both archive inputs, not once per signature.
    func testSignaturesOverTheSameFilesShareOneReadOfThemForTheArchiveInput() async throws {
        let first = try await ltContainer(profile: .LTA, name: "two.asice")
        try await first.sign(
            with: TestEnvironment.signer("ec-p384"), options: SignatureOptions(profile: .LTA), services: longTerm())
        let container = try Container(openingAt: first.path)
        let report = container.validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
        XCTAssertEqual(report.signatures.count, 2)
        XCTAssertTrue(report.isValid, "\(report.signatures.map(\.findings))")
        XCTAssertLessThanOrEqual(
            container.dataFileReads, 2 * container.dataFiles.count,
            "data files were read \(container.dataFileReads) times")
    }
}
