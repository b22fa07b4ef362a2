/// One attribute of a distinguished name: its type (an OID) and its value.
public struct NameAttribute {
    /// The value as a certificate or an RFC 4514 string carries it.
    public enum Value {
        /// A directory string (UTF8String, PrintableString, IA5String, TeletexString,
        /// BMPString, UniversalString, NumericString, VisibleString), decoded to Unicode.
        case string(String)
        /// Any other ASN.1 type: its complete DER encoding (tag, length, content), compared
        /// byte for byte.
        case encoded([UInt8])
    }

    public let type: NameAttributeType
    public let value: Value

    public init(type: NameAttributeType, value: Value) {
        self.type = type
        self.value = value
    }

    /// What two matching attributes share: the OID and the prepared value (RFC 4518 for
    /// strings, the DER in hex for the rest), so that matching is key equality.
    var comparisonKey: String {
        switch value {
        case .string(let text): "\(type.oid)=s:" + LDAPStringPreparation.prepare(text)
        case .encoded(let der):
            "\(type.oid)=d:" + der.map { hexDigits[Int($0 >> 4)] + hexDigits[Int($0 & 0x0F)] }.joined()
        }
    }

    /// True when the two are the same attribute under RFC 5280 §7.1 (caseIgnoreMatch after RFC
    /// 4518 preparation for strings, which is the matching rule of every attribute type
    /// certificates use in names; the DER otherwise).
    public func matches(_ other: NameAttribute) -> Bool { comparisonKey == other.comparisonKey }
}

private let hexDigits = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]

extension NameAttribute: CustomStringConvertible {
    /// `type=value` in RFC 4514 form (specials, a leading `#` or space and a trailing space
    /// escaped with `\`; non-string values as `#` + DER in hex).
    public var description: String {
        switch value {
        case .string(let text): return "\(type.name)=\(Self.escaped(text))"
        case .encoded(let der):
            return "\(type.name)=#" + der.map { hexDigits[Int($0 >> 4)] + hexDigits[Int($0 & 0x0F)] }.joined()
        }
    }

    private static func escaped(_ text: String) -> String {
        var out = ""
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            switch scalar {
            case "\"", "+", ",", ";", "<", ">", "\\", "=": out += "\\" + String(scalar)
            case "#" where index == 0: out += "\\#"
            case " " where index == 0 || index == scalars.count - 1: out += "\\ "
            case "\u{0}": out += "\\00"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension NameAttribute: Hashable {}
extension NameAttribute: Sendable {}
extension NameAttribute.Value: Hashable {}
extension NameAttribute.Value: Sendable {}
