import FoundationEssentials
import TamgaSupport

/// Reference URIs for data files: every byte outside `[A-Za-z0-9-._~/]` percent-encoded in
/// upper-case hex, UTF-8 byte by byte (as libdigidocpp's `File::toUriPath`, without its
/// one-digit bug below 0x10).
enum URIPath {
    static func encode(_ name: String) -> String {
        var out = ""
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + NumberText.hex(byte)
            }
        }
        return out
    }

    /// Decodes `%XX` escapes; nil for a malformed escape or bytes that are not UTF-8.
    static func decode(_ uri: String) -> String? {
        func hexValue(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        var iterator = Array(uri.utf8).makeIterator()
        while let b = iterator.next() {
            if b == UInt8(ascii: "%") {
                guard let h = iterator.next().flatMap(hexValue), let l = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(h << 4 | l)
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
