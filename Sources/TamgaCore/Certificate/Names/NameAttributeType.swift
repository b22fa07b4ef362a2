/// The type of a name attribute: an object identifier in dotted form, with the RFC 4514 /
/// OpenSSL short name people read when one is known.
public struct NameAttributeType {
    /// The dotted OID, e.g. `2.5.4.3`. Types are compared by this alone.
    public let oid: String

    public init(oid: String) { self.oid = oid }

    /// The short name for the OID (`CN`, `organizationIdentifier`, `emailAddress`), else the
    /// dotted OID itself.
    public var name: String { Self.shortNames[oid] ?? oid }

    /// The type a keyword stands for, case-insensitively (RFC 4514 §3: keywords are not case
    /// sensitive); nil for a keyword tamga does not know.
    public init?(keyword: String) {
        guard let oid = Self.oidsByKeyword[keyword.lowercased()] else { return nil }
        self.oid = oid
    }

    /// Keywords and their OIDs: RFC 4514 §3's table, X.520's other attributes seen in
    /// certificates (short and long names as OpenSSL prints them), the PKCS #9 e-mail address
    /// (`E` is how Windows and Java write it) and the EV jurisdiction attributes.
    static let keywords: [(names: [String], oid: String)] = [
        (["CN", "commonName"], "2.5.4.3"),
        (["SN", "surname"], "2.5.4.4"),
        (["serialNumber", "SERIALNUMBER"], "2.5.4.5"),
        (["C", "countryName"], "2.5.4.6"),
        (["L", "localityName"], "2.5.4.7"),
        (["ST", "stateOrProvinceName", "S"], "2.5.4.8"),
        (["street", "STREET", "streetAddress"], "2.5.4.9"),
        (["O", "organizationName"], "2.5.4.10"),
        (["OU", "organizationalUnitName"], "2.5.4.11"),
        (["title"], "2.5.4.12"),
        (["description"], "2.5.4.13"),
        (["businessCategory"], "2.5.4.15"),
        (["postalAddress"], "2.5.4.16"),
        (["postalCode"], "2.5.4.17"),
        (["telephoneNumber"], "2.5.4.20"),
        (["name"], "2.5.4.41"),
        (["GN", "givenName", "G"], "2.5.4.42"),
        (["initials"], "2.5.4.43"),
        (["generationQualifier"], "2.5.4.44"),
        (["x500UniqueIdentifier"], "2.5.4.45"),
        (["dnQualifier"], "2.5.4.46"),
        (["pseudonym"], "2.5.4.65"),
        (["role"], "2.5.4.72"),
        (["organizationIdentifier"], "2.5.4.97"),
        (["DC", "domainComponent"], "0.9.2342.19200300.100.1.25"),
        (["UID", "userId"], "0.9.2342.19200300.100.1.1"),
        (["emailAddress", "E", "email"], "1.2.840.113549.1.9.1"),
        (["unstructuredName"], "1.2.840.113549.1.9.2"),
        (["jurisdictionL", "jurisdictionLocalityName"], "1.3.6.1.4.1.311.60.2.1.1"),
        (["jurisdictionST", "jurisdictionStateOrProvinceName"], "1.3.6.1.4.1.311.60.2.1.2"),
        (["jurisdictionC", "jurisdictionCountryName"], "1.3.6.1.4.1.311.60.2.1.3"),
    ]

    static let oidsByKeyword: [String: String] = {
        var table: [String: String] = [:]
        for entry in keywords { for name in entry.names { table[name.lowercased()] = entry.oid } }
        return table
    }()

    static let shortNames: [String: String] = {
        var table: [String: String] = [:]
        for entry in keywords { table[entry.oid] = entry.names[0] }
        return table
    }()

    public static let commonName = NameAttributeType(oid: "2.5.4.3")
    public static let countryName = NameAttributeType(oid: "2.5.4.6")
    public static let organizationName = NameAttributeType(oid: "2.5.4.10")
    public static let organizationIdentifier = NameAttributeType(oid: "2.5.4.97")
    public static let emailAddress = NameAttributeType(oid: "1.2.840.113549.1.9.1")
}

extension NameAttributeType: CustomStringConvertible {
    public var description: String { name }
}

extension NameAttributeType: Hashable {}
extension NameAttributeType: Sendable {}
