import FoundationEssentials
import Glibc

/// A hash function, named as XML-DSig names it.
public enum DigestAlgorithm: String, Sendable, CaseIterable, Codable {
    case sha1, sha224, sha256, sha384, sha512

    /// Output length in bytes.
    public var length: Int {
        switch self {
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The XML-DSig `DigestMethod/@Algorithm` URI (the forms libdigidocpp writes and reads).
    public var xmlURI: String {
        switch self {
        case .sha1: "http://www.w3.org/2000/09/xmldsig#sha1"
        case .sha224: "http://www.w3.org/2001/04/xmldsig-more#sha224"
        case .sha256: "http://www.w3.org/2001/04/xmlenc#sha256"
        case .sha384: "http://www.w3.org/2001/04/xmldsig-more#sha384"
        case .sha512: "http://www.w3.org/2001/04/xmlenc#sha512"
        }
    }

    /// Parses a `DigestMethod/@Algorithm` URI; nil when tamga does not know it.
    public init?(xmlURI uri: String) {
        switch uri {
        case "http://www.w3.org/2000/09/xmldsig#sha1": self = .sha1
        case "http://www.w3.org/2001/04/xmldsig-more#sha224": self = .sha224
        case "http://www.w3.org/2001/04/xmlenc#sha256": self = .sha256
        case "http://www.w3.org/2001/04/xmldsig-more#sha384", "http://www.w3.org/2001/04/xmlenc#sha384": self = .sha384
        case "http://www.w3.org/2001/04/xmlenc#sha512": self = .sha512
        default: return nil
        }
    }

    /// SHA-1 and SHA-224 are read for old containers but reported as weak and never written.
    public var isWeak: Bool { self == .sha1 || self == .sha224 }

    /// The hash's object identifier, dotted (NIST's hash arc for the SHA-2 family).
    public var oid: String {
        switch self {
        case .sha1: "1.3.14.3.2.26"
        case .sha224: "2.16.840.1.101.3.4.2.4"
        case .sha256: "2.16.840.1.101.3.4.2.1"
        case .sha384: "2.16.840.1.101.3.4.2.2"
        case .sha512: "2.16.840.1.101.3.4.2.3"
        }
    }

    /// The hash named by a dotted OID; nil for one tamga does not compute (MD5, SHA-3…).
    public init?(oid: String) {
        guard let algorithm = Self.allCases.first(where: { $0.oid == oid }) else { return nil }
        self = algorithm
    }

    /// DER `AlgorithmIdentifier { oid, NULL }`, as PKCS#1 v1.5, RFC 3161 message imprints and
    /// BDOC time-mark nonces write it: the one table of these bytes in tamga.
    public var algorithmIdentifierDER: [UInt8] {
        let content: [UInt8] =
            switch self {
            case .sha1: [0x2b, 0x0e, 0x03, 0x02, 0x1a]
            case .sha224: [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x04]
            case .sha256: [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01]
            case .sha384: [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02]
            case .sha512: [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03]
            }
        let identifier = [0x06, UInt8(content.count)] + content
        return [0x30, UInt8(identifier.count + 2)] + identifier + [0x05, 0x00]
    }

    /// The DER `DigestInfo` (RFC 8017 §9.2 note 1), also an RFC 3161 `MessageImprint`, up to the
    /// hash itself: what PKCS#1 v1.5 puts before the hash. Every length here is under 128, so
    /// each is one byte.
    public var digestInfoPrefix: [UInt8] {
        let identifier = algorithmIdentifierDER
        return [0x30, UInt8(identifier.count + 2 + length)] + identifier + [0x04, UInt8(length)]
    }
}

extension DigestAlgorithm: CustomStringConvertible {
    public var description: String {
        switch self {
        case .sha1: "SHA-1"
        case .sha224: "SHA-224"
        case .sha256: "SHA-256"
        case .sha384: "SHA-384"
        case .sha512: "SHA-512"
        }
    }
}
