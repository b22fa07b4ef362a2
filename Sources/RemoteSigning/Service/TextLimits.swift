import FoundationEssentials
import Glibc

/// Text sent to a phone, fitted the way the service counts it. Smart-ID's `displayText60` and
/// `displayText200` are limits in UTF-16 code units (the service is Java: `String.length()`), so
/// "𝔸" counts 2 and "é" written as e + U+0301 counts 2; a text is cut at a whole character (a
/// grapheme cluster) that still fits, never inside one.
enum TextLimits {
    static func fitted(_ text: String, utf16Units limit: Int) -> String {
        var kept = "", units = 0
        for character in text {
            let size = character.utf16.count
            guard units + size <= limit else { break }
            kept.append(character)
            units += size
        }
        return kept
    }

    /// A value from the configuration or a reply quoted for an error message: at most 40
    /// characters, control characters (C0, DEL, C1) shown as `?`: a message must not carry
    /// terminal escapes or forge a line.
    static func quoted(_ text: String) -> String {
        let visible = String(text.prefix(40).map { isPrintable($0) ? $0 : "?" })
        return "\"\(visible)\(text.count > 40 ? "…" : "")\""
    }

    /// The service's own words, bounded, with control characters dropped.
    static func printable(_ text: String, limit: Int) -> String {
        String(text.filter(isPrintable).prefix(limit))
    }

    private static func isPrintable(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F...0x9F).contains($0.value) }
    }
}
