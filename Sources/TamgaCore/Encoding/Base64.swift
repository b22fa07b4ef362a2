/// Base64 (RFC 4648 §4, and the URL-safe alphabet of §5 when asked) for fields that come from
/// outside. Foundation's decoder is lenient in ways that differ between platforms; this one
/// reads UTF-8 bytes, accepts ASCII only, and says what was wrong.
public enum Base64 {
    public enum Alphabet: Sendable {
        /// `A-Z a-z 0-9 + /`, padded with `=`.
        case standard
        /// `A-Z a-z 0-9 - _`, padding optional.
        case url
    }

    /// The bytes of `text`; throws `CoreError.malformedText` naming `field` for a character
    /// outside the alphabet, misplaced padding, an impossible length or non-zero trailing bits.
    /// - Parameters:
    ///   - ignoringWhitespace: skip ASCII space, tab, CR and LF (XML-DSig and PEM bodies wrap lines).
    ///   - maximumCount: the most bytes accepted (bounds the work on hostile input).
    public static func decode<S: StringProtocol>(
        _ text: S, field: String = "value", alphabet: Alphabet = .standard,
        ignoringWhitespace: Bool = false, maximumCount: Int = 64 << 20
    ) throws(CoreError) -> [UInt8] {
        let utf8 = text.utf8
        guard utf8.count / 4 * 3 <= maximumCount + 3 else {
            throw .malformedText(field: field, reason: "longer than \(maximumCount) bytes")
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 4 * 3)
        var accumulator: UInt32 = 0
        var digits = 0
        var padding = 0
        for unit in utf8 {
            if ignoringWhitespace, unit == 0x20 || unit == 0x09 || unit == 0x0a || unit == 0x0d { continue }
            if unit == UInt8(ascii: "=") {
                padding += 1
                guard padding <= 2 else { throw .malformedText(field: field, reason: "too much base64 padding") }
                continue
            }
            guard padding == 0 else { throw .malformedText(field: field, reason: "base64 data after the padding") }
            guard let value = value(of: unit, alphabet) else {
                throw .malformedText(field: field, reason: "a character outside the base64 alphabet (ASCII only)")
            }
            accumulator = accumulator << 6 | UInt32(value)
            digits += 1
            if digits == 4 {
                out.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                out.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                out.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                digits = 0
            }
        }
        switch digits {
        case 0:
            guard padding == 0 else { throw .malformedText(field: field, reason: "base64 padding without data") }
        case 2:
            guard padding == 0 || padding == 2, alphabet == .url || padding == 2 else {
                throw .malformedText(field: field, reason: "base64 padding is wrong")
            }
            guard accumulator & 0x0f == 0 else {
                throw .malformedText(field: field, reason: "base64 has stray trailing bits")
            }
            out.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            guard padding == 0 || padding == 1, alphabet == .url || padding == 1 else {
                throw .malformedText(field: field, reason: "base64 padding is wrong")
            }
            guard accumulator & 0x03 == 0 else {
                throw .malformedText(field: field, reason: "base64 has stray trailing bits")
            }
            out.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            out.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default:
            throw .malformedText(field: field, reason: "base64 length is impossible")
        }
        guard out.count <= maximumCount else {
            throw .malformedText(field: field, reason: "longer than \(maximumCount) bytes")
        }
        return out
    }

    /// Standard padded base64 of `bytes`.
    public static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let table: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= input.count {
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            out += [
                table[Int(value >> 18 & 63)], table[Int(value >> 12 & 63)], table[Int(value >> 6 & 63)],
                table[Int(value & 63)],
            ]
            index += 3
        }
        switch input.count - index {
        case 1:
            let value = UInt32(input[index]) << 16
            out += [table[Int(value >> 18 & 63)], table[Int(value >> 12 & 63)], UInt8(ascii: "="), UInt8(ascii: "=")]
        case 2:
            let value = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
            out += [
                table[Int(value >> 18 & 63)], table[Int(value >> 12 & 63)], table[Int(value >> 6 & 63)],
                UInt8(ascii: "="),
            ]
        default: break
        }
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always)
    static func value(of unit: UInt8, _ alphabet: Alphabet) -> UInt8? {
        switch unit {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): unit &- UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): unit &- UInt8(ascii: "a") &+ 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): unit &- UInt8(ascii: "0") &+ 52
        case UInt8(ascii: "+") where alphabet == .standard: 62
        case UInt8(ascii: "/") where alphabet == .standard: 63
        case UInt8(ascii: "-") where alphabet == .url: 62
        case UInt8(ascii: "_") where alphabet == .url: 63
        default: nil
        }
    }
}
