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

    /// The DER `DigestInfo` prefix that PKCS#1 v1.5 puts before the hash (RFC 8017 §9.2 note 1).
    public var digestInfoPrefix: [UInt8] {
        switch self {
        case .sha1: [0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2b, 0x0e, 0x03, 0x02, 0x1a, 0x05, 0x00, 0x04, 0x14]
        case .sha224:
            [
                0x30, 0x2d, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x04, 0x05, 0x00,
                0x04, 0x1c,
            ]
        case .sha256:
            [
                0x30, 0x31, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00,
                0x04, 0x20,
            ]
        case .sha384:
            [
                0x30, 0x41, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0x05, 0x00,
                0x04, 0x30,
            ]
        case .sha512:
            [
                0x30, 0x51, 0x30, 0x0d, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00,
                0x04, 0x40,
            ]
        }
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
