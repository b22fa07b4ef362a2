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

    public init(trust: TrustStore = TrustStore(), time: Date? = nil, minimumProfile: SignatureProfile = .LT) {
        self.trust = trust
        self.time = time
        self.minimumProfile = minimumProfile
    }

    /// What is trusted for one kind of evidence at one time. With PEM anchors every kind uses
    /// the same anchors; a trusted list gives each kind its own services.
    func anchors(for kind: TrustedServiceKind, at time: Date) -> [Certificate] { trust.anchors }

    /// True when the anchors' service type alone authorises an OCSP responder (trusted lists).
    var responderTrustedByListing: Bool { false }
}

/// The kinds of evidence a validator needs trust for.
enum TrustedServiceKind { case certificateAuthority, timeStamping, ocsp }
