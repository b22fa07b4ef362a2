import Foundation
import TamgaTestSupport
import XCTest

@testable import ASiC

/// `InputFile.streamReadingAhead`: a reader thread reads and inspects each chunk ahead of the
/// consumer, whose chunks arrive in order with the note made for each. The consumer must see
/// every byte once and in order with the right note, whatever the chunk, ring and tail sizes; the
/// chunk `inspect` calls the last must end the stream with nothing after it read; an error on
/// either side must come out, with the reader stopped before the call returns.
final class ReadAheadStreamingTests: ContainerTestCase {
    private func file(_ count: Int, seed: UInt8 = 5) throws -> (path: String, bytes: [UInt8]) {
        try pseudoRandomFile(count, seed: seed)
    }

    func testEveryByteArrivesInOrderWithItsOwnNote() throws {
        for (count, chunk, depth) in [
            (3 * 4_096 + 17, 4_096, 2), (8 * 4_096, 4_096, 4), (4_096, 4_096, 4), (9, 4_096, 4),
            (1_000_003, 1_000, 3), (250_000, 65_536, 8),
        ] {
            let (path, bytes) = try file(count)
            let input = try InputFile(path: path)
            var inspected: [UInt8] = [], consumed: [UInt8] = []
            var notes: [Int] = []
            try input.streamReadingAhead(
                from: 0, length: input.size, chunkSize: chunk, depth: depth,
                inspect: { part in
                    inspected += part
                    // The note: the chunk's first byte and its length, for the consumer to check.
                    return (note: Int(part.first ?? 0) << 32 | part.count, last: false)
                },
                consume: { part, note in
                    XCTAssertEqual(
                        note, Int(part.first ?? 0) << 32 | part.count, "a chunk arrived with another chunk's note")
                    consumed += part
                    notes.append(note)
                })
            XCTAssertEqual(inspected, bytes, "\(count) bytes in \(chunk)-byte chunks, \(depth) ahead: inspected")
            XCTAssertEqual(consumed, bytes, "\(count) bytes in \(chunk)-byte chunks, \(depth) ahead: consumed")
            XCTAssertEqual(notes.count, (count + chunk - 1) / chunk)
        }
        // From an offset; and a range past the end is refused before anything is read.
        let (path, bytes) = try file(300_000, seed: 9)
        let input = try InputFile(path: path)
        var seen: [UInt8] = []
        try input.streamReadingAhead(
            from: 1_001, length: 250_000, chunkSize: 8_192, inspect: { _ in ((), false) },
            consume: { part, _ in seen += part })
        XCTAssertEqual(seen, Array(bytes[1_001..<251_001]))
        XCTAssertThrowsError(
            try input.streamReadingAhead(
                from: 100_000, length: 250_000, chunkSize: 8_192,
                inspect: { _ in ((), false) }, consume: { _, _ in }))
    }

    func testTheLastChunkEndsTheStreamAndNothingAfterItIsRead() throws {
        let (path, bytes) = try file(100 * 1_024)
        let input = try InputFile(path: path)
        for lastIndex in [0, 1, 5, 99] {
            var inspectedChunks = 0
            var consumed: [UInt8] = []
            try input.streamReadingAhead(
                from: 0, length: input.size, chunkSize: 1_024, depth: 4,
                inspect: { _ in
                    inspectedChunks += 1
                    return ((), inspectedChunks - 1 == lastIndex)
                }, consume: { part, _ in consumed += part })
            XCTAssertEqual(inspectedChunks, lastIndex + 1, "chunks after the last were inspected")
            XCTAssertEqual(consumed, Array(bytes[0..<((lastIndex + 1) * 1_024)]))
        }
    }

    private struct Stop: Error, Equatable { let side: String }

