import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// The four DigiDoc XML formats (`SignedDoc`'s format and version attributes), with what
/// differs between them when a digest is computed (docs/design/ddoc.md §1, §3, §4): which
/// namespace the digest of a DataFile, SignedProperties and SignedInfo is taken with, how times
/// are written, where the notary's elements sit.
public enum DigiDocVersion: String, Sendable, Codable, CaseIterable {
    case skXML10 = "SK-XML 1.0"
    case digiDoc11 = "DIGIDOC-XML 1.1"
    case digiDoc12 = "DIGIDOC-XML 1.2"
    case digiDoc13 = "DIGIDOC-XML 1.3"

    static let namespace13 = "http://www.sk.ee/DigiDoc/v1.3.0#"
    static let xades111 = "http://uri.etsi.org/01903/v1.1.1#"

    init?(format: String, version: String) {
        switch (format, version) {
        case ("SK-XML", "1.0"): self = .skXML10
        case ("DIGIDOC-XML", "1.1"): self = .digiDoc11
        case ("DIGIDOC-XML", "1.2"): self = .digiDoc12
        case ("DIGIDOC-XML", "1.3"): self = .digiDoc13
        default: return nil
        }
    }

    /// SiVa's `signatureForm` for a document in this format (`DIGIDOC_XML_1.3`, and `_hashcode`
    /// when a data file is in hashcode form); SK-XML 1.0 is `DIGIDOC_XML_1.0` there too.
    func signatureForm(hashcode: Bool) -> String {
        let number = rawValue.split(separator: " ").last.map(String.init) ?? ""
        return "DIGIDOC_XML_\(number)" + (hashcode ? "_hashcode" : "")
    }

    /// What DigiDoc4j reports as "Old and unsupported format" (a warning in SiVa).
    var isOld: Bool { self != .digiDoc13 }

    /// The default namespace a DataFile's start tag is canonicalised with when it declares none:
    /// 1.3 files inherit the SignedDoc namespace (both reference libraries inject it); older
    /// versions have none.
    var dataFileNamespace: String? { self == .digiDoc13 ? Self.namespace13 : nil }

    /// The namespace SignedInfo and SignedProperties are canonicalised with when they declare
    /// none: xmldsig for 1.1 and 1.2 (injected by both libraries, the inherited one in the
    /// document); nothing for 1.3 (its files declare their own) or SK-XML 1.0 (hashed without).
    var signedPartsNamespace: String? {
        switch self {
        case .digiDoc11, .digiDoc12: XMLNamespace.ds
        case .skXML10, .digiDoc13: nil
        }
    }

    /// The namespace of the elements under QualifyingProperties.
    var qualifyingNamespace: String { self == .digiDoc13 ? Self.xades111 : XMLNamespace.ds }

    /// The OCSPRef digest: 1.0 and 1.1 wrote wrong ones, which both libraries recompute instead
    /// of checking.
    var checksNotaryDigest: Bool { self == .digiDoc12 || self == .digiDoc13 }

    /// SigningTime and ProducedAt as written: `2005-02-11T16:23:21Z` in 1.3, `2006.06.26T12:15:40Z`
    /// in 1.1 and 1.2, a local time with a (sign-inverted) offset in SK-XML 1.0.
    func parseTime(_ text: String) -> Date? {
        let trimmed = text.trimmed()
        switch self {
        case .digiDoc13:
            return XSDDateTime.parse(trimmed)
        case .digiDoc11, .digiDoc12:
            return XSDDateTime.parse(trimmed.replacingDottedDate())
        case .skXML10:
            // A local time whose offset has the POSIX `timezone` sign (libdigidoc 1.x wrote it):
            // `14:10:47-03:00` is 11:10:47 UTC, as the notary's own producedAt shows. Read with
            // the sign turned; the claimed time only, never a verdict (the notary's time counts).
            var text = Array(trimmed.replacingDottedDate())
            if text.count == 25, text[19] == "+" || text[19] == "-" { text[19] = text[19] == "+" ? "-" : "+" }
            return XSDDateTime.parse(String(text))
        }
    }

    /// `producedAt` as this version writes it into OCSPRef/ProducedAt.
    func format(_ date: Date) -> String {
        let iso = XSDDateTime.format(date)  // 2005-02-11T16:23:21Z
        switch self {
        case .digiDoc13: return iso
        case .digiDoc11, .digiDoc12, .skXML10:
            var characters = Array(iso)
            if characters.count > 7 {
                characters[4] = "."
                characters[7] = "."
            }
            return String(characters)
        }
    }
}

private extension String {
    /// `2006.06.26T…` → `2006-06-26T…`.
    func replacingDottedDate() -> String {
        var characters = Array(self)
        if characters.count > 7, characters[4] == ".", characters[7] == "." {
            characters[4] = "-"
            characters[7] = "-"
        }
        return String(characters)
    }
}
