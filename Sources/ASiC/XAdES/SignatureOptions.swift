import FoundationEssentials
import Glibc
import TamgaCore

/// What the signer declares in the signed properties besides the certificate and the time.
public struct SignatureOptions: Sendable {
    /// Which XAdES element identifies the signing certificate.
    public enum CertificateReference: String, Sendable {
        /// `SigningCertificate` with `IssuerSerial` (XAdES 1.3.2; libdigidocpp's default).
        case v1
        /// `SigningCertificateV2` with `IssuerSerialV2`, plus the V2 forms of place and role
        /// (ETSI EN 319 132-1 baseline; what libdigidocpp calls the EN profile).
        case v2
    }

    /// `SignatureProductionPlace(V2)`: all parts optional.
    public struct ProductionPlace: Sendable, Equatable {
        public var city: String?
        public var streetAddress: String?
        public var stateOrProvince: String?
        public var postalCode: String?
        public var countryName: String?
        public init(
            city: String? = nil, streetAddress: String? = nil, stateOrProvince: String? = nil,
            postalCode: String? = nil, countryName: String? = nil
        ) {
            self.city = city
            self.streetAddress = streetAddress
            self.stateOrProvince = stateOrProvince
            self.postalCode = postalCode
            self.countryName = countryName
        }
        var isEmpty: Bool {
            [city, streetAddress, stateOrProvince, postalCode, countryName].allSatisfy { $0?.isEmpty ?? true }
        }
    }

    /// B, T, LT (default: the lowest level the reference validator accepts) or LTA.
    /// T and above need `LongTermServices` with a TSA.
    public var profile: SignatureProfile
    public var roles: [String]
    public var productionPlace: ProductionPlace?
    public var certificateReference: CertificateReference
    /// The hash for data-file and SignedProperties references (not the signature's own hash).
    public var referenceDigest: TamgaDigestChoice
    /// Overrides the signing time (tests); nil means now.
    public var signingTime: Date?

    public init(
        profile: SignatureProfile = .LT, roles: [String] = [], productionPlace: ProductionPlace? = nil,
        certificateReference: CertificateReference = .v2, referenceDigest: TamgaDigestChoice = .sha256,
        signingTime: Date? = nil
    ) {
        self.profile = profile
        self.roles = roles
        self.productionPlace = productionPlace
        self.certificateReference = certificateReference
        self.referenceDigest = referenceDigest
        self.signingTime = signingTime
    }
}

extension SignatureOptions {
    /// Baseline B only: no time-stamp, no revocation data (the reference validator calls such
    /// signatures invalid; useful for tests, or to extend later with `Container.extend`).
    public static var baselineB: SignatureOptions { SignatureOptions(profile: .B) }
}

/// The reference digests tamga writes (never SHA-1 or SHA-224).
public enum TamgaDigestChoice: String, Sendable {
    case sha256, sha384, sha512
    var algorithm: DigestAlgorithm { DigestAlgorithm(rawValue: rawValue)! }
}
