import Foundation
import TamgaTestSupport
import XCTest

@testable import ASiC

/// `InputFile.streamOnTwoCores`: the digest on one core, CRC-32 and copy on the other, the next
/// chunk read ahead (stored data then signs near `openssl dgst`'s time). Each worker must see
/// every byte once and in order, whatever the chunk and tail sizes; an error from either worker
/// must end the stream and come out; and a stored entry that declares fewer bytes than it holds
/// must be refused before its reader's body sees any of them.
final class TwoCoreStreamingTests: ContainerTestCase {
    private func file(_ count: Int, seed: UInt8 = 7) throws -> (path: String, bytes: [UInt8]) {
        try pseudoRandomFile(count, seed: seed)
    }

    func testBothWorkersSeeEveryByteInOrder() throws {
        for (count, chunk) in [
            (3 * 65_536 + 123, 65_536), (4 * 65_536, 65_536), (65_536, 65_536), (10, 65_536), (1_000_000, 4_096),
        ] {
            let (path, bytes) = try file(count)
            let input = try InputFile(path: path)
            var first: [UInt8] = [], second: [UInt8] = []
            var firstChunks = 0, secondChunks = 0
            try input.streamOnTwoCores(
                from: 0, length: input.size, chunkSize: chunk,
                first: { part in
                    first += part
                    firstChunks += 1
                },
                second: { part in
                    second += part
                    secondChunks += 1
                })
            XCTAssertEqual(first, bytes, "first worker, \(count) bytes in \(chunk)-byte chunks")
            XCTAssertEqual(second, bytes, "second worker, \(count) bytes in \(chunk)-byte chunks")
            XCTAssertEqual(firstChunks, (count + chunk - 1) / chunk)
            XCTAssertEqual(secondChunks, firstChunks)
        }
        // From an offset, as entries are read out of an archive.
        let (path, bytes) = try file(300_000, seed: 3)
        let input = try InputFile(path: path)
        var seen: [UInt8] = []
        try input.streamOnTwoCores(
            from: 1_001, length: 250_000, chunkSize: 8_192, first: { seen += $0 }, second: { _ in })
        XCTAssertEqual(seen, Array(bytes[1_001..<251_001]))
        XCTAssertThrowsError(
            try input.streamOnTwoCores(
                from: 100_000, length: 250_000, chunkSize: 8_192, first: { _ in }, second: { _ in }))
    }

    private struct Stop: Error, Equatable { let worker: Int }

    func testAnErrorFromEitherWorkerEndsTheStream() throws {
        let (path, _) = try file(40 * 4_096)
        let input = try InputFile(path: path)
        for failing in [0, 1] {
            var firstChunks = 0, secondChunks = 0
            XCTAssertThrowsError(
                try input.streamOnTwoCores(
                    from: 0, length: input.size, chunkSize: 4_096,
                    first: { _ in
                        firstChunks += 1
                        if failing == 0, firstChunks == 3 { throw Stop(worker: 0) }
                    },
                    second: { _ in
                        secondChunks += 1
                        if failing == 1, secondChunks == 3 { throw Stop(worker: 1) }
                    })
            ) { error in
                XCTAssertEqual(error as? Stop, Stop(worker: failing))
            }
            // The step that failed finishes; no later chunk is handed to either worker.
            XCTAssertEqual(firstChunks, 3)
            XCTAssertEqual(secondChunks, 3)
        }
    }

    /// A stored entry whose header declares fewer bytes than its data holds: the archive is
    /// refused when it is opened (the reader checks a stored entry's two sizes), so no body ever
    /// sees its bytes; `stream` checks the same again before its two workers start.
    func testAStoredEntryLongerThanDeclaredIsRefusedBeforeItsBodyRuns() throws {
        let archive = path("long.zip")
        let script = """
            import struct, sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
                z.writestr("a.bin", bytes(range(256)) * 12_000)
            data = bytearray(open(sys.argv[1], "rb").read())
            declared = 256 * 12_000 - 100_000
            central = data.rindex(b"PK\\x01\\x02")
            struct.pack_into("<I", data, central + 24, declared)      # uncompressed size, central
            struct.pack_into("<I", data, 22, declared)                # uncompressed size, local
            open(sys.argv[1], "wb").write(data)
            """
        let made = try TestEnvironment.run("/usr/bin/python3", ["-c", script, archive])
        XCTAssertEqual(made.status, 0, made.error)
        XCTAssertThrowsError(try ZipReader(path: archive)) { error in
            XCTAssertTrue("\(error)".contains("a.bin is stored but its sizes differ"), "\(error)")
        }
    }
}
