import ASiC
import FoundationEssentials
import HTTPService
import TamgaCore
import TamgaSupport
import ValidationService

/// `tamga validation serve`: SiVa's REST JSON interface, self-hosted (docs/siva.md).
struct ValidationServeCommand: Command {
    static let path = ["validation", "serve"]
    static let abstract =
        "Serves SiVa's validation API (POST /validate, /validateHashcode, /getDataFiles) over HTTP, validating as tamga verify does."
    static let usage =
        "[--port N] [--listen loopback|any] [--threads N] [--queue N] [--max-document-size BYTES] [--trust CA.pem]... [--certs CERTS.pem]... [--tsl LIST.xml --tsl-cert SIGNER.pem] [--allow-expired-trust] [--trust-refresh SECONDS] [--tls-cert PEM --tls-key PEM] [--trusted-proxy ADDRESS[/PREFIX]]... [--metrics] [--log-names] [--quiet]"
    static let help = """
        Answers SiVa v3's POST /validate, /validateHashcode and /getDataFiles (docs/siva.md: the
        request, the report, the errors, and where tamga differs from SiVa) until interrupted, with
        GET /monitoring/health, /heartbeat, /version and /ready. Each document is judged as `tamga
        verify` judges the same file, with the trust given here (as for verify: --trust/--certs PEM
        anchors, --tsl/--tsl-cert a list or list of lists, else the trust cache that `tamga trust
        update` fills); DDOCs are judged with the DDOC trust set as well. Nothing is kept: a
        document is written to a private temporary file for the time of its validation only. Prints
        one line "listening http://ADDRESS:PORT" when ready (port 0, the default, picks a free one).
          --max-document-size BYTES  the largest document accepted, decoded (default 10485760, SiVa's
                               former default); a request body larger than its base64 is answered
                               413 before it is read whole
          --threads N          validations at once, 1 to 64 (default 4)
          --queue N            validations that may wait for a turn, 0 to 256 (default 2 per
                               thread); beyond them 503 serviceBusy with Retry-After: 1
          --trust-refresh SECONDS
                               the longest time between trust refreshes (default 86400); the lists
                               are refreshed at their next update if that is sooner. From the trust
                               cache: the list of lists is downloaded again and checked, as `trust
                               update` does; from --tsl: the files are read again. A refresh that
                               fails keeps the last good lists (until their next update) and is
                               tried again after 5 minutes, doubling
          --metrics            answer GET /metrics (Prometheus text format); without it, 404
          --log-names          put the document's (or hashcode data files') names in the access log
          --quiet              no access log
          --tls-cert, --tls-key  serve HTTPS with this certificate and key (PEM)
          --trusted-proxy ADDRESS[/PREFIX]
                               a proxy in front (HAProxy with send-proxy-v2), as for cosigner serve
        The access log is one JSON line per request on standard error: time, client, method, route,
        status, request and response bytes, microseconds, signatures and valid signatures; never
        the document, and its name only with --log-names. GET /monitoring/ready answers 200 while
        the configured trust is usable, 503 when the trusted lists are gone (none usable, or past
        their next update with no refresh), with the trust's state and its last refresh in the body
        either way. With systemd (Type=notify) READY=1 is sent once listening.
        Connections are limited as the co-signer's are (cosigner serve --help); a request must
        arrive whole within 60 s.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--allow-expired-trust", "--metrics", "--log-names"])
    static let options: Set<String> = ServerOptions.options.union([
        "--max-document-size", "--trust", "--certs", "--tsl", "--tsl-cert", "--tm-responder-policy",
        "--queue", "--trust-refresh",
    ])

    let trust: VerifyCommand
    let server: ServerOptions
    let maximumDocumentSize: Int
    let queue: Int
    let refreshInterval: TimeInterval
    let metrics: Bool
    let logNames: Bool
    let quiet: Bool

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("validation serve takes no arguments") }
        trust = try VerifyCommand(trustOptionsOf: arguments)
        server = try ServerOptions(arguments)
        guard let size = Int(arguments.value("--max-document-size") ?? "\(SiVaService.defaultMaximumDocumentSize)"),
            size > 0, size <= 1 << 30
        else {
            throw UsageError("--max-document-size takes a number of bytes from 1 to 1073741824")
        }
        maximumDocumentSize = size
        guard let queue = Int(arguments.value("--queue") ?? "\(2 * Int(server.threads))"), (0...256).contains(queue)
        else {
            throw UsageError("--queue takes a number from 0 to 256")
        }
        self.queue = queue
        guard let refresh = TimeInterval(arguments.value("--trust-refresh") ?? "86400"), refresh >= 1,
            refresh <= 366 * 86400
        else {
            throw UsageError("--trust-refresh takes seconds, from 1 to 31622400")
        }
        refreshInterval = refresh
        metrics = arguments.has("--metrics")
        logNames = arguments.has("--log-names")
        quiet = GlobalOptions(arguments).quiet
    }

    /// Trust as `verify` would resolve it now; its problems are the load's, said by the caller.
    private func loadTrust(_ context: CommandContext, store: TrustStore) throws -> ServiceTrust.Loaded {
        let resolved = try trust.trustSelection(context, hasAnchors: !trust.trustFiles.isEmpty)
            .resolve(territories: nil)
        var options = ValidationOptions(trust: store, trustedList: resolved.list, minimumProfile: .LT)
        options.timeMarkResponderPolicies.formUnion(trust.timeMarkResponderPolicies)
        options.trustNotices = resolved.notices
        let unconfigured = "tamga: \(TrustedListError.noTrustConfigured)"
        return ServiceTrust.Loaded(
            options: options,
            territories: resolved.list.map { $0.territory.split(separator: "+").map(String.init) } ?? [],
            nextUpdate: resolved.list?.nextUpdate, problems: resolved.problems.filter { $0 != unconfigured })
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let store = TrustStore(
            anchors: try VerifyCommand.loadCertificates(trust.trustFiles),
            intermediates: try VerifyCommand.loadCertificates(trust.certificateFiles))
        let initial = try loadTrust(context, store: store)
        for problem in initial.problems { context.terminal.error(problem) }
        // Without --trust or --tsl the trust cache is the source even when it is empty: the
        // first refresh, at once, fills it (a service started by systemd has nobody to run
        // `trust update` for it).
        let source: ServiceTrust.Source =
            trust.trustedListFile != nil ? .listFile : !trust.trustFiles.isEmpty ? .anchors : .cache
        let emptyCache = source == .cache && initial.options.trustedList == nil
        if emptyCache {
            context.terminal.error(
                "tamga: validation serve: the trust cache is empty: downloading the list of lists now (until it is in, only DDOCs, with the DDOC trust set, can be VALID, and /monitoring/ready answers 503)"
            )
        }
        // Refreshed: the cache from its list of lists' URL, then read as verify reads it; a
        // --tsl file read again. Anchors alone have nothing to refresh.
        var reload: (@Sendable () async throws -> ServiceTrust.Loaded)? = nil
        if source == .cache || source == .listFile {
            let command = self
            reload = { [store] in
                var problems: [String] = []
                if source == .cache {
                    let (_, url, lines) = try await TrustUpdateCommand.update(
                        context, listOfLists: nil, signerFiles: [], territories: nil,
                        allowExpiredTrust: command.trust.allowExpiredTrust, timeout: 60, proxy: nil)
                    for line in lines where ![.updated, .unchanged, .skipped].contains(line.result) {
                        problems.append(
                            "the \(line.territory) list (\(line.url)) was \(line.result.rawValue)\(line.error.map { ": \($0.message) [\($0.code)]" } ?? "")"
                        )
                    }
                    if lines.isEmpty { problems.append("the list of lists \(url) gave nothing") }
                }
                var loaded = try command.loadTrust(context, store: store)
                loaded.problems = problems + loaded.problems
                return loaded
            }
        }
        let serviceTrust = ServiceTrust(
            source: source,
            initial: ServiceTrust.Loaded(
                options: initial.options, territories: initial.territories,
                nextUpdate: initial.nextUpdate),
            interval: refreshInterval, reload: reload)
        let service = try SiVaService(maximumDocumentSize: maximumDocumentSize, version: TamgaCommandLine.version) {
            serviceTrust.options()
        }
        let gate = AdmissionGate(running: Int(server.threads), waiting: queue)
        let log: @Sendable (String) -> Void = { line in
            FileDescriptorOutput.write(line + "\n", to: FileDescriptorOutput.standardError)
        }
        let operations = ValidationOperations(
            service: service, trust: serviceTrust, gate: gate,
            metrics: metrics ? ValidationMetrics() : nil,
            accessLog: quiet ? nil : AccessLog(includeNames: logNames, write: log))
        // More HTTP threads than validations: a request beyond the queue is refused, and a
        // load balancer's probe answered, by a thread that is not validating.
        let http = try HTTPServer(
            port: server.port, loopbackOnly: server.loopback, threads: server.threads + UInt32(queue) + 2,
            maximumBody: SiVaService.maximumBody(forDocumentSize: maximumDocumentSize),
            requestDeadline: 60, pressureRequestDeadline: 20, trustedProxies: server.trustedProxies,
            headerNames: ["content-type"], queryNames: [], tls: try server.loadTLS(),
            oversizedBody: SiVaService.requestTooLarge
        ) { operations.handle($0) }
        TamgaCommandLine.serving = true
        server.announceReady(port: http.port, context)
        if emptyCache, await serviceTrust.refresh() == false {
            log("tamga: trust refresh failed: \(serviceTrust.status().lastFailure ?? "")")
        }
        await serviceTrust.runRefreshes(log: log)
        while true { try await Task.sleep(nanoseconds: 3_600_000_000_000) }
    }
}
