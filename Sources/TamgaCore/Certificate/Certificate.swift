import FoundationEssentials
import Glibc

/// An X.509 certificate, immutable, keeping the exact DER it was parsed from: digests such as
/// XAdES `CertDigest` are taken over these bytes, never over a re-encoding.
public struct Certificate: Sendable {
    /// The DER encoding exactly as read.
    public let der: Data
    /// Subject DN, RFC 2253 order (most significant RDN last, e.g. `CN=…,C=EE`), UTF-8 unescaped.
    public let subject: String
    /// Issuer DN in the same form; this is the string XAdES `X509IssuerName` carries.
    public let issuer: String
    /// The subject's commonName, if any.
    public let commonName: String?
    /// The serial number in decimal (XAdES `X509SerialNumber`).
    public let serialNumber: String
    public let notBefore: Date
    public let notAfter: Date
    /// `keyUsage` bits; nil when the certificate has no keyUsage extension.
    public let keyUsage: KeyUsage?
    /// OCSP responder URLs from the Authority Information Access extension.
    public let ocspURLs: [String]
    /// CA issuer URLs from the Authority Information Access extension.
    public let caIssuerURLs: [String]
    /// True for a CA certificate (basicConstraints cA).
    public let isCA: Bool
    public let publicKey: PublicKey
    /// DER of the issuer `Name` (for XAdES `IssuerSerialV2`).
    let issuerNameDER: Data
    /// DER content octets of the serial INTEGER (for XAdES `IssuerSerialV2`).
    let serialDER: Data
    let handle: X509Handle

    /// Parses one DER certificate.
    public init(der: Data) throws {
        guard let handle = X509Handle.parse(der: der) else {
            throw CoreError.malformedCertificate("not a DER X.509 certificate")
        }
        try self.init(handle: handle)
    }

    /// Parses a certificate from DER or PEM bytes (the first certificate of a PEM bundle).
    public init(derOrPEM bytes: Data) throws {
        if let first = try Certificate.parseAll(pem: bytes).first {
            self = first
        } else {
            try self.init(der: bytes)
        }
    }

    /// Every certificate in a PEM bundle, in order. Empty when the bytes hold no PEM certificate.
    public static func parseAll(pem: Data) throws -> [Certificate] {
        try X509Handle.parsePEMBundle(pem).map { try Certificate(handle: $0) }
    }

    init(handle: X509Handle) throws {
        self.handle = handle
        der = handle.derBytes
        subject = handle.subjectString
        issuer = handle.issuerString
        commonName = handle.subjectCommonName
        serialNumber = handle.serialDecimal
        guard let nb = handle.notBefore, let na = handle.notAfter else {
            throw CoreError.malformedCertificate("unreadable validity dates")
        }
        notBefore = nb
        notAfter = na
        keyUsage = handle.keyUsageBits.map { KeyUsage(rawValue: $0) }
        let aia = handle.authorityInformationAccess
        ocspURLs = aia.ocsp
        caIssuerURLs = aia.caIssuers
        isCA = handle.isCA
        guard let key = handle.publicKey else { throw CoreError.malformedCertificate("unreadable public key") }
        publicKey = PublicKey(handle: key)
        issuerNameDER = handle.issuerNameDER
        serialDER = handle.serialContentDER
    }

    /// SHA-256 over the DER, the form shown to people and used in XAdES by default.
    public var sha256Fingerprint: Digest { Digest.compute(.sha256, over: der) }

    /// The digest of the DER with any algorithm (XAdES `CertDigest`).
    public func fingerprint(_ algorithm: DigestAlgorithm) -> Digest { Digest.compute(algorithm, over: der) }

    /// True when `date` lies within notBefore…notAfter.
    public func isValid(at date: Date) -> Bool { date >= notBefore && date <= notAfter }

    /// True when `self` issued `certificate`: names match and `self`'s key verifies its signature.
    public func isIssuer(of certificate: Certificate) -> Bool { handle.issued(certificate.handle) }

    /// True when the subject DN equals the issuer DN (a root or other self-issued certificate).
    public var isSelfIssued: Bool { subject == issuer }

    /// The certificate in PEM form.
    public var pem: String {
        let body = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
    }

    /// DER of `IssuerSerial ::= SEQUENCE { issuer GeneralNames, serialNumber INTEGER }` (RFC 5035),
    /// the value of XAdES `IssuerSerialV2`.
    public var issuerSerialDER: Data {
        let directoryName = [UInt8](derTLV(0xA4, [UInt8](issuerNameDER)))  // [4] EXPLICIT Name
        let generalNames = derTLV(0x30, directoryName)
        let serial = derTLV(0x02, [UInt8](serialDER))
        return Data(derTLV(0x30, generalNames + serial))
    }

    private func derTLV(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag] + ECDSASignature.derLength(content.count) + content
    }
}

extension Certificate: Equatable, Hashable {
    public static func == (a: Certificate, b: Certificate) -> Bool { a.der == b.der }
    public func hash(into hasher: inout Hasher) { hasher.combine(der) }
}

extension Certificate: CustomStringConvertible {
    public var description: String {
        "\(subject) (serial \(serialNumber), issued by \(issuer), \(publicKey.description))"
    }
}
