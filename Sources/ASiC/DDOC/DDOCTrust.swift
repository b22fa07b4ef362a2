import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// Whom a DDOC's signers and notaries are trusted through, besides `ValidationOptions.trust`
/// and the trusted list. SiVa reads no trusted list for DDOC: DigiDoc4j's DDOC module trusts a
/// fixed set of SK's CA certificates and, for each, the OCSP responders that may confirm its
/// certificates. `builtIn` is that set (`DDOCTrustSet`, docs/ddoc-trust.md), parsed one
/// certificate at a time when a signature needs it (parsing all 26 cost a verification more
/// than hashing a megabyte); tests give their own from the test PKI.
public struct DDOCTrust: Sendable {
    /// The CA certificates that may have issued `certificate` (the caller checks which did).
    let issuers: @Sendable (Certificate) -> [Certificate]
    /// The responders pinned for a CA (matched by certificate, not by name).
    let responders: @Sendable (Certificate) -> [Certificate]

    /// A set given whole: CA and root certificates, and each pinned responder with its CAs.
    public init(certificateAuthorities: [Certificate], responders: [(responder: Certificate, issuers: [Certificate])]) {
        issuers = { _ in certificateAuthorities }
        self.responders = { issuer in responders.filter { $0.issuers.contains(issuer) }.map(\.responder) }
    }

    init(
        issuers: @escaping @Sendable (Certificate) -> [Certificate],
        responders: @escaping @Sendable (Certificate) -> [Certificate]
    ) {
        self.issuers = issuers
        self.responders = responders
    }

    func responders(for issuer: Certificate) -> [Certificate] { responders(issuer) }

    /// SK's historical CAs and responders (`DDOCTrustSet`), on by default for DDOC only.
    public static let builtIn = DDOCTrust(
        issuers: { DDOCTrustSet.certificateAuthorities(named: Self.issuerCommonName(of: $0)) },
        responders: { DDOCTrustSet.pinnedResponders(forIssuer: $0) })

    /// The CN of a certificate's issuer (its RFC 2253 form; SK's CA names hold no escapes).
    static func issuerCommonName(of certificate: Certificate) -> String {
        for part in certificate.issuer.split(separator: ",") where part.hasPrefix("CN=") {
            return String(part.dropFirst(3))
        }
        return ""
    }
}

extension DDOCTrustSet {
    /// Each entry's certificate, parsed on first use and kept; nil when its DER is not the
    /// certificate its fingerprint names (a build defect the tests catch).
    private static let lazyCache = LazyCertificates()

    static func certificate(at index: Int) -> Certificate? { lazyCache.certificate(at: index) }

    /// The CA and root certificates of the set whose subject CN is `name`.
    static func certificateAuthorities(named name: String) -> [Certificate] {
        entries.indices.filter { entries[$0].role != .ocspResponder && entries[$0].name == name }.compactMap(
            certificate(at:))
    }

    /// The responders paired with `ca`, parsed only when asked for.
    static func pinnedResponders(forIssuer ca: Certificate) -> [Certificate] {
        let key = fingerprint(of: ca)
        let wanted = Set(pairings.filter { $0.ca == key }.flatMap(\.responders))
        return entries.indices.filter { wanted.contains(entries[$0].sha256) }.compactMap(certificate(at:))
    }

    private final class LazyCertificates: @unchecked Sendable {  // unchecked: `parsed` behind `lock`
        private let lock = Lock()
        private var parsed: [Int: Certificate?] = [:]

        func certificate(at index: Int) -> Certificate? {
            if let known = lock.withLock({ parsed[index] }) { return known }
            let entry = DDOCTrustSet.entries[index]
            let certificate = (try? Certificate.parseAll(pem: Data(entry.pem.utf8)))?.first.flatMap {
                DDOCTrustSet.fingerprint(of: $0) == entry.sha256 ? $0 : nil
            }
            lock.withLock { parsed[index] = certificate }
            return certificate
        }
    }
}
