import CoSigner
import FoundationEssentials
import Glibc
import HTTPService
import TamgaCore
import TamgaSupport
import Threshold

/// Where the co-signer keeps its files: `--db FILE` (default `cosigner.db` in the current
/// folder, the embedded default) or `--db postgresql://…` (a libpq connection URI, for several
/// instances on one database), and the server key (`CoSignerServerKey`: `--key FILE` /
/// `--server-key FILE`, default `FILE.key` beside a database file, made with mode 0600 on first
/// start; or `--server-key pkcs11:LABEL`, a token key wrapping one kept in the database). With
/// a URI the key must be given: every instance on that database needs the same one.
private struct CoSignerFiles {
    let database: String
    let serverKey: CoSignerServerKey
    var isPostgreSQL: Bool { DatabaseLocation.isPostgreSQL(database) }
    init(_ arguments: ParsedArguments) throws {
        database = arguments.value("--db") ?? "cosigner.db"
        if DatabaseLocation.isPostgreSQL(database), arguments.value("--key") == nil,
            arguments.value("--server-key") == nil
        {
            throw UsageError(
                "with --db \(DatabaseLocation.redacted(database)), give --key FILE or --server-key: every co-signer instance on that database needs the same server key"
            )
        }
        serverKey = try CoSignerServerKey(arguments, database: database)
    }
    func store(environment: [String: String]) throws -> CoSignerStore {
        // The database's folder must be writable (SQLite's WAL files live beside it), and so must
        // a key's that is still to be made: said plainly, naming the option, rather than
        // SQLite's "attempt to write a readonly database".
        for (file, option) in [(database, "--db"), (serverKey.file, "--key")] {
            guard let file,
                (option == "--db" && !isPostgreSQL)
                    || (option == "--key" && !FileManager.default.fileExists(atPath: file))
            else { continue }
            let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
            try UserFolder.create(
                folder, holds: "the co-signer's \(option == "--db" ? "database" : "server key") (\(file.lastPathPart))",
                mode: 0o755, remedy: "Give \(option) FILE in a folder you can write.")
        }
        return try serverKey.store(database: database, environment: environment)
    }

    /// The store of an existing co-signer (for the operator's commands): a missing database or
    /// key is refused unless `create`, since a new one would hold codes and relying parties that
    /// the running co-signer never sees. (A PostgreSQL database is made by its administrator;
    /// only the key is checked.)
    func existingStore(create: Bool, environment: [String: String]) throws -> CoSignerStore {
        if !create {
            guard isPostgreSQL || FileManager.default.fileExists(atPath: database) else {
                throw UsageError(
                    "there is no co-signer database at \(database): give the running co-signer's --db FILE (and --key FILE), or --create to make a new one"
                )
            }
            if let key = serverKey.file, !FileManager.default.fileExists(atPath: key) {
                throw UsageError(
                    "the co-signer database \(databasePath) has no server key at \(key): give --key FILE (a new key could not open its shares)"
                )
            }
        }
        return try store(environment: environment)
    }

    /// The database's full path (or its URI without the password), for telling the operator
    /// where something was written.
    var databasePath: String {
        isPostgreSQL ? DatabaseLocation.redacted(database) : URL(fileURLWithPath: database).standardizedFileURL.path
    }
}

/// `tamga cosigner migrate`
struct CoSignerMigrateCommand: Command {
    static let path = ["cosigner", "migrate"]
    static let abstract = "Brings the co-signer's database to this version's schema and prints the version."
    static let usage = "[--db FILE|URI] [--json]"
    static let help = """
        Applies the schema migrations the database (--db: a SQLite file, default ./cosigner.db, or
        a postgresql:// URI) does not have yet, each in its own transaction, and prints the schema
        version. `serve` does the same on start; run this first when several instances share one
        PostgreSQL database (they also take a lock so that only one migrates). A database made by a
        newer tamga is refused (database-schema-newer) and left as it is. No server key is needed.
        """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ["--db"]
    let database: String
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("cosigner migrate takes no arguments") }
        database = arguments.value("--db") ?? "cosigner.db"
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let shown =
            DatabaseLocation.isPostgreSQL(database)
            ? DatabaseLocation.redacted(database) : URL(fileURLWithPath: database).standardizedFileURL.path
        let (version, applied) = try CoSignerStore.migrate(url: database)
        if global.json {
            struct Migrated: Encodable {
                let database: String
                let schemaVersion: Int
                let applied: Int
            }
            context.terminal.json(Migrated(database: shown, schemaVersion: version, applied: applied))
        } else {
            context.terminal.line(
                "schema version \(version) (\(applied == 0 ? "already current" : "\(applied) migration\(applied == 1 ? "" : "s") applied")): \(shown)"
            )
        }
        return .success
    }
}

