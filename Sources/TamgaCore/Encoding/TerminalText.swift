/// Text that came from outside (a relying party's name, the text it asks a person to approve,
/// a file name inside a container) on its way to a terminal or an approval prompt.
///
/// Control characters can move the cursor, clear lines or change colours (ESC sequences), and
/// bidirectional overrides (U+202E) reorder what a person reads, so a prompt could show "pay 10"
/// where "pay 10000" is signed. `refusal(in:)` is for fields that are stored and shown later
/// (refused at the door); `escaped(_:)` is the one way such text is printed.
public enum TerminalText {
    /// True for the characters that must never reach a screen raw: C0 and C1 controls (tab and
    /// newline included: one field is one line), DEL, bidirectional embeddings, overrides and
    /// isolates, the directional marks, the line and paragraph separators, and the byte-order
    /// mark / zero-width no-break space.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x200E, 0x200F, 0x061C: true  // LRM, RLM, ALM
        case 0x202A...0x202E: true  // LRE, RLE, PDF, LRO, RLO
        case 0x2066...0x2069: true  // LRI, RLI, FSI, PDI
        case 0x2028, 0x2029, 0xFEFF: true
        default: false
        }
    }

    /// Why `text` cannot be shown as it is, or nil when it can.
    public static func refusal(in text: String) -> String? {
        guard let bad = text.unicodeScalars.first(where: isUnsafe) else { return nil }
        return
            "it contains the control or bidirectional character U+\(String(bad.value, radix: 16, uppercase: true).leftPadded(to: 4))"
    }

    /// `text` with every unsafe character written as `\u{XXXX}` (and the backslash doubled, so
    /// that an escape in the input cannot pass for one of ours).
    public static func escaped(_ text: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if scalar == "\\" {
                out += "\\\\"
            } else if isUnsafe(scalar) {
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// An RFC 4514 (or 2253) name, a certificate's subject or issuer as tamga or OpenSSL
    /// formats it, with every unsafe character written as `\u{XXXX}` and its backslashes left
    /// as they are: the name's own escapes (`\,`, `\\`) are part of what it says, and since
    /// RFC 4514 writes a backslash in a value as `\\`, no value can spell one of our `\u{…}`
    /// escapes (`\u` is not an RFC 4514 escape).
    public static func escapedName(_ name: String) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(name.unicodeScalars.count)
        for scalar in name.unicodeScalars {
            if isUnsafe(scalar) {
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A key under which names that a person could not tell apart are equal: case folded,
    /// runs of white space made one space, leading and trailing space dropped.
    public static func lookAlikeKey(_ name: String) -> String {
        name.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
