extension DistinguishedName {
    /// The longest RFC 4514 string read, in UTF-8 bytes (real issuer names are a few hundred).
    public static let maximumTextLength = 8_192
    /// The most RDNs a name may have.
    public static let maximumRelativeNames = 64
    /// The most attributes a name may have, over all its RDNs.
    public static let maximumAttributes = 128

    /// Parses an RFC 4514 string (XAdES `X509IssuerName`) into a name, RDNs in DER order.
    ///
    /// Reads RFC 4514 §3: `type=value` pairs joined by `+` into RDNs and by `,` into the name,
    /// the last RDN first; types as short names (case-insensitive) or dotted OIDs (an `OID.`
    /// prefix is allowed); values as text with `\` before a special character or `\XX` hex bytes
    /// (which must form UTF-8), or as `#` and the hex of a DER element, whose string types are
    /// decoded to text. Unescaped spaces around `,`, `+` and `=` are ignored, as many producers
    /// write `CN=A, O=B`. The empty string is the empty name.
    ///
    /// A pure function of its input that never traps: work is linear in the length, which is
    /// capped, and every failure is a ``ParseError``.
    public init(rfc4514 text: String) throws(ParseError) {
        try self.init(rfc4514UTF8: Array(text.utf8))
    }

    /// ``init(rfc4514:)`` over raw bytes, which need not be UTF-8 (a fuzzer's entry point).
    public init(rfc4514UTF8 bytes: [UInt8]) throws(ParseError) {
        guard bytes.count <= Self.maximumTextLength else { throw .tooLong(bytes: bytes.count) }
        var parser = RFC4514Parser(bytes: bytes)
        self.init(try parser.parseName().reversed())
    }
}

/// The RFC 4514 reader behind ``DistinguishedName/init(rfc4514:)``, over UTF-8 bytes.
private struct RFC4514Parser {
    let bytes: [UInt8]
    var index = 0
    var attributeCount = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpaces() {
        while current == UInt8(ascii: " ") { index += 1 }
    }

    /// The RDNs in text order (the last RDN of the name first).
    mutating func parseName() throws(DistinguishedName.ParseError) -> [RelativeDistinguishedName] {
        skipSpaces()
        guard current != nil else { return [] }
        var names: [RelativeDistinguishedName] = []
        while true {
            guard names.count < DistinguishedName.maximumRelativeNames else { throw .tooManyRelativeNames }
            names.append(try parseRelativeName())
            guard let separator = current else { return names }
            guard separator == UInt8(ascii: ",") else { throw .unexpectedCharacter(offset: index) }
            index += 1
        }
    }

    private mutating func parseRelativeName() throws(DistinguishedName.ParseError) -> RelativeDistinguishedName {
        var attributes: [NameAttribute] = []
        while true {
            guard attributeCount < DistinguishedName.maximumAttributes else { throw .tooManyAttributes }
            attributeCount += 1
            attributes.append(try parseAttribute())
            guard current == UInt8(ascii: "+") else { return RelativeDistinguishedName(attributes) }
            index += 1
        }
    }

    private mutating func parseAttribute() throws(DistinguishedName.ParseError) -> NameAttribute {
        skipSpaces()
        let typeStart = index
        while let byte = current, isTypeCharacter(byte) { index += 1 }
        guard index > typeStart else {
            if current == nil || current == UInt8(ascii: ",") || current == UInt8(ascii: "+") {
                throw .emptyRelativeName(offset: index)
            }
            throw .missingEquals(offset: index)
        }
        let type = try attributeType(Array(bytes[typeStart..<index]))
        skipSpaces()
        guard current == UInt8(ascii: "=") else { throw .missingEquals(offset: index) }
        index += 1
        skipSpaces()
        let value: NameAttribute.Value
        if current == UInt8(ascii: "#") {
            index += 1
            value = try parseHexValue()
        } else {
            value = .string(try parseStringValue())
        }
        return NameAttribute(type: type, value: value)
    }

