import FoundationEssentials
import Glibc
import TamgaCore

/// How much long-term evidence a signature carries (ETSI EN 319 132-1 baseline levels).
public enum SignatureProfile: String, Sendable, CaseIterable, Comparable, Codable {
    /// The signature alone.
    case B
    /// Plus a `SignatureTimeStamp` over the SignatureValue.
    case T
    /// Plus the issuer certificate and an OCSP response (DigiDoc's "time-stamp" profile;
    /// the lowest level the reference validator accepts).
    case LT
    /// Plus an archive time-stamp over everything (DigiDoc's "time-stamp-archive").
    case LTA

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (a: SignatureProfile, b: SignatureProfile) -> Bool { a.rank < b.rank }
}

extension SignatureProfile {
    /// The name with its article as it is read aloud: "a B", "a T", "an LT", "an LTA".
    public var withArticle: String { (self == .LT || self == .LTA ? "an " : "a ") + rawValue }
}

extension SignatureProfile {
    /// The level a signature's unsigned properties reach (LTA needs a time-stamp, revocation
    /// values and an archive time-stamp; T without revocation values stays T).
    static func detect(_ qualifying: XMLElement?) -> SignatureProfile {
        guard
            let properties = qualifying?.child("UnsignedProperties", in: XMLNamespace.xades)?
                .child("UnsignedSignatureProperties", in: XMLNamespace.xades)
        else { return .B }
        // Only XAdES elements count: look-alikes in other namespaces prove nothing.
        let names = Set(
            properties.children.filter {
                $0.namespace == XMLNamespace.xades
                    || ($0.namespace == XMLNamespace.xades141 && $0.localName == "ArchiveTimeStamp")
            }.map(\.localName))
        guard names.contains("SignatureTimeStamp") else { return .B }
        guard names.contains("RevocationValues") else { return .T }
        let archive = properties.children("ArchiveTimeStamp", in: XMLNamespace.xades141)
        return archive.isEmpty ? .LT : .LTA
    }
}

/// The network services and certificates that turn a B signature into T, LT or LTA.
public struct LongTermServices: Sendable {
    /// The TSA; required for T and above.
    public var timeStamping: TimeStampClient?
    public var ocsp: OCSPClient
    /// Overrides the certificate's AIA OCSP URL.
    public var ocspURL: URL?
    /// Certificates that may have issued the signer's (from `--certs` or a PKCS#12 chain);
    /// when none fits, the AIA caIssuers URL is tried.
    public var issuerCandidates: [Certificate]
    public var transport: HTTPTransport

    public init(
        timeStamping: TimeStampClient?, ocsp: OCSPClient = OCSPClient(), ocspURL: URL? = nil,
        issuerCandidates: [Certificate] = [], transport: HTTPTransport = HTTPTransport()
    ) {
        self.timeStamping = timeStamping
        self.ocsp = ocsp
        self.ocspURL = ocspURL
        self.issuerCandidates = issuerCandidates
        self.transport = transport
    }

    /// The issuer of `certificate`: a candidate that verifiably issued it, else one fetched
    /// from its AIA caIssuers URL (DER or PEM).
    func issuer(of certificate: Certificate) async throws -> Certificate {
        if let known = issuerCandidates.first(where: { $0.isIssuer(of: certificate) }) { return known }
        for text in certificate.caIssuerURLs {
            guard let url = URL(string: text), let data = try? await transport.get(url, service: "CA issuer download"),
                let candidate = try? Certificate(derOrPEM: data), candidate.isIssuer(of: certificate)
            else { continue }
            return candidate
        }
        throw CoreError.serviceResponseRejected(
            service: "issuer lookup", url: certificate.caIssuerURLs.first ?? "(no AIA caIssuers)",
            reason: "the signer's issuing CA certificate was not found; give it with --certs")
    }
}
