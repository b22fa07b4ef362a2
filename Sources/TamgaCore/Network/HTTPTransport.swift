import Dispatch
import FoundationEssentials
import Glibc

/// POSTs a DER request to a TSA or OCSP responder (or GETs an issuer certificate) over HTTP/1.1
/// and returns the body of a 200 answer. Its own small client over sockets and OpenSSL, not
/// URLSession: FoundationNetworking pulls in libcurl and some thirty libraries that cost every
/// `tamga` command about 6 ms of start-up, and cannot pin certificates on Linux.
///
/// - https: TLS 1.2+, the name (or IP) checked; the system trust store, or only
///   `trustedCertificates` when given (pinning).
/// - Proxies from `http_proxy`, `https_proxy`, `all_proxy`, `no_proxy` (see `ProxySettings`);
///   https through a proxy uses CONNECT.
/// - One deadline (`timeout`) for the whole exchange, redirects included; GET follows up to five
///   redirects, POST none (a TSA or OCSP URL that moved is reported, not followed with the body);
///   never from https to plain http.
public struct HTTPTransport: Sendable {
    /// Seconds for the whole exchange.
    public var timeout: TimeInterval
    /// Answers larger than this are refused (a TSA token or OCSP response is a few KiB).
    public var maximumResponseSize = 1 << 20
    public var userAgent = "tamga"
    /// When not empty, https servers are trusted only through these certificates (pinning).
    public var trustedCertificates: [Certificate] = []
    /// SHA-256 of the one server key (SubjectPublicKeyInfo) accepted for https, whatever
    /// certificate carries it (the co-signer's key, pinned at enrollment).
    public var pinnedServerKey: [UInt8]? = nil
    /// SHA-256 of certificates (DER), one of which the https server's own must be, on top of
    /// the chain and name checks (a service's published certificates: several across a rotation).
    public var pinnedLeafCertificates: [[UInt8]] = []
    /// Where proxy settings come from; the process environment by default.
    var environment: [String: String]

    public init(timeout: TimeInterval = 20) {
        self.timeout = timeout
        environment = ProcessInfo.processInfo.environment
    }

    /// Sends every request (http and https) through this proxy instead of the environment's;
    /// the environment's `no_proxy` does not apply to a proxy given this way.
    public mutating func useProxy(_ proxy: String) {
        for name in [
            "http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "no_proxy", "NO_PROXY",
        ] { environment[name] = nil }
        environment["http_proxy"] = proxy
        environment["https_proxy"] = proxy
    }

    public func post(
        _ body: Data, to url: URL, contentType: String, accept: String, service: String
    ) async throws -> Data {
        try await perform(
            method: "POST", url: url, body: Array(body), headers: ["Content-Type": contentType, "Accept": accept],
            service: service)
    }

    /// GETs a small document (an issuer certificate from an AIA caIssuers URL).
    public func get(_ url: URL, service: String) async throws -> Data {
        try await perform(method: "GET", url: url, body: nil, headers: [:], service: service)
    }

    /// Any method with extra headers (the co-signer's API: JSON bodies, `X-Device-Token`).
    public func request(
        method: String, url: URL, body: Data?, headers: [String: String], service: String
    ) async throws -> Data {
        try await requestWithHeaders(method: method, url: url, body: body, headers: headers, service: service).body
    }

    /// The same, with the answer's headers (lower-case names).
    public func requestWithHeaders(
        method: String, url: URL, body: Data?, headers: [String: String], service: String
    ) async throws -> (body: Data, headers: [String: String]) {
        for (name, value) in headers
        where name.contains(where: { $0 == "\r" || $0 == "\n" || $0 == ":" })
            || value.contains(where: { $0 == "\r" || $0 == "\n" })
        {
            throw CoreError.serviceUnreachable(
                service: service, url: url.absoluteString, reason: "a header contains a line break")
        }
        return try await performWithHeaders(
            method: method, url: url, body: body.map(Array.init), headers: headers, service: service)
    }