/// `tamga cosigner serve`
struct CoSignerServeCommand: Command {
    static let path = ["cosigner", "serve"]
    static let abstract = "Runs the co-signer: the server half of threshold keys, over HTTP."
    static let usage =
        "[--db FILE|URI] [--server-key pkcs11:LABEL|FILE] [--port N] [--listen loopback|any] [--threads N] [--session-ttl SECONDS] [--ca-cert PEM --ca-key PEM [--ca-index FILE] [--ocsp URL]] [--tls-cert PEM --tls-key PEM] [--trusted-proxy ADDRESS[/PREFIX]]... [--allow-unattested] [--metrics]"
    static let help = """
        Serves the v3 API (docs/cosigner-api.md) until interrupted. The database is one SQLite file
        (WAL; created and migrated on start), or a PostgreSQL database given as a libpq URI
        (--db postgresql://USER@HOST/DB; migrated on start; the server key must be given) that
        several instances can share; while it is unreachable requests are answered 503
        database-unavailable, and a database made by a newer tamga is refused
        (database-schema-newer). The server key (a 32-byte file, mode 0600, made on
        first start, or kept in the database wrapped by a token key) seals every server share and
        the server's ring-Pedersen parameters, which are made once and kept, since clients pin
        them. Prints one line "listening http://ADDRESS:PORT" when
        ready (port 0, the default, picks a free one). Plain HTTP: keep it on loopback or put TLS in
        front of it.
          --ca-cert, --ca-key  the CA that certifies enrolled keys (its key PEM unencrypted, or
                               the password from TAMGA_CA_PASSWORD); without them no certificates
          --ca-index FILE      append issued certificates to this openssl-ca index (an OCSP
                               responder reading it then knows them)
          --ocsp URL           the OCSP URL written into issued certificates
          --tls-cert, --tls-key  serve HTTPS with this certificate and key (PEM); devices pin the
                               key at enrollment
          --allow-unattested   accept device calls without X-Attestation (development only; a
                               call that carries one must still verify)
          --metrics            answer GET /metrics (Prometheus text format); without it, 404
          --threads N          HTTP worker threads, 1 to 64 (default 4); a request's work runs on
                               one, so this bounds the requests served at once
          --trusted-proxy ADDRESS[/PREFIX]
                               a proxy in front (HAProxy with send-proxy-v2), by address or range,
                               IPv4 or IPv6; repeat or separate with commas. Its connections must
                               start with a PROXY protocol v2 header, whose client address the
                               connection limits then count (others' headers are never read)
        \(CoSignerServerKey.helpLines)
        Connections: 256 at once, 32 from one address (an IPv6 /64); with 192 taken, an address
        gets only its fair share, a request must arrive whole within 3 s instead of 10, and once all
        are taken an address holding none gets in by shutting the slowest connection of the address
        holding the most (docs/cosigner-api.md, "Limits and abuse"). Refused connections are summed
        up on stderr once a minute.
        GET /v3/health answers 200 while the process serves; GET /v3/ready answers 200 when the
        database answers and has this version's schema, else 503 (for a load balancer's check).
        The first start makes the ring-Pedersen parameters (tens of seconds) and says so on stderr.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--allow-unattested", "--metrics"])
    static let options: Set<String> = CoSignerServerKey.options.union(ServerOptions.options)
        .union(["--db", "--session-ttl", "--ca-cert", "--ca-key", "--ca-index", "--ocsp"])

    fileprivate let files: CoSignerFiles
    let server: ServerOptions
    let sessionLifetime: TimeInterval
    let caCertificate: String?, caKey: String?, caIndex: String?, ocspURL: String?
    let requireAttestation: Bool
    let metrics: Bool
    let quiet: Bool

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("cosigner serve takes no arguments") }
        metrics = arguments.has("--metrics")
        quiet = GlobalOptions(arguments).quiet
        requireAttestation = !arguments.has("--allow-unattested")
        caCertificate = arguments.value("--ca-cert")
        caKey = arguments.value("--ca-key")
        caIndex = arguments.value("--ca-index")
        ocspURL = arguments.value("--ocsp")
        guard (caCertificate == nil) == (caKey == nil) else { throw UsageError("--ca-cert and --ca-key go together") }
        files = try CoSignerFiles(arguments)
        server = try ServerOptions(arguments)
        guard let ttl = TimeInterval(arguments.value("--session-ttl") ?? "300"), ttl > 0 else {
            throw UsageError("--session-ttl takes seconds")
        }
        sessionLifetime = ttl
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let store = try files.store(environment: context.environment)
        // Made only when the database has none (the first start of the first instance).
        let identity = try store.serverIdentity { random in
            quiet
                ? try RingPedersenSecret.generate(random: random)
                : try ParameterProgress(terminal: context.terminal).make(random: random)
        }
        var authority: CertificateAuthority? = nil
        if let caCertificate, let caKey {
            guard let certificate = FileManager.default.contents(atPath: caCertificate),
                let key = FileManager.default.contents(atPath: caKey)
            else {
                throw CoreError.unreadableFile(path: caCertificate, reason: "the CA certificate or key cannot be read")
            }
            authority = try CertificateAuthority(
                certificatePEM: certificate, keyPEM: key,
                password: context.environment["TAMGA_CA_PASSWORD"].map { SecretBytes(Array($0.utf8)) },
                ocspURL: ocspURL, indexFile: caIndex)
        }
        let service = CoSignerService(
            store: store,
            party: try ServerParty(
                pid: identity.pid, ringPedersen: identity.ringPedersen, sessionLifetime: sessionLifetime),
            sessionLifetime: sessionLifetime, certificateAuthority: authority,
            requireAttestation: requireAttestation)
        let tls = try server.loadTLS()
        let router = OperationsRouter(service: service, metrics: metrics ? CoSignerMetrics() : nil)
        let http = try HTTPServer(
            port: server.port, loopbackOnly: server.loopback, threads: server.threads,
            trustedProxies: server.trustedProxies, tls: tls
        ) { router.handle($0) }
        // Until SIGINT/SIGTERM: the interrupt handlers end the process (SQLite commits are durable)
        // and say that the server stopped. Set before "listening": a caller may stop us the moment
        // it reads that line.
        TamgaCommandLine.serving = true
        server.announceReady(port: http.port, context)
        while true { try await Task.sleep(nanoseconds: 3_600_000_000_000) }
    }
}

/// `tamga cosigner issue-code`
struct CoSignerIssueCodeCommand: Command {
    static let path = ["cosigner", "issue-code"]
    static let abstract = "Issues a one-time enrollment code for a document number (the operator's KYC step)."
    static let usage =
        "DOCUMENT-NUMBER [--db FILE|URI] [--server-key pkcs11:LABEL|FILE] [--create] [--ttl SECONDS] [--json]"
    static let help = """
        Prints a 12-character code, valid once for --ttl seconds (default 86400), that lets a device
        enroll threshold keys for DOCUMENT-NUMBER. Only its hash is stored, in the running
        co-signer's database (--db, default ./cosigner.db), which must exist unless --create; which
        database it went to is said on stderr (and as "database" in --json).
        \(CoSignerServerKey.helpLines)
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--create"])
    static let options: Set<String> = CoSignerServerKey.options.union(["--db", "--ttl"])

