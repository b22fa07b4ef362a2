import FoundationEssentials
import Glibc

extension DistinguishedName {
    /// The name as a person reads it, as the DigiDoc clients show a signer: the given name and
    /// surname (`GN SN`; the common name when the certificate has neither), then the personal
    /// code — serialNumber without its ETSI EN 319 412-1 semantics prefix (`PNOEE-`, `IDCLV-`) —
    /// unless the name already holds it: `JAAK-KRISTJAN TESTCARD IDEMIA, 38001085718` for
    /// `CN=TESTCARD IDEMIA\,JAAK-KRISTJAN\,38001085718,SN=TESTCARD IDEMIA,GN=JAAK-KRISTJAN,
    /// serialNumber=PNOEE-38001085718,C=EE`. Nil when the name has none of these attributes.
    public var readableName: String? {
        func value(_ oid: String) -> String? { firstValue(oid: oid) }
        let personal = [value("2.5.4.42"), value("2.5.4.4")].compactMap { $0 }
        guard let name = personal.isEmpty ? value("2.5.4.3") : personal.joined(separator: " ") else { return nil }
        guard let serial = value("2.5.4.5") else { return name }
        let code = Self.withoutSemanticsPrefix(serial)
        // A common name in the ID card's `SURNAME,GIVENNAME,CODE` form (or `NAME,CODE`) is read
        // as the given-name/surname form is, so that every signer is shown one way (`NAME, CODE`),
        // not `A,CODE` for one and `B, CODE` for another.
        if personal.isEmpty {
            let parts = name.split(separator: ",").map { String($0).trimmedSpaces() }
            if parts.count > 1, parts.last == code {
                let rest = parts.dropLast().filter { !$0.isEmpty }
                let reordered =
                    rest.count == 2
                    ? "\(rest[rest.startIndex + 1]) \(rest[rest.startIndex])" : rest.joined(separator: ", ")
                return reordered.isEmpty ? code : "\(reordered), \(code)"
            }
        }
        return name.contains(code) ? name : "\(name), \(code)"
    }

    /// The text of the attribute `oid` (dotted), the last one in the name's RFC 4514 order (the
    /// most specific, as a certificate lists them); nil when absent, empty or not text.
    public func firstValue(oid: String) -> String? {
        for rdn in relativeNames.reversed() {
            for attribute in rdn.attributes where attribute.type.oid == oid {
                if case .string(let text) = attribute.value, !text.isEmpty { return text }
            }
        }
        return nil
    }

    /// `PNOEE-38001085718` → `38001085718`: three letters of semantics (PNO, IDC, PAS, TIN…),
    /// two of country, a hyphen (ETSI EN 319 412-1 §5.1.3); anything else as it is.
    public static func withoutSemanticsPrefix(_ serial: String) -> String {
        let scalars = Array(serial.unicodeScalars)
        guard scalars.count > 6, scalars[5] == "-",
            scalars[..<5].allSatisfy({ ("A"..."Z").contains($0) })
        else { return serial }
        return String(String.UnicodeScalarView(scalars[6...]))
    }

    /// `readableName` of an RFC 4514 text (as `Certificate.subject` gives it), else the text itself.
    public static func readableName(rfc4514 text: String) -> String {
        (try? DistinguishedName(rfc4514: text))?.readableName ?? text
    }
}
