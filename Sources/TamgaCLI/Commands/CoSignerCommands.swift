import CoSigner
import Foundation
import Threshold

/// Where the co-signer keeps its files: `--db FILE` (default `cosigner.db` in the current
/// folder, the embedded default) and `--key FILE` (default `FILE.key` beside the database, made
/// with mode 0600 on first start).
private struct CoSignerFiles {
    let database: String
    let key: String
    init(_ arguments: ParsedArguments) {
        database = arguments.value("--db") ?? "cosigner.db"
        key = arguments.value("--key") ?? (database + ".key")
    }
    func store() throws -> CoSignerStore {
        try CoSignerStore(path: database, serverKey: CoSignerStore.serverKey(file: key))
    }
}

/// `tamga cosigner serve`
struct CoSignerServeCommand: Command {
    static let path = ["cosigner", "serve"]
    static let abstract = "Runs the co-signer: the server half of threshold keys, over HTTP."
    static let usage = "[--db FILE] [--key FILE] [--port N] [--listen loopback|any] [--session-ttl SECONDS]"
    static let help = """
    Serves the v3 API (docs/cosigner-api.md) until interrupted. The database is one SQLite file
    (WAL; created and migrated on start); the server key (32 bytes, mode 0600, made on first
    start) seals every server share and the server's ring-Pedersen parameters, which are made
    once and kept, since clients pin them. Prints one line "listening http://ADDRESS:PORT" when
    ready (port 0, the default, picks a free one). Plain HTTP: keep it on loopback or put TLS in
    front of it.
    """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ["--db", "--key", "--port", "--listen", "--session-ttl"]

    fileprivate let files: CoSignerFiles
    let port: UInt16
    let loopback: Bool
    let sessionLifetime: TimeInterval

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("cosigner serve takes no arguments") }
        files = CoSignerFiles(arguments)
        guard let port = UInt16(arguments.value("--port") ?? "0") else { throw UsageError("--port takes a port number") }
        self.port = port
        switch arguments.value("--listen") ?? "loopback" {
        case "loopback": loopback = true
        case "any": loopback = false
        default: throw UsageError("--listen takes loopback or any")
        }
        guard let ttl = TimeInterval(arguments.value("--session-ttl") ?? "300"), ttl > 0 else { throw UsageError("--session-ttl takes seconds") }
        sessionLifetime = ttl
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let store = try files.store()
        let identity = try store.serverIdentity()
        let service = CoSignerService(store: store, party: try ServerParty(pid: identity.pid, ringPedersen: identity.ringPedersen, sessionLifetime: sessionLifetime),
                                      sessionLifetime: sessionLifetime)
        let server = try HTTPServer(port: port, loopbackOnly: loopback) { service.handle($0) }
        context.terminal.line("listening http://\(loopback ? "127.0.0.1" : "0.0.0.0"):\(server.port)")
        // Until SIGINT/SIGTERM: the interrupt handlers end the process (SQLite commits are durable).
        while true { try await Task.sleep(nanoseconds: 3_600_000_000_000) }
    }
}

/// `tamga cosigner issue-code`
struct CoSignerIssueCodeCommand: Command {
    static let path = ["cosigner", "issue-code"]
    static let abstract = "Issues a one-time enrollment code for a document number (the operator's KYC step)."
    static let usage = "DOCUMENT-NUMBER [--db FILE] [--key FILE] [--ttl SECONDS] [--json]"
    static let help = """
    Prints a 12-character code, valid once for --ttl seconds (default 86400), that lets a device
    enroll threshold keys for DOCUMENT-NUMBER. Only its hash is stored.
    """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ["--db", "--key", "--ttl"]

    fileprivate let files: CoSignerFiles
    let document: String
    let lifetime: TimeInterval
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1, let document = arguments.positionals.first, !document.isEmpty else {
            throw UsageError("give the document number")
        }
        self.document = document
        files = CoSignerFiles(arguments)
        guard let ttl = TimeInterval(arguments.value("--ttl") ?? "86400"), ttl > 0 else { throw UsageError("--ttl takes seconds") }
        lifetime = ttl
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let code = try files.store().issueEnrollmentCode(documentNumber: document, lifetime: lifetime)
        if global.json {
            context.terminal.json(["documentNumber": document, "code": code, "validSeconds": String(Int(lifetime))])
        } else {
            context.terminal.line(code)
        }
        return .success
    }
}
