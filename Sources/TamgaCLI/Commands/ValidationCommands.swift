import ASiC
import FoundationEssentials
import HTTPService
import TamgaCore
import TamgaSupport
import ValidationService

/// `tamga validation serve`: SiVa's REST JSON interface, self-hosted (docs/siva.md).
struct ValidationServeCommand: Command {
    static let path = ["validation", "serve"]
    static let abstract = "Serves SiVa's validation API (POST /validate) over HTTP, validating as tamga verify does."
    static let usage = "[--port N] [--listen loopback|any] [--threads N] [--max-document-size BYTES] [--trust CA.pem]... [--certs CERTS.pem]... [--tsl LIST.xml --tsl-cert SIGNER.pem] [--allow-expired-trust] [--tls-cert PEM --tls-key PEM] [--trusted-proxy ADDRESS[/PREFIX]]..."
    static let help = """
    Answers SiVa v3's POST /validate (docs/siva.md: the request, the report, the errors, and
    where tamga differs from SiVa) until interrupted, with GET /monitoring/health, /heartbeat and
    /version. Each document is judged as `tamga verify` judges the same file, with the trust
    given here (as for verify: --trust/--certs PEM anchors, --tsl/--tsl-cert a list or list of
    lists, else the trust cache that `tamga trust update` fills); DDOCs are judged with the DDOC
    trust set as well. Nothing is kept: a document is written to a private temporary file for
    the time of its validation only. Prints one line "listening http://ADDRESS:PORT" when ready
    (port 0, the default, picks a free one).
      --max-document-size BYTES  the largest document accepted, decoded (default 10485760, SiVa's
                           former default); a request body larger than its base64 is answered
                           413 before it is read whole
      --threads N          validations at once, 1 to 64 (default 4)
      --tls-cert, --tls-key  serve HTTPS with this certificate and key (PEM)
      --trusted-proxy ADDRESS[/PREFIX]
                           a proxy in front (HAProxy with send-proxy-v2), as for cosigner serve
    Connections are limited as the co-signer's are (cosigner serve --help); a request must
    arrive whole within 60 s.
    """
    static let flags: Set<String> = GlobalOptions.flags.union(["--allow-expired-trust"])
    static let options: Set<String> = ServerOptions.options.union(["--max-document-size", "--trust", "--certs", "--tsl", "--tsl-cert", "--tm-responder-policy"])

    let trust: VerifyCommand
    let server: ServerOptions
    let maximumDocumentSize: Int

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("validation serve takes no arguments") }
        trust = try VerifyCommand(trustOptionsOf: arguments)
        server = try ServerOptions(arguments)
        guard let size = Int(arguments.value("--max-document-size") ?? "\(SiVaService.defaultMaximumDocumentSize)"), size > 0, size <= 1 << 30 else {
            throw UsageError("--max-document-size takes a number of bytes from 1 to 1073741824")
        }
        maximumDocumentSize = size
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let store = TrustStore(anchors: try VerifyCommand.loadCertificates(trust.trustFiles),
                               intermediates: try VerifyCommand.loadCertificates(trust.certificateFiles))
        // Trust is resolved once, at start: every list it reads is checked then.
        let resolved = try trust.resolveTrustedLists(context, explicitAnchors: !trust.trustFiles.isEmpty, territories: nil)
        let unconfigured = "tamga: \(TrustedListError.noTrustConfigured)"
        for problem in resolved.problems where problem != unconfigured { context.terminal.error(problem) }
        if resolved.list == nil && trust.trustFiles.isEmpty {
            context.terminal.error("tamga: validation serve: no trust configured (no --trust, --tsl or trust cache): only DDOCs, with the DDOC trust set, can be VALID; run `tamga trust update`")
        }
        var options = ValidationOptions(trust: store, trustedList: resolved.list, minimumProfile: .LT)
        options.timeMarkResponderPolicies.formUnion(trust.timeMarkResponderPolicies)
        options.trustNotices = resolved.notices
        let fixed = options
        let service = try SiVaService(maximumDocumentSize: maximumDocumentSize, version: TamgaCommandLine.version) { fixed }
        let http = try HTTPServer(port: server.port, loopbackOnly: server.loopback, threads: server.threads,
                                  maximumBody: SiVaService.maximumBody(forDocumentSize: maximumDocumentSize),
                                  requestDeadline: 60, pressureRequestDeadline: 20, trustedProxies: server.trustedProxies,
                                  headerNames: ["content-type"], queryNames: [], tls: try server.loadTLS(),
                                  oversizedBody: SiVaService.requestTooLarge) { service.handle($0) }
        TamgaCommandLine.serving = true
        context.terminal.line(server.listeningLine(port: http.port))
        while true { try await Task.sleep(nanoseconds: 3_600_000_000_000) }
    }
}