    private func isTypeCharacter(_ byte: UInt8) -> Bool {
        isASCIILetter(byte) || isASCIIDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private func attributeType(_ raw: [UInt8]) throws(DistinguishedName.ParseError) -> NameAttributeType {
        // Only ASCII letters, digits, '-' and '.' got here, so this decoding is exact.
        var text = String(decoding: raw, as: UTF8.self)
        if text.count > 4, text.prefix(4).lowercased() == "oid." { text = String(text.dropFirst(4)) }
        guard let first = text.utf8.first else { throw .unknownAttributeType(text) }
        if isASCIIDigit(first) {
            guard Self.isDottedOID(text) else { throw .malformedOID(text) }
            return NameAttributeType(oid: text)
        }
        guard isASCIILetter(first), !text.contains("."), let type = NameAttributeType(keyword: text) else {
            throw .unknownAttributeType(text)
        }
        return type
    }

    /// `numericoid` of RFC 4512 §1.4: at least two arcs, no leading zeros, first arc 0–2.
    static func isDottedOID(_ text: String) -> Bool {
        guard text.utf8.count <= 128 else { return false }
        let arcs = text.split(separator: ".", omittingEmptySubsequences: false)
        guard arcs.count >= 2, arcs.count <= 40 else { return false }
        for arc in arcs {
            guard !arc.isEmpty, arc.utf8.count <= 20, arc.utf8.allSatisfy(isASCIIDigit) else { return false }
            if arc.utf8.count > 1, arc.utf8.first == UInt8(ascii: "0") { return false }
        }
        return arcs[0] == "0" || arcs[0] == "1" || arcs[0] == "2"
    }

    /// A text value up to an unescaped `,` or `+` or the end; unescaped trailing spaces dropped.
    private mutating func parseStringValue() throws(DistinguishedName.ParseError) -> String {
        let start = index
        var value: [UInt8] = []
        var significantLength = 0  // value.count without unescaped trailing spaces
        while let byte = current {
            switch byte {
            case UInt8(ascii: ","), UInt8(ascii: "+"):
                return try utf8String(Array(value.prefix(significantLength)), start: start)
            case UInt8(ascii: "\\"):
                value.append(try parseEscape())
                significantLength = value.count
            case UInt8(ascii: "\""), UInt8(ascii: ";"), UInt8(ascii: "<"), UInt8(ascii: ">"), 0:
                throw .unescapedSpecial(offset: index)
            case UInt8(ascii: " "):
                value.append(byte)
                index += 1
            default:
                value.append(byte)
                significantLength = value.count
                index += 1
            }
        }
        return try utf8String(Array(value.prefix(significantLength)), start: start)
    }

    /// One `\` escape: a special character, or two hex digits for one byte.
    private mutating func parseEscape() throws(DistinguishedName.ParseError) -> UInt8 {
        let escapeOffset = index
        index += 1
        guard let next = current else { throw .truncatedEscape(offset: escapeOffset) }
        if let high = hexValue(next) {
            index += 1
            guard let second = current else { throw .truncatedEscape(offset: escapeOffset) }
            guard let low = hexValue(second) else {
                // `\E` followed by a non-hex character: a single hex digit is a cut-short pair.
                throw .truncatedEscape(offset: escapeOffset)
            }
            index += 1
            return high << 4 | low
        }
        switch next {
        case UInt8(ascii: " "), UInt8(ascii: "\""), UInt8(ascii: "#"), UInt8(ascii: "+"), UInt8(ascii: ","),
            UInt8(ascii: ";"), UInt8(ascii: "<"), UInt8(ascii: "="), UInt8(ascii: ">"), UInt8(ascii: "\\"):
            index += 1
            return next
        default:
            throw .invalidEscape(offset: escapeOffset)
        }
    }

    private func utf8String(_ value: [UInt8], start: Int) throws(DistinguishedName.ParseError) -> String {
        guard let text = String(validating: value, as: UTF8.self) else { throw .invalidUTF8(offset: start) }
        return text
    }

    /// `#` and hex digits up to `,`, `+`, spaces or the end: one DER element.
    private mutating func parseHexValue() throws(DistinguishedName.ParseError) -> NameAttribute.Value {
        let start = index
        var der: [UInt8] = []
        var high: UInt8? = nil
        while let byte = current, byte != UInt8(ascii: ","), byte != UInt8(ascii: "+"), byte != UInt8(ascii: " ") {
            guard let digit = hexValue(byte) else { throw .invalidHexDigit(offset: index) }
            if let h = high {
                der.append(h << 4 | digit)
                high = nil
            } else {
                high = digit
            }
            index += 1
        }
        guard high == nil, !der.isEmpty else { throw .oddHexDigits(offset: start) }
        skipSpaces()
        return try DirectoryStringDecoder.decode(der: der)
    }
}

private func isASCIIDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

private func isASCIILetter(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
}

/// The value of one ASCII hex digit; nil for anything else (full-width digits included).
private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