    /// The same, answering every HTTP status instead of throwing for one other than 200 (for a
    /// service whose error answers carry its reason).
    public func requestAnyStatus(
        method: String, url: URL, body: Data?, headers: [String: String], service: String
    ) async throws
        -> (status: Int, body: Data, headers: [String: String])
    {
        for (name, value) in headers
        where name.contains(where: { $0 == "\r" || $0 == "\n" || $0 == ":" })
            || value.contains(where: { $0 == "\r" || $0 == "\n" })
        {
            throw CoreError.serviceUnreachable(
                service: service, url: url.absoluteString, reason: "a header contains a line break")
        }
        let bytes = body.map(Array.init)
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        let answer = try self.exchange(
                            method: method, url: url, body: bytes, headers: headers, service: service, anyStatus: true)
                        return (answer.status, answer.body, answer.headers)
                    })
            }
        }
    }

    /// Opens and closes a connection to `url`'s host (or its proxy): a service that cannot be
    /// reached is found before anything that cannot be undone (a PIN asked, a key used).
    public func probe(_ url: URL, service: String) async throws {
        let deadline = Date().addingTimeInterval(min(timeout, 10))
        let settings = environment
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                            throw CoreError.serviceUnreachable(
                                service: service, url: url.absoluteString,
                                reason: "only http and https URLs with a host are supported")
                        }
                        do {
                            let host = try Self.host(of: url)
                            let proxy = try ProxySettings(environment: settings).proxy(for: url)
                            _ = try NetworkConnection(
                                host: proxy?.host ?? host,
                                port: proxy?.port ?? url.port ?? (scheme == "https" ? 443 : 80), deadline: deadline)
                        } catch let failure as NetworkFailure {
                            if case .unreachable(let reason) = failure {
                                throw CoreError.serviceUnreachable(
                                    service: service, url: url.absoluteString, reason: reason)
                            }
                            throw CoreError.serviceUnreachable(
                                service: service, url: url.absoluteString, reason: "\(failure)")
                        }
                    })
            }
        }
    }

    /// SHA-256 of the https server's key, after the usual checks (system trust or
    /// `trustedCertificates`): what a client pins on first contact.
    public func serverKeyFingerprint(_ url: URL) async throws -> [UInt8] {
        guard url.scheme == "https", url.host != nil else {
            throw CoreError.serviceUnreachable(
                service: "key pinning", url: url.absoluteString, reason: "only https servers have a key to pin")
        }
        let deadline = Date().addingTimeInterval(timeout)
        let anchors = trustedCertificates
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                do {
                    let host = try Self.host(of: url)
                    let connection = try NetworkConnection(host: host, port: url.port ?? 443, deadline: deadline)
                    try connection.startTLS(host: host, anchors: anchors)
                    guard let key = connection.peerKeyFingerprint() else {
                        throw NetworkFailure.unreachable("the server sent no certificate")
                    }
                    continuation.resume(returning: key)
                } catch let failure as NetworkFailure {
                    if case .unreachable(let reason) = failure {
                        continuation.resume(
                            throwing: CoreError.serviceUnreachable(
                                service: "key pinning", url: url.absoluteString, reason: reason))
                    } else {
                        continuation.resume(
                            throwing: CoreError.serviceUnreachable(
                                service: "key pinning", url: url.absoluteString, reason: "\(failure)"))
                    }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Runs the blocking exchange on a dispatch thread, not on the cooperative pool.
    private func perform(
        method: String, url: URL, body: [UInt8]?, headers: [String: String], service: String
    ) async throws -> Data {
        try await performWithHeaders(method: method, url: url, body: body, headers: headers, service: service).body
    }

    private func performWithHeaders(
        method: String, url: URL, body: [UInt8]?, headers: [String: String], service: String
    ) async throws -> (body: Data, headers: [String: String]) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        let answer = try self.exchange(
                            method: method, url: url, body: body, headers: headers, service: service)
                        return (answer.body, answer.headers)
                    })
            }
        }
    }

    /// - Parameter anyStatus: answer any final status; otherwise a status other than 200 throws.
    func exchange(
        method: String, url original: URL, body: [UInt8]?, headers: [String: String], service: String,
        anyStatus: Bool = false
    ) throws -> (status: Int, body: Data, headers: [String: String]) {
        let deadline = Date().addingTimeInterval(timeout)
        var url = original
        var redirects = 0
        while true {
            let response: HTTPResponse
            do {
                response = try send(method: method, url: url, body: body, headers: headers, deadline: deadline)
            } catch .unreachable(let reason) {
                throw CoreError.serviceUnreachable(service: service, url: url.absoluteString, reason: reason)
            } catch .rejected(let reason) {
                throw CoreError.serviceResponseRejected(service: service, url: url.absoluteString, reason: reason)
            }
            if method == "GET", [301, 302, 303, 307, 308].contains(response.status),
                let location = response.headers["location"]
            {
                redirects += 1
                guard redirects <= 5, let next = URL(string: location, relativeTo: url)?.absoluteURL,
                    next.scheme == "http" || next.scheme == "https"
                else {
                    throw CoreError.serviceResponseRejected(
                        service: service, url: original.absoluteString,
                        reason: redirects > 5 ? "more than 5 redirects" : "a redirect to \(location.prefix(80))")
                }
                // From https to plain http would drop TLS and its pins for the rest of the exchange.
                guard !(url.scheme?.lowercased() == "https" && next.scheme?.lowercased() == "http") else {
                    throw CoreError.serviceResponseRejected(
                        service: service, url: original.absoluteString, reason: "a redirect from https to plain http")
                }
                url = next
                continue
            }
            guard response.status == 200 || anyStatus else {
                throw CoreError.serviceHTTPStatus(service: service, url: url.absoluteString, status: response.status)
            }
            return (response.status, Data(response.body), response.headers)
        }
    }

    /// The URL's host as it is resolved, sent (SNI, `Host`) and checked against the
    /// certificate: `HostName.canonical`, so `example.com.` and `EXAMPLE.com` are `example.com`.
    static func host(of url: URL) throws(NetworkFailure) -> String {
        guard let written = url.host, !written.isEmpty else { throw .unreachable("the URL has no host") }
        guard let host = HostName.canonical(written) else {
            throw .unreachable(
                "the URL's host \(String(written.unicodeScalars.prefix(80).map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?" })) is not an ASCII host name (empty labels, or characters a name check cannot compare)"
            )
        }
        return host
    }

    private func send(
        method: String, url: URL, body: [UInt8]?, headers: [String: String], deadline: Date
    ) throws(NetworkFailure) -> HTTPResponse {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .unreachable("only http and https URLs are supported")
        }
        let host = try Self.host(of: url)
        let isTLS = scheme == "https"
        let port = url.port ?? (isTLS ? 443 : 80)
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var target = components?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        let hostHeader = (host.contains(":") ? "[\(host)]" : host) + (url.port.map { ":\($0)" } ?? "")

        let proxy = try ProxySettings(environment: environment).proxy(for: url)
        let connection = try NetworkConnection(host: proxy?.host ?? host, port: proxy?.port ?? port, deadline: deadline)
        var proxyAuthorization = ""
        if let credentials = proxy?.credentials {
            proxyAuthorization = "Proxy-Authorization: Basic \(Data(credentials.utf8).base64EncodedString())\r\n"
        }
        if isTLS {
            if proxy != nil {
                let authority = (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
                try connection.write(
                    Array("CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n\(proxyAuthorization)\r\n".utf8))
                let answer = try HTTPResponse.read(from: connection, maximumBody: 0, bodyExpected: false)
                guard (200..<300).contains(answer.status) else {
                    throw .unreachable("the proxy refused the tunnel (HTTP \(answer.status))")
                }
            }
            try connection.startTLS(
                host: host, anchors: trustedCertificates, pinnedKey: pinnedServerKey,
                pinnedLeaves: pinnedLeafCertificates)
        } else if proxy != nil {
            target = url.absoluteString  // absolute-form for a forward proxy
        }
        var head =
            "\(method) \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: \(userAgent)\r\nCache-Control: no-cache\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        if !isTLS { head += proxyAuthorization }
        head += "\r\n"
        try connection.write(Array(head.utf8) + (body ?? []))
        return try HTTPResponse.read(from: connection, maximumBody: maximumResponseSize, bodyExpected: method != "HEAD")
    }
}
