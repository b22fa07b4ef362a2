import FoundationEssentials
import Glibc
import TamgaCore

/// Where a remote signing service is and who is asking: the relying party's registered UUID and
/// name, the service's TLS certificates to pin, and how long to wait for the phone.
public struct RemoteServiceConfiguration: Sendable {
    /// The API base, e.g. `https://mid.sk.ee/mid-api` or `https://rp-api.smart-id.com/v2`.
    public var url: URL
    public var relyingPartyUUID: String
    public var relyingPartyName: String
    /// When not empty, the service's TLS certificate must chain to one of these (pinning, as
    /// the services' documentation asks); otherwise the system's trust.
    public var trustedCertificates: [Certificate] = []
    /// The text shown on the phone.
    public var displayText = "Sign a document"
    /// Mobile-ID's language for the phone's prompt: EST, ENG, RUS or LIT.
    public var language = "ENG"
    /// How long one status long poll may wait (seconds; the services clamp it to 1–120).
    public var pollSeconds: TimeInterval = 30
    /// How long to wait for the person in all, before giving up with `timedOut`.
    public var overallTimeout: TimeInterval = 150
    public var userAgent = "tamga"
    /// An HTTP proxy for this service (`http://host:port`); otherwise the usual environment
    /// variables (`https_proxy`, `no_proxy`, …) apply.
    public var proxy: String?

    public init(url: URL, relyingPartyUUID: String, relyingPartyName: String) {
        self.url = url
        self.relyingPartyUUID = relyingPartyUUID
        self.relyingPartyName = relyingPartyName
    }

    /// Plain HTTP only to this machine (simulators, a local proxy): anything else must be https,
    /// or whoever sits on the path could hand out their own certificate and signature.
    func checkScheme(service: String) throws {
        let host = url.host ?? ""
        guard url.scheme == "https" || (url.scheme == "http" && ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)) else {
            throw RemoteSigningError.notConfigured(service: service, missing: "an https URL (plain http is allowed to this machine only)")
        }
    }

    /// A transport whose per-request deadline covers one long poll.
    func transport() -> HTTPTransport {
        var transport = HTTPTransport(timeout: pollSeconds + 10)
        transport.trustedCertificates = trustedCertificates
        transport.userAgent = userAgent
        if let proxy { transport.useProxy(proxy) }
        return transport
    }
}
