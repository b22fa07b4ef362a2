import Foundation

/// A CryptoPro media name (smartcard.md §2.3): `rutoken_ecp_4a1b2c3d`, `rutoken_lt_40d27c56`,
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
        case "NO_MEDIA": kind = .noMedia; return
        case "NO_UNIQUE": kind = .noUnique; return
        default: break
        }
        var rest = Substring(text)
        let viaPKCS11 = rest.hasPrefix("pkcs11_")
        if viaPKCS11 { rest = rest.dropFirst("pkcs11_".count) }
        // Longest family first: "rutoken_ecp" before "rutoken".
        for family in ["rutoken_ecp", "rutoken_lt", "rutoken"] where rest.hasPrefix(family) {
            let tail = rest.dropFirst(family.count)
            if tail.isEmpty { kind = .token(family: family, serial: nil, viaPKCS11: viaPKCS11); return }
            guard tail.hasPrefix("_") else { continue }
            let serial = tail.dropFirst()
            guard !serial.isEmpty, serial.count <= 16, serial.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
            kind = .token(family: family, serial: serial.lowercased(), viaPKCS11: viaPKCS11)
            return
        }
        return nil
    }

    /// The media name CryptoPro gives a token of `family` with this serial number.
    public init(family: String, serial: UInt32, viaPKCS11: Bool = false) {
        let hex = String(format: "%08x", serial)
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

/// A PC/SC reader name taken apart (smartcard.md §2.1): the product name, an optional
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

    public init(_ raw: String) {
        self.raw = raw
        var text = raw.trimmingCharacters(in: .whitespaces)
        var index: Int? = nil, slot: Int? = nil
        // Linux: " HH HH" (index, slot) at the end.
        if let match = text.range(of: #" ([0-9A-Fa-f]{2}) ([0-9A-Fa-f]{2})$"#, options: .regularExpression) {
            let parts = text[match].split(separator: " ")
            index = Int(parts[0], radix: 16)
            slot = Int(parts[1], radix: 16)
            text = String(text[..<match.lowerBound])
        } else if let match = text.range(of: #" [0-9]{1,3}$"#, options: .regularExpression) {
            // Windows / Bluetooth: " N".
            index = Int(text[match].dropFirst())
            text = String(text[..<match.lowerBound])
        }
        var serial: String? = nil, interface: String? = nil
        if let match = text.range(of: #" \(([^()]*)\)$"#, options: .regularExpression) {
            serial = String(text[match].dropFirst(2).dropLast())
            text = String(text[..<match.lowerBound])
        }
        if let match = text.range(of: #" \[([^\[\]]*)\]$"#, options: .regularExpression) {
            interface = String(text[match].dropFirst(2).dropLast())
            text = String(text[..<match.lowerBound])
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
        guard name.contains("rutoken") else { return nil }
        if name.contains("rutoken ecp") { return "rutoken_ecp" }
        if name.contains("rutoken lite") { return "rutoken_lt" }
        if name.hasSuffix("rutoken s") || name.contains("rutoken s ") { return "rutoken" }
        return nil
    }
}
