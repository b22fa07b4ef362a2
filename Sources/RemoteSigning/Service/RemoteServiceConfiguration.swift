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
    /// When not empty, the service's TLS certificate must chain to one of these, and nothing
    /// else is trusted (`--service-cert`: replaces the default pins and the leaf pins).
    /// Otherwise the host's default pins (`ServicePins`: for Smart-ID, the root SK's chain ends
    /// in), else the system's trust.
    public var trustedCertificates: [Certificate] = []
    /// Certificates one of which the service's own TLS certificate must be, on top of the
    /// chain check (SK's published leaf certificates; give the next one before a rotation).
    public var pinnedLeafCertificates: [Certificate] = []
    /// Which Smart-ID relying-party API to speak (v3 unless told otherwise; v2 while SK serves it).
    public var smartIDAPI: SmartIDAPIVersion = .v3
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
    /// The host is compared in its canonical form (`HostName`), as the connection uses it.
    func checkScheme(service: String) throws {
        guard let host = HostName.canonical(url.host ?? "") else {
            throw RemoteSigningError.badConfiguration(
                service: service,
                detail: "the URL's host \(TextLimits.quoted(url.host ?? "")) is not an ASCII host name")
        }
        guard url.scheme == "https" || (url.scheme == "http" && ["127.0.0.1", "localhost", "::1"].contains(host)) else {
            throw RemoteSigningError.notConfigured(
                service: service, missing: "an https URL (plain http is allowed to this machine only)")
        }
    }

    /// The relying party's identity in the form the services accept, checked before anything is
    /// sent: a UUID in its 8-4-4-4-12 hexadecimal form, a name of 1 to 32 bytes of UTF-8.
    func checkRelyingParty(service: String) throws {
        let groups = relyingPartyUUID.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12],
            groups.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isHexDigit } })
        else {
            throw RemoteSigningError.badConfiguration(
                service: service,
                detail:
                    "the relying party UUID \(TextLimits.quoted(relyingPartyUUID)) is not of the form 00000000-0000-4000-8000-000000000000"
            )
        }
        let bytes = relyingPartyName.utf8.count
        guard bytes >= 1, bytes <= 32 else {
            throw RemoteSigningError.badConfiguration(
                service: service, detail: "the relying party name is \(bytes) bytes of UTF-8; the service takes 1 to 32"
            )
        }
    }

    /// A transport whose per-request deadline covers one long poll, trusting the service's TLS
    /// as described at `trustedCertificates`.
    func transport() throws -> HTTPTransport {
        var transport = HTTPTransport(timeout: pollSeconds + 10)
        if trustedCertificates.isEmpty {
            transport.trustedCertificates = try ServicePins.anchors(forHost: url.host ?? "")
            transport.pinnedLeafCertificates = pinnedLeafCertificates.map {
                Array(Digest.compute(.sha256, over: $0.der).bytes)
            }
        } else {
            transport.trustedCertificates = trustedCertificates
        }
        transport.userAgent = userAgent
        if let proxy { transport.useProxy(proxy) }
        return transport
    }
}
