/// Why the co-signer refused a connection before reading any request from it. `code` is stable:
/// it is the summary's word in the log and, on plain HTTP, the `error.code` of the JSON answer
/// written before the socket is closed (over TLS there is no HTTP to answer in: the connection
/// is closed).
enum ConnectionRefusal: Error, Hashable, Sendable {
    /// A connection from a trusted proxy that does not start with the PROXY v2 signature: the
    /// proxy is configured without `send-proxy-v2`, or someone else on its address connected.
    case proxyHeaderMissing
    /// The header starts right but is not one this server takes (`ProxyProtocolHeader`).
    case proxyHeaderMalformed(String)
    /// The header did not arrive whole within its deadline.
    case proxyHeaderLate
    /// The client's address holds its share of the connection slots already (all of
    /// `perAddressLimit`, or under pressure its fair share).
    case addressShare(Int)
    /// Every slot is taken and none could be freed for this client.
    case full

    var code: String {
        switch self {
        case .proxyHeaderMissing: "proxy-header-missing"
        case .proxyHeaderMalformed: "proxy-header-malformed"
        case .proxyHeaderLate: "proxy-header-late"
        case .addressShare: "too-many-connections-from-address"
        case .full: "too-many-connections"
        }
    }

    var status: Int {
        switch self {
        case .proxyHeaderMissing, .proxyHeaderMalformed: 400
        case .proxyHeaderLate: 408
        case .addressShare, .full: 429
        }
    }

    var message: String {
        switch self {
        case .proxyHeaderMissing:
            "this address is a trusted proxy: its connections must start with a PROXY protocol v2 header"
        case .proxyHeaderMalformed(let why): "the PROXY protocol v2 header is refused: \(why)"
        case .proxyHeaderLate: "the PROXY protocol v2 header did not arrive in time"
        case .addressShare(let share):
            "this address holds \(share) connections, its share just now; reuse one or close some"
        case .full: "every connection slot is taken; try again in a moment"
        }
    }

    /// The whole HTTP/1.1 answer written on a plain-HTTP connection before it is closed.
    var answer: [UInt8] {
        let reason =
            switch status {
            case 400: "Bad Request"
            case 408: "Request Timeout"
            default: "Too Many Requests"
            }
        let body = HTTPResponse.error(status, code: code, message: message).body
        let head =
            "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }
}
