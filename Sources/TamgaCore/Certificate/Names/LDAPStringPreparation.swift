import FoundationEssentials
import Glibc

/// RFC 4518 string preparation for caseIgnoreMatch, the matching RFC 5280 §7.1 asks for name
/// attributes: two values match when their prepared forms are equal.
///
/// Steps (RFC 4518 §2): map (soft hyphens, joiners, variation selectors and controls to nothing;
/// tabs, line breaks and every Unicode space separator to SPACE; case folding), normalise to
/// NFKC, then insignificant-space handling (no leading or trailing space, inner runs one space).
/// The prohibit step is not applied: a value with a prohibited character still matches only an
/// identical one, which is enough for comparing a name with itself.
enum LDAPStringPreparation {
    static func prepare(_ text: String) -> String {
        var mapped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            // RFC 4518 §2.2 (RFC 3454 B.1 and the listed controls): mapped to nothing.
            case 0x00AD, 0x034F, 0x1806, 0x180B...0x180E, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2063,
                0xFE00...0xFE0F, 0xFEFF, 0xFFFC, 0x0000...0x0008, 0x000E...0x001F, 0x007F...0x0084, 0x0086...0x009F:
                continue
            // Tab, line feed, vertical tab, form feed, carriage return, next line: SPACE.
            case 0x0009...0x000D, 0x0085:
                mapped.append(" ")
            default:
                if scalar.properties.generalCategory == .spaceSeparator || scalar.value == 0x2028
                    || scalar.value == 0x2029
                {
                    mapped.append(" ")
                } else {
                    mapped.append(scalar)
                }
            }
        }
        // Case folding before and after NFKC: compatibility forms (ﬁ, full-width letters) fold too.
        let normalized = UnicodeNormalization.nfkc(UnicodeNormalization.nfkc(String(mapped).lowercased()).lowercased())
        // Insignificant space handling (RFC 4518 §2.6.1).
        var out = ""
        var pendingSpace = false
        for character in normalized {
            if character == " " {
                pendingSpace = !out.isEmpty
            } else {
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.append(character)
            }
        }
        return out
    }
}
