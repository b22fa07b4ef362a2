/// Hexadecimal text ⇄ bytes, for every hex field that crosses a boundary (HTTP bodies and
/// headers, wire messages, command-line arguments, configuration).
///
/// Decoding reads the text's UTF-8 bytes and accepts only ASCII `0-9a-fA-F`. Swift's
/// `Character.isHexDigit` also says yes to fullwidth digits (U+FF10…) and letters, which the
/// radix-16 integer parsers then refuse: code that checks with one and converts with the other
/// traps on input any client can send. Nothing here can trap.
public enum Hex {
    /// Lower-case hex of `bytes`.
    public static func encode<S: Sequence>(_ bytes: S, uppercase: Bool = false) -> String where S.Element == UInt8 {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        digits.withUTF8Buffer { table in
            for byte in bytes {
                out.append(table[Int(byte >> 4)])
                out.append(table[Int(byte & 0x0f)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of an even-length ASCII hex string; throws `CoreError.malformedText` naming
    /// `field` for anything else (odd length, a non-ASCII or non-hex character, too long).
    /// - Parameters:
    ///   - count: the exact number of bytes expected, when there is one.
    ///   - maximumCount: the most bytes accepted (bounds the work on hostile input).
    public static func decode<S: StringProtocol>(
        _ text: S, field: String = "value", count: Int? = nil,
        maximumCount: Int = 1 << 20
    ) throws(CoreError) -> [UInt8] {
        let utf8 = text.utf8
        guard utf8.count % 2 == 0 else {
            throw .malformedText(field: field, reason: "hex needs an even number of digits")
        }
        let byteCount = utf8.count / 2
        if let count, byteCount != count {
            throw .malformedText(field: field, reason: "expected \(count) bytes of hex, got \(byteCount)")
        }
        guard byteCount <= maximumCount else {
            throw .malformedText(field: field, reason: "longer than \(maximumCount) bytes")
        }
        var out: [UInt8] = []
        out.reserveCapacity(byteCount)
        var high: UInt8?
        for unit in utf8 {
            guard let value = digitValue(unit) else {
                throw .malformedText(field: field, reason: "hex digits are ASCII 0-9, a-f and A-F only")
            }
            if let first = high {
                out.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return out
    }

    /// Like `decode`, nil instead of an error (for callers that report their own).
    public static func bytes<S: StringProtocol>(_ text: S, count: Int? = nil) -> [UInt8]? {
        try? decode(text, count: count)
    }

    /// The value of one ASCII hex digit.
    @inline(__always)
    static func digitValue(_ unit: UInt8) -> UInt8? {
        switch unit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): unit &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): unit &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): unit &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }
}
