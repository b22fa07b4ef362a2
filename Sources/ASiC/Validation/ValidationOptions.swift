import Foundation
import TamgaCore

/// What `Container.validate` checks against.
public struct ValidationOptions: Sendable {
    /// Anchors and helper certificates for the signer's chain. No anchors ⇒ status `UNKNOWN`.
    public var trust: TrustStore
    /// The time at which certificates must be valid when a signature has no time-stamp;
    /// nil means now. With a time-stamp, its genTime is used.
    public var time: Date?
    /// Signatures below this level are INVALID. LT by default, as the reference validator
    /// judges (B and T signatures carry no proof that the certificate was valid when signing).
    public var minimumProfile: SignatureProfile

    /// A checked ETSI trusted list: CA/QC services anchor signers, TSA/QTST time-stamps,
    /// CA/QC and OCSP/QC responders, each as granted at the time in question. Qualification
    /// (QC on a QSCD) is judged only with a list.
    public var trustedList: TrustedList?
    /// Facts about the trust in use that the report must carry, as container-level findings.
    public var trustNotices: [TrustNotice] = []

    public init(trust: TrustStore = TrustStore(), trustedList: TrustedList? = nil, time: Date? = nil,
                minimumProfile: SignatureProfile = .LT) {
        self.trust = trust
        self.trustedList = trustedList
        self.time = time
        self.minimumProfile = minimumProfile
    }

    /// What is trusted for one kind of evidence at one time. PEM anchors serve every kind;
    /// a trusted list gives each kind its own services, as granted at `time`.
    func anchors(for kind: TrustedServiceKind, at time: Date) -> [Certificate] {
        guard let trustedList else { return trust.anchors }
        let kinds: Set<TrustedService.Kind> = switch kind {
        case .certificateAuthority: [.certificateAuthority]
        case .timeStamping: [.timeStamping]
        case .ocsp: [.certificateAuthority, .ocsp]
        }
        return trust.anchors + trustedList.certificates(of: kinds, at: time)
    }

    /// True when the anchors' service type alone authorises an OCSP responder (trusted lists).
    var responderTrustedByListing: Bool { trustedList != nil }
}

/// The kinds of evidence a validator needs trust for.
enum TrustedServiceKind { case certificateAuthority, timeStamping, ocsp }
