import FoundationEssentials

/// Why an HTTP server (the co-signer's, the validation service's) could not start. The codes are
/// stable (docs/cli.md, "Error codes"); each description says what to do.
public enum HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libmicrohttpd could not be loaded: its package is not installed.
    case libraryMissing(reason: String)
    /// The port could not be taken (in use, not permitted) or the server refused its settings.
    case cannotStart(reason: String)

    public var code: String {
        switch self {
        case .libraryMissing: "http-library-missing"
        case .cannotStart: "http-server-failed"
        }
    }

    public var description: String {
        switch self {
        case .libraryMissing(let reason):
            "the HTTP server needs libmicrohttpd, which cannot be loaded (\(reason)): install the libmicrohttpd12 package"
        case .cannotStart(let reason):
            "cannot start the HTTP server: \(reason) (another process may hold the port: pick another with --port)"
        }
    }
}
