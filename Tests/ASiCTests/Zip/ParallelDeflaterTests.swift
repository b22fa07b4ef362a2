import Foundation
import TamgaTestSupport
import XCTest

@testable import ASiC

/// `ParallelDeflater` (pigz's way on two cores): whatever the sizes of the calls, the joined
/// output must be one raw deflate stream that inflates to exactly the input (checked with
/// Python's zlib, not ours), the CRC-32 run beside it must see every byte, and the size must stay
/// within 1% of one zlib stream at the same level.
final class ParallelDeflaterTests: ContainerTestCase {
    /// Text-like bytes (words from a small list), deterministic.
    private func text(_ count: Int) -> [UInt8] {
        let words = ["lorem", "ipsum", "dolor", "sit", "amet", "signature", "container", "ö", "räksmörgås", "\n"].map {
            Array($0.utf8) + [0x20]
        }
        var state: UInt32 = 12_345
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 16)
        while bytes.count < count {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes += words[Int(state >> 16) % words.count]
        }
        return Array(bytes.prefix(count))
    }

    private func deflate(_ input: [UInt8], calls: Int) throws -> (output: [UInt8], crc: UInt32) {
        let deflater = try ParallelDeflater(level: -1)
        var output: [UInt8] = []
        var crc: UInt32 = 0
        let size = max(1, (input.count + calls - 1) / calls)
        try input.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                let piece = UnsafeRawBufferPointer(rebasing: all[start..<min(all.count, start + size)])
                try deflater.compress(piece, alongside: { crc = crc32Update(crc, piece) }) { output += $0 }
                start += size
            }
        }
        try deflater.finish { output += $0 }
        return (output, crc)
    }

    /// Inflates raw deflate with Python's zlib and returns the bytes' SHA-256, hex.
    private func inflatedDigest(_ compressed: [UInt8]) throws -> String {
        let file = path("stream.deflate")
        try Data(compressed).write(to: URL(fileURLWithPath: file))
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                "-c",
                """
                import hashlib, sys, zlib
                d = zlib.decompressobj(-15)
                out = d.decompress(open(sys.argv[1], "rb").read())
                assert d.eof and not d.unused_data, "not one complete stream"
                print(hashlib.sha256(out).hexdigest())
                """, file,
            ])
        XCTAssertEqual(result.status, 0, result.error)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func sha256(_ bytes: [UInt8]) throws -> String {
        let file = path("plain.bin")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return try TestEnvironment.run("/usr/bin/sha256sum", [file]).output.split(separator: " ")[0].description
    }

    func testTheJoinedPiecesInflateToTheInput() throws {
        for (count, calls) in [
            (0, 1), (1, 1), (1_000, 3), (ParallelDeflater.splitThreshold - 1, 1), (ParallelDeflater.splitThreshold, 1),
            (3 * ParallelDeflater.splitThreshold + 17, 2), (2_500_000, 3), (1_000_000, 100),
        ] {
            let input = text(count)
            let (output, crc) = try deflate(input, calls: calls)
            XCTAssertEqual(try inflatedDigest(output), try sha256(input), "\(count) bytes in \(calls) calls")
            XCTAssertEqual(
                crc, input.withUnsafeBytes { crc32Update(0, $0) }, "the CRC beside the pieces saw every byte")
        }
        // Incompressible bytes too (stored blocks inside the pieces).
        var state: UInt64 = 99
        let noise = (0..<700_000).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        XCTAssertEqual(try inflatedDigest(try deflate(noise, calls: 2).output), try sha256(noise))
    }

    func testTheSizeStaysWithinOnePercentOfOneStream() throws {
        let input = text(8 << 20)
        let parallel = try deflate(input, calls: 8).output.count
        let file = path("single.bin")
        try Data(input).write(to: URL(fileURLWithPath: file))
        let single = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                "-c",
                """
                import sys, zlib
                c = zlib.compressobj(6, zlib.DEFLATED, -15)
                print(len(c.compress(open(sys.argv[1], "rb").read()) + c.flush()))
                """, file,
            ])
        let one = try XCTUnwrap(Int(single.output.trimmingCharacters(in: .whitespacesAndNewlines)), single.error)
        XCTAssertLessThanOrEqual(Double(parallel), Double(one) * 1.01, "parallel \(parallel) bytes, one stream \(one)")
    }
}
