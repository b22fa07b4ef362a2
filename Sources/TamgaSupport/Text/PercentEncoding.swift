/// RFC 3986 percent-encoding of UTF-8 text.
public enum PercentEncoding {
    /// RFC 3986 §2.3's unreserved characters: ASCII letters, digits, `-`, `.`, `_`, `~`.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// `text` with every byte of its UTF-8 for which `keep` does not hold written as `%XX`.
    public static func encode(_ text: String, keeping keep: (UInt8) -> Bool = isUnreserved) -> String {
        var out = ""
        for byte in text.utf8 {
            if keep(byte) { out.unicodeScalars.append(Unicode.Scalar(byte)) } else { out += "%" + NumberText.hex(byte) }
        }
        return out
    }

    /// `text` with its `%XX` sequences decoded; nil when one is malformed or the bytes are not
    /// UTF-8 (as `removingPercentEncoding` answered).
    public static func decode(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
