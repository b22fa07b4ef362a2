import FoundationEssentials
import Glibc
import TamgaSupport

/// The proxy for a URL from the environment, read the way curl reads it: `http_proxy` (lower
/// case only: an `HTTP_PROXY` can be set by a CGI request header) for http, `https_proxy` or
/// `HTTPS_PROXY` for https, `all_proxy`/`ALL_PROXY` for both, except hosts matched by
/// `no_proxy`/`NO_PROXY` (comma-separated names or domain suffixes, `*` for all).
struct ProxySettings: Sendable {
    let environment: [String: String]

    struct Proxy: Equatable {
        let host: String
        let port: Int
        /// `user:password` for Basic proxy authentication, when the proxy URL has it.
        let credentials: String?
    }

    func proxy(for url: URL) throws(NetworkFailure) -> Proxy? {
        guard let written = url.host else { return nil }
        // The canonical form (no root dot, lower case), or the written one lower-cased when it is
        // none: the connection refuses such a host anyway, and `no_proxy` compares names.
        let host = HostName.canonical(written) ?? written.lowercased()
        if bypasses(host) { return nil }
        let names =
            url.scheme == "https"
            ? ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] : ["http_proxy", "all_proxy", "ALL_PROXY"]
        guard let text = names.lazy.compactMap({ self.environment[$0] }).first(where: { !$0.isEmpty }) else {
            return nil
        }
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let proxyURL = URL(string: withScheme), let proxyHost = proxyURL.host, !proxyHost.isEmpty else {
            throw .unreachable("the proxy setting \(text) is not a URL")
        }
        guard proxyURL.scheme == "http" else {
            throw .unreachable("only http:// proxies are supported, not \(proxyURL.scheme ?? text)")
        }
        var credentials: String? = nil
        if let user = proxyURL.user {
            credentials =
                (PercentEncoding.decode(user) ?? user) + ":"
                + (proxyURL.password.map { PercentEncoding.decode($0) ?? $0 } ?? "")
        }
        return Proxy(host: proxyHost, port: proxyURL.port ?? 80, credentials: credentials)
    }

    private func bypasses(_ host: String) -> Bool {
        guard let list = environment["no_proxy"] ?? environment["NO_PROXY"] else { return false }
        for raw in list.split(separator: ",") {
            var entry = raw.trimmedSpaces().lowercased()
            if entry == "*" { return true }
            if let colon = entry.lastIndex(of: ":"), !entry.contains("]"), entry.filter({ $0 == ":" }).count == 1 {
                entry = String(entry[..<colon])
            }
            if entry.hasPrefix(".") { entry.removeFirst() }
            guard !entry.isEmpty else { continue }
            if host == entry || host.hasSuffix("." + entry) { return true }
        }
        return false
    }
}
