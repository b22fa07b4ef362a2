/// One RDN of a distinguished name: a set of attributes (usually one; several form a
/// multi-valued RDN such as `CN=Multi CA+serialNumber=123`). The order inside the set carries no
/// meaning, so matching ignores it.
public struct RelativeDistinguishedName {
    public let attributes: [NameAttribute]

    public init(_ attributes: [NameAttribute]) { self.attributes = attributes }

    /// True when both hold the same attributes, in any order (RFC 5280 §7.1).
    public func matches(_ other: RelativeDistinguishedName) -> Bool {
        guard attributes.count == other.attributes.count else { return false }
        // Preparation makes matching an equality of keys, so sorted keys compare the two sets.
        return attributes.map(\.comparisonKey).sorted() == other.attributes.map(\.comparisonKey).sorted()
    }
}

extension RelativeDistinguishedName: CustomStringConvertible {
    public var description: String { attributes.map(\.description).joined(separator: "+") }
}

extension RelativeDistinguishedName: Hashable {}
extension RelativeDistinguishedName: Sendable {}
