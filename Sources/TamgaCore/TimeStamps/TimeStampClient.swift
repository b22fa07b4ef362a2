import FoundationEssentials
import Glibc

/// Asks an RFC 3161 time-stamping authority for a token over a digest, and accepts the
/// answer only after checking it: status granted, version, the nonce echoed, the imprint
/// equal to ours, and the token signed by a certificate with the critical timeStamping EKU.
public struct TimeStampClient: Sendable {
    public let url: URL
    public var transport: HTTPTransport

    public init(url: URL, transport: HTTPTransport = HTTPTransport()) {
        self.url = url
        self.transport = transport
    }

    /// - Parameter data: the bytes to time-stamp (for XAdES, the canonical `ds:SignatureValue`);
    ///   the imprint is their SHA-256 unless `algorithm` says otherwise.
    public func timeStamp(_ data: Data, algorithm: DigestAlgorithm = .sha256) async throws -> TimeStampToken {
        try await timeStamp(imprint: Digest.compute(algorithm, over: data))
    }

    /// Time-stamps a digest computed by the caller (an archive time-stamp hashes whole files).
    public func timeStamp(imprint digest: Digest) async throws -> TimeStampToken {
        let imprint = digest.bytes
        let algorithm = digest.algorithm
        var nonce = [UInt8](repeating: 0, count: 20)
        guard SecureRandom.fill(&nonce) else {
            throw CoreError.cryptoFailure(operation: "RAND_bytes", reason: "the random generator failed")
        }
        nonce[0] |= 0x01  // a positive INTEGER with no leading zero byte
        let request = try TimeStampRequestHandle(imprint: imprint, digestNID: algorithm.nid, nonce: nonce)
        let answer = try await transport.post(
            request.der, to: url, contentType: "application/timestamp-query",
            accept: "application/timestamp-reply", service: "time-stamping authority")
        let tokenDER: Data
        switch request.acceptResponse(answer) {
        case .success(let der): tokenDER = der
        case .failure(let rejection):
            throw CoreError.serviceResponseRejected(
                service: "time-stamping authority", url: url.absoluteString, reason: rejection.reason)
        }
        let token: TimeStampToken
        do { token = try TimeStampToken(der: tokenDER) } catch {
            throw CoreError.serviceResponseRejected(
                service: "time-stamping authority", url: url.absoluteString, reason: "unreadable token")
        }
        // Integrity and purpose now; whether the TSA is trusted is the validator's question.
        if case .invalid(let why) = token.verify(imprint: digest, trust: TrustStore()) {
            throw CoreError.serviceResponseRejected(
                service: "time-stamping authority", url: url.absoluteString, reason: why)
        }
        guard !token.certificates.isEmpty else {
            throw CoreError.serviceResponseRejected(
                service: "time-stamping authority", url: url.absoluteString,
                reason: "the token carries no TSA certificate")
        }
        return token
    }
}
