import FoundationEssentials
import Glibc

/// A strict reader for the few DER shapes tamga parses by hand (minimal lengths, no BER).
struct DERReader {
    private let bytes: [UInt8]
    private var index = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var isAtEnd: Bool { index == bytes.count }

    /// The next element's tag and content, whatever the tag.
    mutating func readAny() throws -> (tag: UInt8, content: [UInt8]) {
        guard index < bytes.count else { throw CoreError.malformedSignature("truncated DER") }
        let tag = bytes[index]
        return (tag, try read(tag: tag))
    }

    mutating func read(tag: UInt8) throws -> [UInt8] {
        guard index < bytes.count, bytes[index] == tag else {
            throw CoreError.malformedSignature("expected DER tag 0x\(String(tag, radix: 16))")
        }
        index += 1
        guard index < bytes.count else { throw CoreError.malformedSignature("truncated DER") }
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1, count <= 3, index + count <= bytes.count else {
                throw CoreError.malformedSignature("bad DER length")
            }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
            guard length >= 0x80, bytes[index - count] != 0 else {
                throw CoreError.malformedSignature("non-minimal DER length")
            }
        }
        guard index + length <= bytes.count else { throw CoreError.malformedSignature("truncated DER") }
        defer { index += length }
        return Array(bytes[index..<index + length])
    }

    /// A positive INTEGER's magnitude without leading zeros.
    mutating func readUnsignedInteger() throws -> [UInt8] {
        let content = try read(tag: 0x02)
        guard let first = content.first else { throw CoreError.malformedSignature("empty INTEGER") }
        guard first & 0x80 == 0 else { throw CoreError.malformedSignature("negative INTEGER") }
        if content.count > 1, first == 0, content[1] & 0x80 == 0 {
            throw CoreError.malformedSignature("non-minimal INTEGER")
        }
        let magnitude = Array(content.drop(while: { $0 == 0 }))
        guard !magnitude.isEmpty else { throw CoreError.malformedSignature("zero INTEGER") }
        return magnitude
    }
}
