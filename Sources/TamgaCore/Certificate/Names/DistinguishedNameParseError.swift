extension DistinguishedName {
    /// Why an RFC 4514 string is not a distinguished name. The case is the stable code; offsets
    /// count UTF-8 bytes from the start of the string.
    public enum ParseError: Error, Sendable, Equatable {
        /// The string is longer than ``DistinguishedName/maximumTextLength`` bytes.
        case tooLong(bytes: Int)
        /// More than ``DistinguishedName/maximumRelativeNames`` RDNs.
        case tooManyRelativeNames
        /// More than ``DistinguishedName/maximumAttributes`` attributes in all.
        case tooManyAttributes
        /// An RDN or an attribute is missing (`,,`, a leading or trailing `,` or `+`).
        case emptyRelativeName(offset: Int)
        /// An attribute type that is neither a known keyword nor a dotted OID.
        case unknownAttributeType(String)
        /// A dotted OID with an empty arc, a leading zero, one arc, or a first arc above 2.
        case malformedOID(String)
        /// No `=` after the attribute type.
        case missingEquals(offset: Int)
        /// `"`, `;`, `<`, `>` or NUL in a value without a `\` before it.
        case unescapedSpecial(offset: Int)
        /// A `\` at the end, or followed by a single hex digit.
        case truncatedEscape(offset: Int)
        /// A `\` followed by something that is neither a special character nor two hex digits.
        case invalidEscape(offset: Int)
        /// A `#` value with a character that is not an ASCII hex digit.
        case invalidHexDigit(offset: Int)
        /// A `#` value with no digits or an odd number of them.
        case oddHexDigits(offset: Int)
        /// A `#` value that is not one complete DER element.
        case malformedBER(String)
        /// A `#` value of a string type whose content breaks that type (bad UTF-8, a character
        /// outside PrintableString, an odd-length BMPString, a surrogate).
        case invalidStringContent(String)
        /// The bytes of a value (`\XX` escapes included) are not UTF-8.
        case invalidUTF8(offset: Int)
        /// Something after a value that is neither `,` nor `+` nor the end.
        case unexpectedCharacter(offset: Int)

        /// The stable machine-readable code.
        public var code: String {
            switch self {
            case .tooLong: "name-too-long"
            case .tooManyRelativeNames: "name-too-many-rdns"
            case .tooManyAttributes: "name-too-many-attributes"
            case .emptyRelativeName: "name-empty-rdn"
            case .unknownAttributeType: "name-unknown-attribute-type"
            case .malformedOID: "name-malformed-oid"
            case .missingEquals: "name-missing-equals"
            case .unescapedSpecial: "name-unescaped-special"
            case .truncatedEscape: "name-truncated-escape"
            case .invalidEscape: "name-invalid-escape"
            case .invalidHexDigit: "name-invalid-hex-digit"
            case .oddHexDigits: "name-odd-hex-digits"
            case .malformedBER: "name-malformed-ber"
            case .invalidStringContent: "name-invalid-string-content"
            case .invalidUTF8: "name-invalid-utf8"
            case .unexpectedCharacter: "name-unexpected-character"
            }
        }
    }
}

extension DistinguishedName.ParseError: CustomStringConvertible {
    public var description: String {
        let fix = "write the name as RFC 4514 text (e.g. CN=Example CA,O=Example,C=EE)"
        switch self {
        case .tooLong(let bytes):
            return "the name is \(bytes) bytes long (at most \(DistinguishedName.maximumTextLength) are read)"
        case .tooManyRelativeNames:
            return "the name has more than \(DistinguishedName.maximumRelativeNames) RDNs"
        case .tooManyAttributes:
            return "the name has more than \(DistinguishedName.maximumAttributes) attributes"
        case .emptyRelativeName(let offset):
            return "an empty RDN at byte \(offset) (a doubled, leading or trailing ',' or '+'): \(fix)"
        case .unknownAttributeType(let type):
            return "unknown attribute type '\(type)': use a known short name (CN, O, OU, C, …) or the dotted OID"
        case .malformedOID(let oid):
            return "'\(oid)' is not a dotted object identifier (such as 2.5.4.97)"
        case .missingEquals(let offset):
            return "no '=' after the attribute type at byte \(offset): \(fix)"
        case .unescapedSpecial(let offset):
            return "the character at byte \(offset) must be escaped with '\\' in a value (RFC 4514 §2.4)"
        case .truncatedEscape(let offset):
            return
                "the '\\' escape at byte \(offset) is cut short: write '\\' and two hex digits or a special character"
        case .invalidEscape(let offset):
            return "the '\\' at byte \(offset) escapes neither a special character nor two hex digits"
        case .invalidHexDigit(let offset):
            return "the '#' value has a character at byte \(offset) that is not an ASCII hex digit"
        case .oddHexDigits(let offset):
            return "the '#' value at byte \(offset) needs an even, non-zero number of hex digits"
        case .malformedBER(let reason):
            return "the '#' value is not one DER element: \(reason)"
        case .invalidStringContent(let reason):
            return "the '#' value's string is not valid for its type: \(reason)"
        case .invalidUTF8(let offset):
            return "the value starting at byte \(offset) is not UTF-8 (check its '\\XX' escapes)"
        case .unexpectedCharacter(let offset):
            return "unexpected character at byte \(offset): \(fix)"
        }
    }
}
