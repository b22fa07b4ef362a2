/// Decodes the DER of one attribute value (an RFC 4514 `#hex` value): the directory string
/// types to text, as OpenSSL's `ASN1_STRING_to_UTF8` reads them from a certificate, and any
/// other type kept as its DER for a byte comparison.
enum DirectoryStringDecoder {
    /// Universal tags of the string types a name attribute may use.
    enum Tag: UInt8 {
        case utf8String = 0x0C
        case numericString = 0x12
        case printableString = 0x13
        case teletexString = 0x14
        case ia5String = 0x16
        case visibleString = 0x1A
        case universalString = 0x1C
        case bmpString = 0x1E
    }

    static func decode(der: [UInt8]) throws(DistinguishedName.ParseError) -> NameAttribute.Value {
        guard der.count >= 2 else { throw .malformedBER("\(der.count) byte(s) cannot hold a tag and a length") }
        let tag = der[0]
        guard tag & 0x1F != 0x1F else { throw .malformedBER("multi-byte tags are not attribute values") }
        var contentStart = 2
        var length = Int(der[1])
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1 else { throw .malformedBER("indefinite length (BER, not DER)") }
            guard count <= 3 else { throw .malformedBER("a length of \(count) bytes") }
            guard der.count >= 2 + count else { throw .malformedBER("truncated length") }
            length = 0
            for byte in der[2..<2 + count] { length = length << 8 | Int(byte) }
            guard length >= 0x80, der[2] != 0 else { throw .malformedBER("non-minimal length") }
            contentStart = 2 + count
        }
        guard der.count - contentStart == length else {
            throw .malformedBER("the length says \(length) content bytes, \(der.count - contentStart) follow")
        }
        let content = Array(der[contentStart...])
        guard let stringTag = Tag(rawValue: tag) else {
            if let primitive = Tag(rawValue: tag & ~0x20), tag & 0x20 != 0 {
                throw .malformedBER("constructed \(primitive) (BER, not DER)")
            }
            return .encoded(der)
        }
        return .string(try text(of: content, as: stringTag))
    }

    static func text(of content: [UInt8], as tag: Tag) throws(DistinguishedName.ParseError) -> String {
        switch tag {
        case .utf8String:
            guard let text = String(validating: content, as: UTF8.self) else {
                throw .invalidStringContent("UTF8String is not UTF-8")
            }
            return text
        case .printableString, .numericString, .ia5String, .visibleString:
            // The character set of each is checked no further than OpenSSL does when it reads the
            // certificate (CAs put '@' or '*' in PrintableStrings): ASCII is all that is required.
            guard content.allSatisfy({ $0 < 0x80 }) else {
                throw .invalidStringContent("\(tag) holds a byte above 0x7F")
            }
            return ascii(content)
        case .teletexString:
            // Read as ISO 8859-1, as OpenSSL and most CAs do (T.61 proper is not used in practice).
            var text = String.UnicodeScalarView()
            for byte in content { text.append(Unicode.Scalar(byte)) }
            return String(text)
        case .bmpString:
            guard content.count % 2 == 0 else { throw .invalidStringContent("BMPString has an odd number of bytes") }
            return try scalars(content, width: 2, type: "BMPString")
        case .universalString:
            guard content.count % 4 == 0 else {
                throw .invalidStringContent("UniversalString length is not a multiple of 4")
            }
            return try scalars(content, width: 4, type: "UniversalString")
        }
    }

    private static func ascii(_ content: [UInt8]) -> String {
        var text = String.UnicodeScalarView()
        for byte in content { text.append(Unicode.Scalar(byte)) }
        return String(text)
    }

    /// Big-endian code points of `width` bytes; surrogates and values above U+10FFFF refused.
    private static func scalars(
        _ content: [UInt8], width: Int, type: String
    ) throws(DistinguishedName.ParseError) -> String {
        var text = String.UnicodeScalarView()
        var index = 0
        while index + width <= content.count {
            var value: UInt32 = 0
            for byte in content[index..<index + width] { value = value << 8 | UInt32(byte) }
            guard let scalar = Unicode.Scalar(value) else {
                throw .invalidStringContent(
                    "\(type) holds U+\(String(value, radix: 16, uppercase: true)), not a Unicode scalar")
            }
            text.append(scalar)
            index += width
        }
        return String(text)
    }
}
