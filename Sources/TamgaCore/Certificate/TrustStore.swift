import FoundationEssentials
import Glibc

/// Trust anchors and helper certificates for building a signer's certificate chain.
/// Any certificate given as an anchor is trusted as it is, root or not (partial chains are
/// allowed), because operators often pin the issuing CA rather than a root.
public struct TrustStore: Sendable {
    public var anchors: [Certificate]
    /// Untrusted certificates that may complete a chain (issuing CAs from files or from a signature).
    public var intermediates: [Certificate]

    public init(anchors: [Certificate] = [], intermediates: [Certificate] = []) {
        self.anchors = anchors
        self.intermediates = intermediates
    }

    /// The outcome of chain building.
    public enum Verdict: Equatable, Sendable {
        /// A chain to an anchor exists and every certificate in it is valid at the time asked.
        case trusted(chain: [String])
        /// No chain to an anchor could be built: trust is not established (not the same as invalid).
        case unknown(reason: String)
        /// A chain exists but is broken: expired, not yet valid, bad signature, not a CA.
        case invalid(reason: String)
    }

    /// Builds and checks `certificate`'s chain at `time`.
    /// - Parameter strict: OpenSSL's X509_STRICT (RFC 5280's profile: a CA's basicConstraints
    ///   critical, and more). Off only for certificates made before that profile was applied,
    ///   SK's CAs of 2002–2007 that DDOC files chain to.
    public func verify(_ certificate: Certificate, at time: Date, strict: Bool = true) -> Verdict {
        guard !anchors.isEmpty else { return .unknown(reason: "no trust anchors were given (use --trust CA.pem)") }
        return X509ChainVerifier.verify(
            leaf: certificate.handle, anchors: anchors.map(\.handle),
            intermediates: intermediates.map(\.handle), at: time, strict: strict)
    }
}
