import TamgaTestSupport
import XCTest

@testable import PCSC

/// Insertions and removals arrive in order while watching.
final class ReaderMonitorTests: XCTestCase {
    var rig: PCSCRig?

    override func tearDown() {
        rig?.stop()
        super.tearDown()
    }

    func testCardInsertedAndRemovedWhileWatching() async throws {
        let rig = try PCSCRig(readers: [.init(name: "Watched Reader", cards: [nil, nil])])
        self.rig = rig
        rig.use()
        // pcscd registers the readers shortly after its socket opens: start watching once they are listed.
        let deadline = Date().addingTimeInterval(10)
        while try PCSCContext().readers().count < 2, Date() < deadline { usleep(100_000) }
        let monitor = try ReaderMonitor()
        var iterator = monitor.events().makeAsyncIterator()
        var seen: [String] = []
        // The starting snapshot: both slots, empty.
        for _ in 0..<2 {
            if let event = try await iterator.next() { seen.append("\(event.kind.rawValue) \(event.reader.name)") }
        }
        XCTAssertEqual(Set(seen), ["reader-present Watched Reader 00 00", "reader-present Watched Reader 00 01"])
        try rig.insertCard("idemia", port: rig.port(reader: 0))
        let inserted = try await iterator.next()
        XCTAssertEqual(inserted?.kind, .cardInserted)
        XCTAssertEqual(inserted?.reader.name, "Watched Reader 00 00")
        XCTAssertEqual(inserted?.reader.card?.name, "EstEID IDEMIA")
        rig.removeCard(port: rig.port(reader: 0))
        let removed = try await iterator.next()
        XCTAssertEqual(removed?.kind, .cardRemoved)
        XCTAssertEqual(removed?.reader.name, "Watched Reader 00 00")
        monitor.cancel()
        let end = try await iterator.next()
        XCTAssertNil(end, "cancel ends the stream")
        monitor.stop()
    }
}
