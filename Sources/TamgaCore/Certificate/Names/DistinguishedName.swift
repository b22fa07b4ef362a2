import FoundationEssentials
import Glibc

/// An X.500 distinguished name: the relative distinguished names (RDNs) in **DER order**, the
/// most significant first (`C=EE` before `CN=…`), as a certificate's `issuer` and `subject`
/// hold them.
///
/// Two names are compared with ``matches(_:)``, the RFC 5280 §7.1 rule: the same number of
/// RDNs, in the same order; each RDN the same set of attributes; attribute types by OID; string
/// values after the RFC 4518 LDAP string preparation (Unicode compatibility normalisation,
/// case folding, insignificant spaces), so that `CN=Test CA` written by one tool matches the
/// PrintableString `test  ca` of another. `==` is exact structural equality, not name matching.
public struct DistinguishedName {
    /// The RDNs, most significant first (the DER order, the reverse of RFC 4514 text).
    public let relativeNames: [RelativeDistinguishedName]

    public init(_ relativeNames: [RelativeDistinguishedName]) { self.relativeNames = relativeNames }

    /// The empty name (no RDN), which RFC 4514 writes as the empty string.
    public var isEmpty: Bool { relativeNames.isEmpty }

    /// The same RDNs in the opposite order: what a producer that writes the DER order (most
    /// significant first) into an RFC 4514 string meant.
    public var reversed: DistinguishedName { DistinguishedName(relativeNames.reversed()) }

    /// True when the two are the same name under RFC 5280 §7.1: same RDN count and order, each
    /// RDN the same set of attributes, attribute values compared after RFC 4518 preparation.
    public func matches(_ other: DistinguishedName) -> Bool {
        guard relativeNames.count == other.relativeNames.count else { return false }
        return zip(relativeNames, other.relativeNames).allSatisfy { $0.matches($1) }
    }
}

extension DistinguishedName: CustomStringConvertible {
    /// The RFC 4514 text: the last RDN first, `+` between the attributes of one RDN, short names
    /// where one is known, values escaped; non-string values as `#` and their DER in hex.
    public var description: String {
        relativeNames.reversed().map(\.description).joined(separator: ",")
    }
}

extension DistinguishedName: Hashable {}
extension DistinguishedName: Sendable {}
