import FoundationEssentials
import Glibc
import TamgaSupport

/// A CryptoPro media name (docs/design/smartcard.md §2.3): `rutoken_ecp_4a1b2c3d`, `rutoken_lt_40d27c56`,
/// `pkcs11_rutoken_ecp_435461fa`, or the markers `NO_MEDIA` (no token) and `NO_UNIQUE`.
public struct MediaName: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A token of `family` (`rutoken_ecp`, `rutoken_lt`, `rutoken`), with its serial in
        /// hex when the name carries one; `viaPKCS11` for the `pkcs11_` reader spelling.
        case token(family: String, serial: String?, viaPKCS11: Bool)
        case noMedia
        case noUnique
    }

    public let kind: Kind
    public let description: String

    /// Parses a media string; nil when it is none of the known forms.
    public init?(_ text: String) {
        description = text
        switch text {
        case "NO_MEDIA":
            kind = .noMedia
            return
        case "NO_UNIQUE":
            kind = .noUnique
            return
        default: break
        }
        var rest = Substring(text)
        let viaPKCS11 = rest.hasPrefix("pkcs11_")
        if viaPKCS11 { rest = rest.dropFirst("pkcs11_".count) }
        // Longest family first: "rutoken_ecp" before "rutoken".
        for family in ["rutoken_ecp", "rutoken_lt", "rutoken"] where rest.hasPrefix(family) {
            let tail = rest.dropFirst(family.count)
            if tail.isEmpty {
                kind = .token(family: family, serial: nil, viaPKCS11: viaPKCS11)
                return
            }
            guard tail.hasPrefix("_") else { continue }
            let serial = tail.dropFirst()
            guard !serial.isEmpty, serial.count <= 16, serial.allSatisfy({ $0.isASCII && $0.isHexDigit }) else {
                return nil
            }
            kind = .token(family: family, serial: serial.lowercased(), viaPKCS11: viaPKCS11)
            return
        }
        return nil
    }

    /// The media name CryptoPro gives a token of `family` with this serial number.
    public init(family: String, serial: UInt32, viaPKCS11: Bool = false) {
        let hex = NumberText.hex(serial, width: 8, uppercase: false)
        kind = .token(family: family, serial: hex, viaPKCS11: viaPKCS11)
        description = (viaPKCS11 ? "pkcs11_" : "") + "\(family)_\(hex)"
    }

    public var family: String? {
        if case .token(let family, _, _) = kind { return family }
        return nil
    }

    /// True when this media name can be the token in the reader named `readerName`: the
    /// family derived from the reader name must match. (A serial cannot be read from a
    /// PC/SC name; compare it with the token's serial where one is known.)
    public func matches(readerName: String) -> Bool {
        guard let family, let readerFamily = ReaderName(readerName).mediaFamily else { return false }
        return family == readerFamily
    }
}

/// A PC/SC reader name taken apart (docs/design/smartcard.md §2.1): the product name, an optional
/// `[interface]` and `(serial)`, and the index suffix — `HH HH` on Linux (`00 00`, `01 00`,
/// slot `00 01`), a single number on Windows and for Bluetooth readers (`0`, `BT 1`).
public struct ReaderName: Sendable, Hashable {
    public let raw: String
    /// The name without index, serial and interface: `Aktiv Rutoken ECP`.
    public let product: String
    public let interface: String?
    public let serial: String?
    /// The reader index (`01` in `… 01 00`), when the name carries one.
    public let index: Int?
    public let slot: Int?

    /// The numbers at the end of `text` in `shape` (" HH HH": a space and two hex digits,
    /// twice; " N": a space and one to three decimal digits), and where that suffix starts.
    /// Read scalar by scalar: reader names come from the system, not from the user.
    private static func suffix(of text: String, _ shape: String) -> (String.Index, [String])? {
        let scalars = Array(text.unicodeScalars)
        func isHex(_ s: Unicode.Scalar) -> Bool { s.isASCII && s.properties.isASCIIHexDigit }
        func isDigit(_ s: Unicode.Scalar) -> Bool { ("0"..."9").contains(s) }
        let count: Int
        switch shape {
        case " HH HH":
            guard scalars.count >= 6 else { return nil }
            let tail = Array(scalars.suffix(6))
            guard tail[0] == " ", isHex(tail[1]), isHex(tail[2]), tail[3] == " ", isHex(tail[4]), isHex(tail[5]) else {
                return nil
            }
            count = 6
        default:
            let digits = scalars.reversed().prefix(while: isDigit).count
            guard (1...3).contains(digits), scalars.count > digits, scalars[scalars.count - digits - 1] == " " else {
                return nil
            }
            count = digits + 1
        }
        let start = text.unicodeScalars.index(text.unicodeScalars.endIndex, offsetBy: -count)
        let parts = String(text.unicodeScalars[start...]).split(separator: " ").map(String.init)
        return (start, parts)
    }

    /// " (…)" or " […]" at the end of `text`, with no bracket of either kind inside: what is
    /// inside, and where the suffix starts.
    private static func bracketed(
        _ text: String, _ open: Unicode.Scalar, _ close: Unicode.Scalar
    ) -> (String.Index, String)? {
        let scalars = text.unicodeScalars
        guard scalars.last == close, let opening = scalars.lastIndex(of: open), opening > scalars.startIndex else {
            return nil
        }
        let space = scalars.index(before: opening)
        guard scalars[space] == " " else { return nil }
        let inner = scalars[scalars.index(after: opening)..<scalars.index(before: scalars.endIndex)]
        guard !inner.contains(open), !inner.contains(close) else { return nil }
        return (space, String(String.UnicodeScalarView(inner)))
    }

    public init(_ raw: String) {
        self.raw = raw
        var text = raw.trimmedSpaces()
        var index: Int? = nil, slot: Int? = nil
        // Linux: " HH HH" (index, slot) at the end.
        if let (start, parts) = Self.suffix(of: text, " HH HH") {
            index = Int(parts[0], radix: 16)
            slot = Int(parts[1], radix: 16)
            text = String(text[..<start])
        } else if let (start, parts) = Self.suffix(of: text, " N") {
            // Windows / Bluetooth: " N".
            index = Int(parts[0])
            text = String(text[..<start])
        }
        var serial: String? = nil, interface: String? = nil
        if let (start, inner) = Self.bracketed(text, "(", ")") {
            serial = inner
            text = String(text[..<start])
        }
        if let (start, inner) = Self.bracketed(text, "[", "]") {
            interface = inner
            text = String(text[..<start])
        }
        product = text
        self.interface = interface
        self.serial = serial
        self.index = index
        self.slot = slot
    }

    /// The CryptoPro media family of the token this reader name stands for, if it is one.
    /// `ECP BT`, `ECP B` and `ECP SC` are ECP family; case does not matter.
    public var mediaFamily: String? {
        let name = product.lowercased()
        guard name.containsText("rutoken") else { return nil }
        if name.containsText("rutoken ecp") { return "rutoken_ecp" }
        if name.containsText("rutoken lite") { return "rutoken_lt" }
        if name.hasSuffix("rutoken s") || name.containsText("rutoken s ") { return "rutoken" }
        return nil
    }
}
