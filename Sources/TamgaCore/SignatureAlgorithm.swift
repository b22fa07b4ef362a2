import FoundationEssentials
import Glibc

/// How a key signs a digest: ECDSA on a named curve, RSA PKCS#1 v1.5, or RSA-PSS.
/// A struct over a private enum so that new algorithms never break callers.
public struct SignatureAlgorithm: Sendable, Hashable {
    /// A NIST prime curve, named as its OpenSSL short name names it.
    public enum Curve: String, Sendable, Hashable, Codable {
        case p256 = "P-256"
        case p384 = "P-384"
        case p521 = "P-521"

        /// Field size in bytes: each of r and s in a raw ECDSA signature is exactly this long.
        public var fieldSize: Int {
            switch self {
            case .p256: 32
            case .p384: 48
            case .p521: 66
            }
        }

        /// The hash the reference pairs with this curve when no method is forced (docs/design/asice.md §1.3).
        public var defaultDigest: DigestAlgorithm {
            switch self {
            case .p256: .sha256
            case .p384: .sha384
            case .p521: .sha512
            }
        }
    }

    enum Kind: Hashable {
        case ecdsa(Curve)
        case rsaPKCS1
        case rsaPSS
    }

    let kind: Kind
    /// The hash over SignedInfo that this algorithm signs.
    public let digest: DigestAlgorithm

    /// ECDSA with the given curve and hash (raw r‖s output, 2 × field size bytes).
    public static func ecdsa(_ curve: Curve, _ digest: DigestAlgorithm) -> SignatureAlgorithm {
        SignatureAlgorithm(kind: .ecdsa(curve), digest: digest)
    }
    /// RSASSA-PKCS1-v1_5 with the given hash.
    public static func rsaPKCS1(_ digest: DigestAlgorithm) -> SignatureAlgorithm {
        SignatureAlgorithm(kind: .rsaPKCS1, digest: digest)
    }
    /// RSASSA-PSS with MGF1 over the same hash and a salt as long as the hash (RFC 6931 §2.3.10).
    public static func rsaPSS(_ digest: DigestAlgorithm) -> SignatureAlgorithm {
        SignatureAlgorithm(kind: .rsaPSS, digest: digest)
    }

    public static let ecdsaP256SHA256 = ecdsa(.p256, .sha256)
    public static let ecdsaP384SHA384 = ecdsa(.p384, .sha384)
    public static let rsaPKCS1SHA256 = rsaPKCS1(.sha256)
    public static let rsaPKCS1SHA384 = rsaPKCS1(.sha384)
    public static let rsaPKCS1SHA512 = rsaPKCS1(.sha512)
    public static let rsaPSSSHA256 = rsaPSS(.sha256)

    /// The curve for ECDSA, nil for RSA.
    public var curve: Curve? {
        if case .ecdsa(let c) = kind { return c }
        return nil
    }
    public var isECDSA: Bool { curve != nil }
    public var isRSAPSS: Bool { kind == .rsaPSS }

    /// The `ds:SignatureMethod/@Algorithm` URI.
    public var xmlURI: String {
        switch kind {
        case .ecdsa:
            "http://www.w3.org/2001/04/xmldsig-more#ecdsa-\(digest.rawValue)"
        case .rsaPKCS1:
            digest == .sha1
                ? "http://www.w3.org/2000/09/xmldsig#rsa-sha1"
                : "http://www.w3.org/2001/04/xmldsig-more#rsa-\(digest.rawValue)"
        case .rsaPSS:
            "http://www.w3.org/2007/05/xmldsig-more#\(digest.rawValue)-rsa-MGF1"
        }
    }

    /// Parses a `SignatureMethod` URI. For ECDSA the curve comes from the key, not the URI.
    public init?(xmlURI uri: String, curve: Curve?) {
        let ecPrefix = "http://www.w3.org/2001/04/xmldsig-more#ecdsa-"
        let rsaPrefix = "http://www.w3.org/2001/04/xmldsig-more#rsa-"
        let pssPrefix = "http://www.w3.org/2007/05/xmldsig-more#"
        if uri.hasPrefix(ecPrefix), let d = DigestAlgorithm(rawValue: String(uri.dropFirst(ecPrefix.count))) {
            guard let curve else { return nil }
            self.init(kind: .ecdsa(curve), digest: d)
        } else if uri == "http://www.w3.org/2000/09/xmldsig#rsa-sha1" {
            self.init(kind: .rsaPKCS1, digest: .sha1)
        } else if uri.hasPrefix(rsaPrefix), let d = DigestAlgorithm(rawValue: String(uri.dropFirst(rsaPrefix.count))) {
            self.init(kind: .rsaPKCS1, digest: d)
        } else if uri.hasPrefix(pssPrefix), uri.hasSuffix("-rsa-MGF1"),
            let d = DigestAlgorithm(rawValue: String(uri.dropFirst(pssPrefix.count).dropLast("-rsa-MGF1".count)))
        {
            self.init(kind: .rsaPSS, digest: d)
        } else {
            return nil
        }
    }

    init(kind: Kind, digest: DigestAlgorithm) {
        self.kind = kind
        self.digest = digest
    }
}

extension SignatureAlgorithm: CustomStringConvertible {
    public var description: String {
        switch kind {
        case .ecdsa(let curve): "ECDSA \(curve.rawValue) with \(digest)"
        case .rsaPKCS1: "RSA PKCS#1 v1.5 with \(digest)"
        case .rsaPSS: "RSA-PSS with \(digest)"
        }
    }
}
