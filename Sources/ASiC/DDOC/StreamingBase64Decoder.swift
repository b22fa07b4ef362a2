import FoundationEssentials
import Glibc

/// Decodes base64 text that arrives in pieces (a DDOC data file's content can be hundreds of
/// megabytes), writing the bytes to a sink as it goes; nothing is held but one output chunk.
/// Strict as `Base64.decode` is: the standard alphabet, ASCII white space between characters,
/// padding only at the very end, no stray trailing bits.
struct StreamingBase64Decoder {
    enum Failure: Error, Equatable {
        case notBase64(String)
    }

    /// 0–63 for the alphabet, 64 for white space, 65 for `=`, 255 for anything else.
    static let table: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (index, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(index)
        }
        for space in [0x20, 0x09, 0x0A, 0x0D] { table[space] = 64 }
        table[Int(UInt8(ascii: "="))] = 65
        return table
    }()

    private var accumulator: UInt32 = 0
    private var digits = 0
    private var padding = 0
    private var output: [UInt8] = []
    /// Bytes decoded so far.
    private(set) var decodedCount: UInt64 = 0

    init() { output.reserveCapacity(1 << 16) }

    /// Decodes `text`, passing full output chunks to `sink`.
    mutating func decode(_ text: UnsafeRawBufferPointer, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let table = Self.table
        for byte in text {
            let value = table[Int(byte)]
            if value < 64 {
                guard padding == 0 else { throw Failure.notBase64("base64 data after its padding") }
                accumulator = accumulator << 6 | UInt32(value)
                digits += 1
                if digits == 4 {
                    output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                    output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                    output.append(UInt8(truncatingIfNeeded: accumulator))
                    accumulator = 0
                    digits = 0
                    if output.count >= 1 << 16 { try flush(sink) }
                }
            } else if value == 64 {
                continue
            } else if value == 65 {
                padding += 1
                guard padding <= 2 else { throw Failure.notBase64("too much base64 padding") }
            } else {
                throw Failure.notBase64("a character that is not base64 (byte 0x\(String(byte, radix: 16)))")
            }
        }
    }

    /// Ends the text: the last group and its padding must fit.
    mutating func finish(sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        switch (digits, padding) {
        case (0, 0): break
        case (2, 2):
            guard accumulator & 0x0F == 0 else { throw Failure.notBase64("base64 with stray trailing bits") }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case (3, 1):
            guard accumulator & 0x03 == 0 else { throw Failure.notBase64("base64 with stray trailing bits") }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default:
            throw Failure.notBase64("base64 whose length or padding is impossible")
        }
        try flush(sink)
    }

    private mutating func flush(_ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !output.isEmpty else { return }
        decodedCount += UInt64(output.count)
        try output.withUnsafeBytes { try sink($0) }
        output.removeAll(keepingCapacity: true)
    }
}
