import FoundationEssentials
import Glibc

/// An OCSP response (the full `OCSPResponse` DER, as XAdES `EncapsulatedOCSPValue` holds it).
public struct OCSPResponse: Sendable {
    let handle: OCSPResponseHandle

    public init(der: Data) throws {
        guard let handle = OCSPResponseHandle(der: der) else {
            throw CoreError.malformedSignature("not an OCSP response")
        }
        self.handle = handle
    }

    public var der: Data { handle.der }
    /// True for `successful` with a basic response inside.
    public var isSuccessful: Bool { handle.basic != nil }
    public var producedAt: Date? { handle.producedAt }
    public var responderCertificates: [Certificate] { handle.certificates.compactMap { try? Certificate(handle: $0) } }
    /// The extnValue octets of the nonce extension, unparsed (nil when there is none).
    public var nonceExtensionValue: Data? { handle.nonceExtensionValue }

    /// The responder certificate that the ResponderID names: one the response carries, else one
    /// of `candidates`. Says who signed, not whether the signature verifies.
    public func signerCertificate(among candidates: [Certificate] = []) -> Certificate? {
        handle.signer(among: candidates.map(\.handle)).flatMap { try? Certificate(handle: $0) }
    }

    /// What the responder says about one certificate.
    public struct CertificateStatus: Sendable, Equatable {
        public enum Kind: String, Sendable { case good, revoked, unknown }
        public let kind: Kind
        public let revocationTime: Date?
        public let thisUpdate: Date?
        public let nextUpdate: Date?
        /// thisUpdate at most 2 minutes old and nextUpdate not past, with 15 minutes of clock skew
        /// allowed (the reference's rule when signing); judged against the current clock.
        public let isFreshNow: Bool
    }

    /// The status of `certificate` (issued by `issuer`), found under whatever hash the
    /// responder used in its CertID; nil when the response does not mention it.
    public func status(of certificate: Certificate, issuer: Certificate) -> CertificateStatus? {
        handle.status(of: certificate.handle, issuer: issuer.handle).map { single in
            let kind: CertificateStatus.Kind =
                switch single.kind {
                case .good: .good
                case .revoked: .revoked
                case .unknown: .unknown
                }
            return CertificateStatus(
                kind: kind, revocationTime: single.revocationTime, thisUpdate: single.thisUpdate,
                nextUpdate: single.nextUpdate, isFreshNow: single.freshNow)
        }
    }

    /// Checks the response signature and that the responder is authorised, at `time`.
    /// - Parameters:
    ///   - anchors: certificates trusted at `time` (the issuing CA, or trusted-list services).
    ///   - byListing: true when `anchors` come from a trusted list, whose service type alone
    ///     authorises a responder; false requires the CA itself or a responder it certified with
    ///     the OCSPSigning EKU (RFC 6960 §4.2.2.2).
    /// - Returns: nil when it verifies, else the reason.
    public func verifySignature(
        anchors: [Certificate], intermediates: [Certificate] = [], at time: Date, byListing: Bool
    ) -> String? {
        switch handle.verify(
            anchors: anchors.map(\.handle), intermediates: intermediates.map(\.handle), at: time,
            responderTrustedByListing: byListing)
        {
        case .success: nil
        case .failure(let rejection): rejection.reason
        }
    }
}