    fileprivate let files: CoSignerFiles
    let document: String
    let create: Bool
    let lifetime: TimeInterval
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1, let document = arguments.positionals.first, !document.isEmpty else {
            throw UsageError("give the document number")
        }
        self.document = document
        files = try CoSignerFiles(arguments)
        create = arguments.has("--create")
        guard let ttl = TimeInterval(arguments.value("--ttl") ?? "86400"), ttl > 0 else {
            throw UsageError("--ttl takes seconds")
        }
        lifetime = ttl
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let code = try files.existingStore(create: create, environment: context.environment).issueEnrollmentCode(
            documentNumber: document, lifetime: lifetime)
        if global.json {
            struct Issued: Encodable {
                let documentNumber: String
                let code: String
                let validSeconds: Int
                let database: String
            }
            context.terminal.json(
                Issued(documentNumber: document, code: code, validSeconds: Int(lifetime), database: files.databasePath))
        } else {
            context.terminal.line(code)
            if !global.quiet {
                context.terminal.error(
                    "tamga: code for \(document) written to \(files.databasePath), valid \(Int(lifetime)) s")
            }
        }
        return .success
    }
}

/// `tamga cosigner add-rp`
struct CoSignerAddRelyingPartyCommand: Command {
    static let path = ["cosigner", "add-rp"]
    static let abstract = "Registers a relying party and prints its API key (shown once)."
    static let usage = "NAME [--db FILE|URI] [--server-key pkcs11:LABEL|FILE] [--create] [--json]"
    static let help = """
        The relying party calls /v3/rp/* with Authorization: Bearer <API key>. NAME is what devices
        show ("Test Bank asks…") and what AUTH signatures bind (ACSP_V2), whatever the requests say.
        Only the key's hash is stored; a lost key means registering under a new name. The database
        (--db) must exist unless --create.
        Reserved (the co-signer's own sessions use them): \(ReservedNames.all.map { "\"\($0)\"" }.joined(separator: ", "))
        and names starting "device:", compared ignoring case, accents, width, spaces and
        punctuation (error threshold-reserved-name).
        \(CoSignerServerKey.helpLines)
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--create"])
    static let options: Set<String> = CoSignerServerKey.options.union(["--db"])
    fileprivate let files: CoSignerFiles
    let name: String
    let create: Bool
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1, let name = arguments.positionals.first, !name.isEmpty else {
            throw UsageError("give the relying party's name")
        }
        self.name = name
        files = try CoSignerFiles(arguments)
        create = arguments.has("--create")
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let key = try files.existingStore(create: create, environment: context.environment).addRelyingParty(name: name)
        if global.json { context.terminal.json(["name": name, "apiKey": key]) } else { context.terminal.line(key) }
        return .success
    }
}
