import XCTest
@testable import ASiC
import TamgaCore
import TamgaTestSupport

/// Archive time-stamps cannot make the verifier read the data files again and again: a chain
/// of them is hashed as one growing stream, and a signature with thousands is refused.
final class ArchiveTimeStampBoundsTests: LongTermTestCase {
    /// The LTA signature of a fresh container with its one ArchiveTimeStamp repeated `copies` times.
    private func withArchiveTimeStamps(_ copies: Int) async throws -> Container {
        let lta = try await ltContainer(profile: .LTA, name: "lta.asice")
        var xml = String(decoding: lta.signatures[0].data, as: UTF8.self)
        guard let start = xml.range(of: "<xades141:ArchiveTimeStamp"),
              let end = xml.range(of: "</xades141:ArchiveTimeStamp>", range: start.upperBound..<xml.endIndex) else {
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
        XCTAssertLessThanOrEqual(container.dataFileReads, 2 * container.dataFiles.count, "data files were read \(container.dataFileReads) times")
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
