/// The route a request took, as a pattern ("/v3/rp/session/{id}"), never the raw path: metrics
/// labelled with raw paths would grow a series per session id, and anyone could grow them
/// without bound by asking for paths that do not exist (those are all "other").
enum RoutePattern {
    static let patterns: [[String]] = [
        "/v3/health", "/v3/ready", "/metrics", "/v3/attestation/challenge",
        "/v3/enrollment/init", "/v3/enrollment/complete",
        "/v3/rp/session", "/v3/rp/session/{id}",
        "/v3/mobile/session", "/v3/mobile/session/{id}", "/v3/mobile/pending/{document}",
        "/v3/mobile/activity/{document}",
        "/v3/mobile/session/{id}/sign/commit", "/v3/mobile/session/{id}/sign/prove",
        "/v3/mobile/session/{id}/sign/finish",
        "/v3/mobile/session/{id}/sign/cancel", "/v3/mobile/session/{id}/sign/abandon",
        "/v3/mobile/certificate/session", "/v3/mobile/certificate", "/v3/mobile/pin/evaluate", "/v3/mobile/pin/confirm",
    ].map { $0.split(separator: "/").map(String.init) }

    /// The pattern matching `path` (split like the service's router splits it), or "other".
    static func of(_ path: String) -> String {
        let parts = path.split(separator: "/").map(String.init)
        let match = patterns.first { pattern in
            pattern.count == parts.count && zip(pattern, parts).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }
        return match.map { "/" + $0.joined(separator: "/") } ?? "other"
    }

    /// The methods the API uses; anything else is "other", for the same reason.
    static func method(_ method: String) -> String {
        ["GET", "POST", "HEAD"].contains(method) ? method : "other"
    }
}
