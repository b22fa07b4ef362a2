import FoundationEssentials
import Glibc

/// An RFC 3161 time-stamp token: a CMS SignedData over a TSTInfo, kept as the exact DER that
/// goes into `xades:EncapsulatedTimeStamp`.
public struct TimeStampToken: Sendable {
    let handle: TimeStampTokenHandle

    public init(der: Data) throws {
        guard let handle = TimeStampTokenHandle(der: der) else {
            throw CoreError.malformedSignature("not an RFC 3161 time-stamp token")
        }
        self.handle = handle
    }

    public var der: Data { handle.der }
    /// The TSA's time (fractions dropped).
    public var genTime: Date { handle.genTime }
    /// The hashed message imprint the token covers.
    public var imprint: Data { handle.imprint }
    /// The hash of the imprint, nil if tamga does not know it.
    public var imprintAlgorithm: DigestAlgorithm? { DigestAlgorithm(nid: handle.imprintAlgorithmNID) }
    /// The TSTInfo serialNumber in decimal (the reference's id of a token signature).
    public var serialNumber: String { handle.serialNumber }
    /// Certificates carried in the token (the TSA's, with `certReq`).
    public var certificates: [Certificate] { handle.certificates.compactMap { try? Certificate(handle: $0) } }

    /// The outcome of checking a token.
    public enum Verdict: Equatable, Sendable {
        case valid
        /// The token is intact but its TSA does not chain to a trusted anchor at genTime.
        case untrusted(String)
        /// Wrong imprint, bad signature, wrong TSA certificate purpose.
        case invalid(String)
    }

    /// Checks the signature, the ESS signing-certificate binding, the TSA certificate's critical
    /// timeStamping EKU and its chain to `trust` at genTime, and that the token covers `data`.
    public func verify(covering data: Data, trust: TrustStore) -> Verdict {
        guard let algorithm = imprintAlgorithm else { return .invalid("unknown imprint hash") }
        return verify(imprint: Digest.compute(algorithm, over: data), trust: trust)
    }

    /// The same, for an imprint the caller computed (it must use the token's imprint hash).
    public func verify(imprint: Digest, trust: TrustStore) -> Verdict {
        guard imprint.algorithm == imprintAlgorithm else {
            return .invalid(
                "the token's imprint uses \(imprintAlgorithm.map(\.description) ?? "an unknown hash"), not \(imprint.algorithm)"
            )
        }
        let expected = imprint.bytes
        guard !trust.anchors.isEmpty else {
            // Still check integrity: the token's own certificates as anchors prove the signature.
            switch handle.verify(
                expectedImprint: expected, anchors: handle.certificates, intermediates: [], at: genTime)
            {
            case .verified: return .untrusted("no trust anchors were given")
            case .untrusted(let why), .invalid(let why): return .invalid(why)
            }
        }
        switch handle.verify(
            expectedImprint: expected, anchors: trust.anchors.map(\.handle),
            intermediates: trust.intermediates.map(\.handle), at: genTime)
        {
        case .verified: return .valid
        case .untrusted(let why): return .untrusted(why)
        case .invalid(let why): return .invalid(why)
        }
    }
}
