import CPosix
import XCTest

/// `cposix_base64_census`, the vectorised loop that checks and counts a DDOC's base64 content,
/// against a byte-by-byte reference: every byte value at every place of a block, white space
/// anywhere, lengths that are not whole blocks. The DDOC tests check what it feeds (the decoded
/// sizes, the "not base64" refusals) end to end.
final class Base64CensusTests: XCTestCase {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let space: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]

    /// What the census must give: whole blocks of alphabet and white space, up to the first block
    /// with anything else, and the alphabet bytes counted in them.
    private func reference(_ bytes: [UInt8]) -> (consumed: Int, alphabet: UInt64) {
        var consumed = 0, count: UInt64 = 0
        while bytes.count - consumed >= 64 {
            let block = bytes[consumed..<consumed + 64]
            guard block.allSatisfy({ Self.alphabet.contains($0) || Self.space.contains($0) }) else { break }
            count += UInt64(block.filter { Self.alphabet.contains($0) }.count)
            consumed += 64
        }
        return (consumed, count)
    }

    private func census(_ bytes: [UInt8], startingAt start: UInt64 = 0) -> (consumed: Int, alphabet: UInt64) {
        var count = start
        let consumed = bytes.withUnsafeBufferPointer { cposix_base64_census($0.baseAddress, $0.count, &count) }
        return (consumed, count - start)
    }

    func testEveryByteValueAtEveryPlaceOfABlock() {
        var filler = [UInt8]()
        for index in 0..<192 { filler.append(Self.alphabet[(index * 7) % 64]) }
        var accepted = Set<UInt8>()
        for value in 0...255 {
            for place in [0, 1, 15, 16, 31, 32, 47, 63] {
                var bytes = filler
                bytes[64 + place] = UInt8(value)
                let (consumed, count) = census(bytes)
                XCTAssertEqual(consumed, reference(bytes).consumed, "0x\(String(value, radix: 16)) at \(place)")
                XCTAssertEqual(count, reference(bytes).alphabet, "0x\(String(value, radix: 16)) at \(place)")
                if consumed == 192 { accepted.insert(UInt8(value)) }
            }
        }
        // Exactly the alphabet and the four white-space bytes pass; `=`, `<`, `-`, `_`, NUL and
        // every byte from 0x80 stop the census at the block that holds them.
        XCTAssertEqual(accepted, Set(Self.alphabet + Self.space))
    }

    func testWhiteSpaceAnywhereAndPartialBlocks() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        for length in [0, 1, 63, 64, 65, 127, 128, 1_000, 4_096, 65_537] {
            var bytes = (0..<length).map { _ in Self.alphabet[next() % 64] }
            for _ in 0..<(length / 20) { bytes[next() % length] = Self.space[next() % 4] }
            let (consumed, count) = census(bytes, startingAt: 1_000)
            XCTAssertEqual(consumed, length / 64 * 64, "\(length)")
            XCTAssertEqual(count, reference(bytes).alphabet, "\(length)")
            // A stray byte in the last whole block stops the census before it.
            if length >= 128 {
                bytes[(length / 64 - 1) * 64 + next() % 64] = UInt8(ascii: "=")
                XCTAssertEqual(census(bytes).consumed, (length / 64 - 1) * 64, "\(length)")
            }
        }
    }
}
