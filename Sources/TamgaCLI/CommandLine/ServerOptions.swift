import FoundationEssentials
import HTTPService
import TamgaCore
import TamgaSupport

/// The options every HTTP service of the CLI takes (`cosigner serve`, `validation serve`):
/// where it listens, its worker threads, TLS, and the proxies whose PROXY headers are believed.
struct ServerOptions {
    let port: UInt16
    let loopback: Bool
    let threads: UInt32
    let tlsCertificate: String?, tlsKey: String?
    /// Whose PROXY protocol headers are believed (`--trusted-proxy`).
    let trustedProxies: [AddressRange]

    static let options: Set<String> = ["--port", "--listen", "--threads", "--tls-cert", "--tls-key", "--trusted-proxy"]

    init(_ arguments: ParsedArguments) throws {
        guard let port = UInt16(arguments.value("--port") ?? "0") else {
            throw UsageError("--port takes a port number")
        }
        self.port = port
        switch arguments.value("--listen") ?? "loopback" {
        case "loopback": loopback = true
        case "any": loopback = false
        default: throw UsageError("--listen takes loopback or any")
        }
        guard let threads = UInt32(arguments.value("--threads") ?? "4"), (1...64).contains(threads) else {
            throw UsageError("--threads takes a number from 1 to 64")
        }
        self.threads = threads
        tlsCertificate = arguments.value("--tls-cert")
        tlsKey = arguments.value("--tls-key")
        guard (tlsCertificate == nil) == (tlsKey == nil) else {
            throw UsageError("--tls-cert and --tls-key go together")
        }
        trustedProxies = try arguments.all("--trusted-proxy").flatMap {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }.map { text in
            guard let range = AddressRange(parsing: String(text).trimmedSpaces()) else {
                throw UsageError(
                    "--trusted-proxy takes an IPv4 or IPv6 address or range (127.0.0.1, 10.0.0.0/8, fd00::/8), not '\(text)'"
                )
            }
            return range
        }
    }

    /// The TLS key and certificate PEM, read; nil for plain HTTP.
    func loadTLS() throws -> (keyPEM: String, certificatePEM: String)? {
        guard let tlsCertificate, let tlsKey else { return nil }
        guard let certificate = try? String(contentsOfFile: tlsCertificate, encoding: .utf8),
            let key = try? String(contentsOfFile: tlsKey, encoding: .utf8)
        else {
            throw CoreError.unreadableFile(path: tlsCertificate, reason: "the TLS certificate or key cannot be read")
        }
        return (key, certificate)
    }

    /// The line a caller waits for: "listening http://ADDRESS:PORT".
    func listeningLine(port: UInt16) -> String {
        "listening \(tlsCertificate == nil ? "http" : "https")://\(loopback ? "127.0.0.1" : "0.0.0.0"):\(port)"
    }

    /// Says the server is ready: the listening line on standard output, and READY=1 to systemd
    /// when it started us as `Type=notify` (NOTIFY_SOCKET), so that units ordered after this
    /// one start only once it answers.
    func announceReady(port: UInt16, _ context: CommandContext) {
        let line = listeningLine(port: port)
        context.terminal.line(line)
        ServiceManagerNotification.send("READY=1\nSTATUS=\(line)", socket: context.environment["NOTIFY_SOCKET"])
    }
}
