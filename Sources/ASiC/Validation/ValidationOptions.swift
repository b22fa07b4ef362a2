import FoundationEssentials
import Glibc
import TamgaCore

/// What `Container.validate` checks against.
public struct ValidationOptions: Sendable {
    /// Anchors and helper certificates for the signer's chain. No anchors ⇒ status `UNKNOWN`.
    public var trust: TrustStore
    /// The time at which certificates must be valid when a signature has no time-stamp;
    /// nil means now. With a time-stamp, its genTime is used, and a time-mark's producedAt
    /// (each also at the signer certificate's notBefore), whatever this says.
    public var time: Date?
    /// Signatures below this level are INVALID. LT by default, as the reference validator
    /// judges (B and T signatures carry no proof that the certificate was valid when signing).
    /// A BDOC 2.1 time-mark counts as LT.
    public var minimumProfile: SignatureProfile

    /// A checked ETSI trusted list: CA/QC services anchor signers, TSA/QTST time-stamps,
    /// CA/QC and OCSP/QC responders, each as granted at the time in question. Qualification
    /// (QC on a QSCD) is judged only with a list.
    public var trustedList: TrustedList?
    /// Facts about the trust in use that the report must carry, as container-level findings.
    public var trustNotices: [TrustNotice] = []
    /// For DDOC only: SK's historical CAs and the OCSP responders pinned for each (the set
    /// DigiDoc4j trusts for DDOC, `DDOCTrust.builtIn`), besides `trust` and `trustedList`; nil
    /// for none.
    public var ddocTrust: DDOCTrust? = .builtIn

    /// Certificate policy OIDs that make an OCSP responder a BDOC 2.1 time-mark responder: the
    /// certificate of the responder that signed a time-mark's OCSP response must carry one.
    /// The production policy by default; test responders carry others (SK's test responders
    /// `1.3.6.1.4.1.10015.3.1.1`), which `tamga verify --tm-responder-policy` adds.
    public var timeMarkResponderPolicies: Set<String>
    /// Gather each signature's evidence (`SignatureResult.evidence`: the certificates, the
    /// time-stamps' imprints and times) for a report that lists it; off for `verify`.
    public var collectEvidence = false

    /// SK's time-mark responder policy, the only one the reference accepts by default.
    public static let productionTimeMarkResponderPolicy = "1.3.6.1.4.1.10015.4.1.2"

    public init(
        trust: TrustStore = TrustStore(), trustedList: TrustedList? = nil, time: Date? = nil,
        minimumProfile: SignatureProfile = .LT,
        timeMarkResponderPolicies: Set<String> = [ValidationOptions.productionTimeMarkResponderPolicy]
    ) {
        self.trust = trust
        self.trustedList = trustedList
        self.time = time
        self.minimumProfile = minimumProfile
        self.timeMarkResponderPolicies = timeMarkResponderPolicies
    }

    /// What is trusted for one kind of evidence at one time. PEM anchors serve every kind;
    /// a trusted list gives each kind its own services, as granted at `time`.
    func anchors(for kind: TrustedServiceKind, at time: Date) -> [Certificate] {
        guard let trustedList else { return trust.anchors }
        let kinds: Set<TrustedService.Kind> =
            switch kind {
            case .certificateAuthority: [.certificateAuthority]
            case .timeStamping: [.timeStamping]
            case .ocsp: [.certificateAuthority, .ocsp]
            }
        return trust.anchors + trustedList.certificates(of: kinds, at: time)
    }

    /// Where a signer's issuing CA certificate may be found to ask OCSP about the signer: the
    /// signature's own certificates come first (the caller adds them), then the given ones,
    /// then every CA/QC service certificate of the trusted list whatever its status, as the
    /// reference takes the issuer from the list (docs/design/asice.md §1.4). Whether that CA was trusted
    /// is judged separately, at the times that count; this only finds the certificate.
    var issuerCandidates: [Certificate] {
        trust.intermediates + trust.anchors + (trustedList?.certificates(of: [.certificateAuthority]) ?? [])
    }

    /// True when the anchors' service type alone authorises an OCSP responder (trusted lists).
    var responderTrustedByListing: Bool { trustedList != nil }
}

/// The kinds of evidence a validator needs trust for.
enum TrustedServiceKind { case certificateAuthority, timeStamping, ocsp }
