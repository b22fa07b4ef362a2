import FoundationEssentials
import Glibc
import TamgaSupport

extension Certificate {
    /// The issuer as an X.500 name (RDNs in DER order), read from the certificate by OpenSSL.
    public var issuerName: DistinguishedName { handle.issuerName }

    /// The subject as an X.500 name (RDNs in DER order).
    public var subjectName: DistinguishedName { handle.subjectName }

    /// The longest `X509SerialNumber` read, in characters (a 20-byte serial has 49 digits).
    static let maximumSerialNumberText = 256

    /// Compares a XAdES v1 `IssuerSerial` with this certificate: the issuer as a name (RFC 5280
    /// §7.1), the serial as an integer.
    ///
    /// - Parameters:
    ///   - issuerName: the `X509IssuerName` text, an RFC 4514 string. Its RDNs may come in
    ///     RFC 4514 order (the last RDN first, as OpenSSL and the reference write) or in DER order
    ///     (as some producers write); no other permutation matches.
    ///   - serialNumber: the `X509SerialNumber` text, an xsd:integer in decimal: surrounding XML
    ///     whitespace, a sign and leading zeros are allowed; hex, inner spaces or other text are
    ///     refused.
    public func compareIssuerSerial(issuerName text: String, serialNumber: String) -> IssuerSerialComparison {
        let parsed: DistinguishedName
        do {
            parsed = try DistinguishedName(rfc4514: Self.trimmedXMLText(text))
        } catch {
            return .malformedIssuerName(error)
        }
        let trimmed = serialNumber.trimmed()
        guard let given = Self.canonicalDecimal(trimmed) else {
            let shown = trimmed.count > 40 ? String(trimmed.prefix(40)) + "…" : trimmed
            return .malformedSerialNumber("'\(shown)' is not a decimal integer")
        }
        let issuer = issuerName
        guard parsed.matches(issuer) || parsed.reversed.matches(issuer) else { return .issuerDiffers }
        guard given == Self.canonicalDecimal(self.serialNumber) else { return .serialDiffers }
        return .matches
    }

    /// Compares a XAdES `IssuerSerialV2` (the DER of an RFC 5035 `IssuerSerial`) with this
    /// certificate: its one directoryName as a name (what `X509_NAME_cmp` decides), its serial as
    /// an integer.
    /// The element's text without the white space XML formatting puts around it. A space that
    /// ends the name escaped (`CN=Name\ `, RFC 4514's form of a value ending in a space) is part
    /// of the name and stays: trimming it would leave a lone `\`, a malformed name. Linear: an
    /// escaped space stops the loop.
    static func trimmedXMLText(_ text: String) -> String {
        let leading = text.drop(while: \.isWhitespace)
        var end = leading.endIndex
        while end > leading.startIndex {
            let last = leading.index(before: end)
            guard leading[last].isWhitespace else { break }
            var backslashes = 0
            var cursor = last
            while cursor > leading.startIndex {
                let previous = leading.index(before: cursor)
                guard leading[previous] == "\\" else { break }
                backslashes += 1
                cursor = previous
            }
            if backslashes % 2 == 1 { break }
            end = last
        }
        return String(leading[..<end])
    }

    public func compareIssuerSerialV2(der: Data) -> IssuerSerialComparison {
        let nameDER: [UInt8], serial: [UInt8]
        do {
            var outer = DERReader([UInt8](der))
            var issuerSerial = DERReader(try outer.read(tag: 0x30))
            guard outer.isAtEnd else { return .malformedIssuerSerialV2("bytes after the IssuerSerial") }
            var generalNames = DERReader(try issuerSerial.read(tag: 0x30))
            nameDER = try generalNames.read(tag: 0xA4)  // directoryName [4] EXPLICIT Name
            guard generalNames.isAtEnd else { return .malformedIssuerSerialV2("more than one GeneralName") }
            serial = try issuerSerial.read(tag: 0x02)
            if !issuerSerial.isAtEnd { _ = try issuerSerial.read(tag: 0x03) }  // issuerUID, not compared
            guard issuerSerial.isAtEnd, !serial.isEmpty else { return .malformedIssuerSerialV2("unexpected fields") }
        } catch {
            return .malformedIssuerSerialV2("\(error)")
        }
        guard let name = X509NameReader.name(der: nameDER) else {
            return .malformedIssuerSerialV2("the directoryName is not a DER Name")
        }
        guard name.matches(issuerName) else { return .issuerDiffers }
        guard Self.minimalInteger(serial) == Self.minimalInteger([UInt8](serialDER)) else { return .serialDiffers }
        return .matches
    }

    /// An xsd:integer in canonical decimal (no `+`, no leading zeros, `0` unsigned); nil for
    /// anything else, including non-ASCII digits.
    static func canonicalDecimal(_ text: String) -> String? {
        var digits = Substring(text)
        guard digits.utf8.count <= maximumSerialNumberText else { return nil }
        var negative = false
        if digits.first == "-" || digits.first == "+" {
            negative = digits.first == "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        let significant = digits.drop(while: { $0 == "0" })
        if significant.isEmpty { return "0" }
        return (negative ? "-" : "") + significant
    }

    /// INTEGER content octets without redundant leading sign bytes (BER allows them, DER not).
    static func minimalInteger(_ content: [UInt8]) -> [UInt8] {
        var start = 0
        while start + 1 < content.count,
            (content[start] == 0x00 && content[start + 1] & 0x80 == 0)
                || (content[start] == 0xFF && content[start + 1] & 0x80 != 0)
        {
            start += 1
        }
        return Array(content[start...])
    }
}
