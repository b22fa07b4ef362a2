import FoundationEssentials
import Glibc

/// Asks an OCSP responder about the signer's certificate and accepts the answer only after
/// checking it: successful, signed by the issuer or a responder the issuer authorised, the
/// nonce echoed, the status good, and thisUpdate fresh (at most 2 minutes old).
public struct OCSPClient: Sendable {
    public var transport: HTTPTransport
    /// The CertID hash; SHA-1 is what responders universally accept (the reference uses it).
    public var certIDDigest: DigestAlgorithm

    public init(transport: HTTPTransport = HTTPTransport(), certIDDigest: DigestAlgorithm = .sha1) {
        self.transport = transport
        self.certIDDigest = certIDDigest
    }

    /// - Parameter url: the responder; nil uses the certificate's AIA OCSP URL.
    public func check(_ certificate: Certificate, issuer: Certificate, url: URL? = nil) async throws -> OCSPResponse {
        guard let target = url ?? certificate.ocspURLs.first.flatMap(URL.init(string:)) else {
            throw CoreError.serviceURLMissing(
                service: "OCSP responder (the certificate names none in its AIA; use --ocsp)")
        }
        let service = "OCSP responder"
        func reject(_ reason: String) -> CoreError {
            .serviceResponseRejected(service: service, url: target.absoluteString, reason: reason)
        }
        let request = try OCSPRequestHandle(
            certificate: certificate.handle, issuer: issuer.handle, certIDDigest: certIDDigest)
        let answer = try await transport.post(
            request.der, to: target, contentType: "application/ocsp-request",
            accept: "application/ocsp-response", service: service)
        let response = try? OCSPResponse(der: answer)
        guard let response else { throw reject("not an OCSP response") }
        guard response.isSuccessful else {
            throw reject(
                response.handle.responseStatus == 6
                    ? "unauthorized (the responder does not serve this CA)"
                    : "response status \(response.handle.responseStatus)")
        }
        if let why = response.verifySignature(anchors: [issuer], at: Date(), byListing: false) {
            throw reject("signature or responder authorisation: \(why)")
        }
        guard request.nonceMatches(response.handle) else { throw reject("the nonce was not echoed") }
        guard let status = response.status(of: certificate, issuer: issuer) else {
            throw reject("the response does not mention the certificate")
        }
        guard status.isFreshNow else {
            throw reject(
                "stale: thisUpdate \(status.thisUpdate.map(XSDDateTime.format) ?? "?") is more than 2 minutes old")
        }
        guard status.kind == .good else { throw CoreError.certificateNotGood(status: status.kind.rawValue) }
        return response
    }
}
