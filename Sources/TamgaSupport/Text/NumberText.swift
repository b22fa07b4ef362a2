/// The `String(format:)` conversions the modules used, without Foundation's formatter.
public enum NumberText {
    /// `value` in hex, at least `width` digits (`%02X` is `hex(byte, width: 2)`).
    @inlinable public static func hex<Value: BinaryInteger>(
        _ value: Value, width: Int = 2, uppercase: Bool = true
    ) -> String {
        String(value, radix: 16, uppercase: uppercase).leftPadded(to: width, with: "0")
    }

    /// Bytes as hex pairs, joined by `separator`. Written digit by digit: an ATR or a digest
    /// is printed at the start of short commands, where `String(_:radix:)` per byte showed.
    @inlinable public static func hex<Bytes: Sequence>(
        bytes: Bytes, separator: String = "", uppercase: Bool = true
    ) -> String where Bytes.Element == UInt8 {
        let digits: StaticString = uppercase ? "0123456789ABCDEF" : "0123456789abcdef"
        let separatorBytes = Array(separator.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * (2 + separatorBytes.count))
        digits.withUTF8Buffer { table in
            for byte in bytes {
                if !out.isEmpty { out.append(contentsOf: separatorBytes) }
                out.append(table[Int(byte >> 4)])
                out.append(table[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `value` in decimal, at least `width` digits (`%04d`).
    @inlinable public static func decimal<Value: BinaryInteger>(_ value: Value, width: Int) -> String {
        value < 0
            ? "-" + String(0 - value).leftPadded(to: width - 1, with: "0")
            : String(value).leftPadded(to: width, with: "0")
    }

    /// `value` with `digits` digits after the point, rounded half away from zero (`%.1f`).
    @inlinable public static func fixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<max(0, digits) { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9.0e18 else { return "\(value)" }
        let whole = UInt64(scaled)
        let negative = value < 0 && whole != 0
        let unit = UInt64(scale)
        var text = String(whole / unit)
        if digits > 0 { text += "." + String(whole % unit).leftPadded(to: digits, with: "0") }
        return negative ? "-" + text : text
    }
}