    func testAnErrorOnEitherSideEndsTheStreamWithTheReaderStopped() throws {
        let (path, _) = try file(64 * 1_024)
        let input = try InputFile(path: path)
        for failing in ["inspect", "consume"] {
            // The counters are the reader's and the consumer's own; after the call returns the
            // reader must have stopped: the inspect count read afterwards does not move again.
            final class Counter: @unchecked Sendable { var value = 0 }
            let inspected = Counter()
            var consumed = 0
            XCTAssertThrowsError(
                try input.streamReadingAhead(
                    from: 0, length: input.size, chunkSize: 1_024, depth: 4,
                    inspect: { _ in
                        inspected.value += 1
                        if failing == "inspect", inspected.value == 10 { throw Stop(side: "inspect") }
                        return ((), false)
                    },
                    consume: { _, _ in
                        consumed += 1
                        if failing == "consume", consumed == 3 { throw Stop(side: "consume") }
                    })
            ) { error in
                XCTAssertEqual(error as? Stop, Stop(side: failing))
            }
            let atReturn = inspected.value
            usleep(20_000)
            XCTAssertEqual(inspected.value, atReturn, "the reader went on after the stream returned")
            if failing == "inspect" {
                // Every chunk inspected before the failing one is consumed; none after it exists.
                XCTAssertEqual(consumed, 9)
                XCTAssertEqual(atReturn, 10)
            } else {
                // The reader is at most the ring's depth ahead of the consumer, plus the chunk it holds.
                XCTAssertEqual(consumed, 3)
                XCTAssertLessThanOrEqual(atReturn, 3 + 4 + 1)
            }
        }
    }

    /// The call returns only once the reader has stopped: here the reader is inside `inspect`
    /// (sleeping at chunk 3) when the consumer throws at chunk 1, and that inspect must have
    /// finished by the time the error comes out. Were the wait missing, the flag would still be
    /// unset. The consumer throws only once the reader has entered that inspect (the ring is four
    /// deep, so the reader gets there while chunk 1 is still held): on a loaded machine the
    /// reader thread may otherwise not have reached chunk 3 before the error stops it.
    func testTheCallWaitsForTheReaderBeforeItReturns() throws {
        let (path, _) = try file(16 * 1_024)
        let input = try InputFile(path: path)
        final class Flag: @unchecked Sendable { var finished = false }
        let flag = Flag()
        let entered = DispatchSemaphore(value: 0)
        var inspected = 0
        var readerGotThere = false
        XCTAssertThrowsError(
            try input.streamReadingAhead(
                from: 0, length: input.size, chunkSize: 1_024, depth: 4,
                inspect: { _ in
                    inspected += 1
                    if inspected == 3 {
                        entered.signal()
                        usleep(50_000)
                        flag.finished = true
                    }
                    return ((), false)
                },
                consume: { _, _ in
                    readerGotThere = entered.wait(timeout: .now() + 60) == .success
                    throw Stop(side: "consume")
                }))
        XCTAssertTrue(readerGotThere, "the reader never reached chunk 3 while chunk 1 was held")
        XCTAssertTrue(flag.finished, "the stream returned while its reader was still inside inspect")
    }

    /// An error on the first or the last chunk, and a read that fails half-way (the file cut
    /// short after it was opened): each comes out as itself.
    func testErrorsAtTheEdgesAndAFailedReadComeOut() throws {
        let (path, _) = try file(10 * 1_024)
        let input = try InputFile(path: path)
        for failing in [1, 10] {
            var consumed = 0
            XCTAssertThrowsError(
                try input.streamReadingAhead(
                    from: 0, length: input.size, chunkSize: 1_024, inspect: { _ in ((), false) },
                    consume: { _, _ in
                        consumed += 1
                        if consumed == failing { throw Stop(side: "consume \(failing)") }
                    })
            ) { XCTAssertEqual($0 as? Stop, Stop(side: "consume \(failing)")) }
        }
        // Cut to 4.5 chunks: the reader's pread of chunk 5 comes up short.
        XCTAssertEqual(truncate(path, 4 * 1_024 + 512), 0)
        var consumed = 0
        XCTAssertThrowsError(
            try input.streamReadingAhead(
                from: 0, length: input.size, chunkSize: 1_024, inspect: { _ in ((), false) },
                consume: { _, _ in consumed += 1 })
        ) { error in
            XCTAssertEqual((error as? ContainerError)?.code, "malformed-zip", "\(error)")
        }
        XCTAssertEqual(consumed, 4, "every whole chunk before the short one is consumed")
    }
}
