import Foundation
import TamgaCore

/// What `Container.validate` checks against.
public struct ValidationOptions: Sendable {
    /// Anchors and helper certificates for the signer's chain. No anchors ⇒ status `UNKNOWN`.
    public var trust: TrustStore
    /// The time at which certificates must be valid; nil means now.
    public var time: Date?

    public init(trust: TrustStore = TrustStore(), time: Date? = nil) {
        self.trust = trust
        self.time = time
    }
}
