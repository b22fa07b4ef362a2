import ASiC
import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// `tamga trust update [--lotl URL] [--territory EE,LV,…] [--lotl-cert PEM]... [--allow-expired-trust]`
struct TrustUpdateCommand: Command {
    static let path = ["trust", "update"]
    static let abstract =
        "Downloads the EU list of trusted lists and the national lists it points to into the trust cache."
    static let usage =
        "[--lotl URL] [--territory EE,LV,LT,...] [--lotl-cert PEM]... [--allow-expired-trust] [--timeout SECONDS] [--proxy URL] [--json]"
    static let help = """
        The cache is $XDG_CACHE_HOME/tamga/trust/ (~/.cache/tamga/trust/ when unset); `tamga verify`
        without --trust/--tsl uses it. Each list is checked before it replaces the cached one: the list
        of lists (LOTL) with the pinned LOTL signers, each national list with the certificates the LOTL's
        pointer names for it. A failed download or check keeps the last good list. One line per list:
        territory, file, sequence number, issue date, next update, services (ca/ocsp/tsa), result
        (updated, unchanged, kept, failed, skipped).
        Options:
          --lotl URL          the list of lists (default: the one of the last update, else
                              \(EULOTLSigners.url))
          --territory LIST    only these national lists (comma-separated, repeatable; GR means EL)
          --lotl-cert FILE    PEM certificate(s) that may sign the LOTL, instead of the six EU LOTL
                              signers built into tamga (repeatable; remembered in the cache for later
                              updates of the same URL and for verify)
          --allow-expired-trust
                              accept lists past their NextUpdate (a publisher late with its next
                              list); each is cached with a warning, and verify uses it only with
                              --allow-expired-trust too
          --timeout SECONDS   per download (default 60)
          --proxy URL         an HTTP proxy (http://HOST:PORT; else http_proxy/https_proxy)
          --json              the report as JSON (schema in docs/cli.md)
        Exit codes: 0 every list updated or unchanged, 7 a list failed or was kept (the line says why).
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--allow-expired-trust"])
    static let options: Set<String> = ["--lotl", "--territory", "--lotl-cert", "--timeout", "--proxy"]

    let listOfLists: String?
    let territories: Set<String>?
    let signerFiles: [String]
    let timeout: TimeInterval
    let proxy: String?
    let allowExpiredTrust: Bool
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("trust update takes no file names") }
        listOfLists = arguments.value("--lotl")
        if let listOfLists, URL(string: listOfLists).map({ $0.scheme == "http" || $0.scheme == "https" }) != true {
            throw UsageError("--lotl takes an http(s) URL")
        }
        let named = arguments.all("--territory").flatMap { $0.split(separator: ",") }
            .map { $0.trimmedSpaces().uppercased() }.filter { !$0.isEmpty }
        territories = named.isEmpty ? nil : Set(named.map { $0 == "GR" ? "EL" : $0 })
        signerFiles = arguments.all("--lotl-cert")
        guard let timeout = TimeInterval(arguments.value("--timeout") ?? "60"), timeout > 0 else {
            throw UsageError("--timeout takes a number of seconds")
        }
        self.timeout = timeout
        proxy = arguments.value("--proxy")
        if let proxy, URL(string: proxy)?.scheme != "http" { throw UsageError("--proxy takes http://HOST:PORT") }
        allowExpiredTrust = arguments.has("--allow-expired-trust")
        global = GlobalOptions(arguments)
    }

    /// One `trust update` report, `--json`.
    struct Report: Encodable {
        let cache: String
        let listOfLists: String
        let ok: Bool
        let lists: [TrustedListUpdater.Line]
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let terminal = context.terminal
        let showProgress = terminal.interactiveErrors && !global.quiet
        let (cache, url, lines) = try await Self.update(
            context, listOfLists: listOfLists, signerFiles: signerFiles, territories: territories,
            allowExpiredTrust: allowExpiredTrust, timeout: timeout, proxy: proxy
        ) { step in
            if showProgress { terminal.status("downloading \(step)") }
        }
        if showProgress { terminal.status("") }
        for warning in lines.compactMap(\.warning) {
            terminal.error("warning: " + TerminalText.escaped(warning.message))
        }
        let ok = lines.allSatisfy { [.updated, .unchanged, .skipped].contains($0.result) }
        if global.json {
            terminal.json(Report(cache: cache.directory.path, listOfLists: url, ok: ok, lists: lines))
        } else {
            terminal.line("trust cache \(cache.directory.path)")
            for line in lines { terminal.line(Self.describe(line)) }
        }
        return ok ? .success : .serviceFailed
    }

    /// Updates the trust cache as `trust update` does (also `validation serve`'s background
    /// refresh): the list of lists of the last update unless `listOfLists` names another, with
    /// the pinned signers (the operator's from that update, or the built-in EU ones).
    static func update(
        _ context: CommandContext, listOfLists: String?, signerFiles: [String], territories: Set<String>?,
        allowExpiredTrust: Bool, timeout: TimeInterval, proxy: String?,
        progress: (String) -> Void = { _ in }
    ) async throws -> (cache: TrustCache, url: String, lines: [TrustedListUpdater.Line]) {
        let cache = try TrustShowCommand.cache(context)
        // Before any download: a cache folder that cannot be written is said plainly, with the variable to set.
        try UserFolder.create(
            cache.directory, holds: "the trusted lists of trust update",
            remedy: "Set \(UserFolder.cache.variable) to a folder you can write.")
        let state = cache.state()
        let url = listOfLists ?? state?.lotlURL ?? EULOTLSigners.url
        guard let lotl = URL(string: url) else { throw UsageError("--lotl takes an http(s) URL") }
        var signers = EULOTLSigners.certificates
        var customPEM: Data? = nil
        if !signerFiles.isEmpty {
            signers = try VerifyCommand.loadCertificates(signerFiles)
            customPEM = Data(signers.map(\.pem).joined(separator: "\n").utf8)
        } else if let state, state.customSigners, state.lotlURL == url {
            // The operator's signers from an earlier update of the same list stay in force.
            signers = try cache.listOfListsSigners(state)
            customPEM = Data(signers.map(\.pem).joined(separator: "\n").utf8)
        }
        var transport = HTTPTransport(timeout: timeout)
        if let proxy { transport.useProxy(proxy) }
        var updater = TrustedListUpdater(
            cache: cache, signers: signers, customSignersPEM: customPEM, transport: transport)
        updater.territories = territories
        updater.allowExpired = allowExpiredTrust
        let lines = await updater.update(listOfLists: lotl, progress: progress)
        return (cache, url, lines)
    }

    static func describe(_ line: TrustedListUpdater.Line) -> String {
        var parts = [line.territory.padded(to: 3)]
        if let file = line.file { parts.append(file) }
        if let sequence = line.sequenceNumber { parts.append("seq \(sequence)") }
        if let issued = line.issued { parts.append("issued \(issued)") }
        if let next = line.nextUpdate { parts.append("next update \(next)") }
        if let services = line.services { parts.append(TrustShowCommand.describe(services)) }
        var result = line.result.rawValue
        if let error = line.error { result += ": \(error.message) [\(error.code)]" }
        if let warning = line.warning { result += " (expired: \(warning.code))" }
        parts.append(result)
        return parts.joined(separator: "  ")
    }
}

/// `tamga trust show [--json]`
struct TrustShowCommand: Command {
    static let path = ["trust", "show"]
    static let abstract = "Shows the cached trusted lists: where they come from, how fresh they are, their services."
    static let usage = "[--json]"
    static let help = """
        Every cached list is checked again (signature, signer) as verify would check it; expired
        lists are shown as expired. Exit codes: 0 the cache is usable, 5 no cache (run
        `tamga trust update`) or no usable national list, 3 the cached list of lists is refused.
        Options:
          --json    as JSON (schema in docs/cli.md)
        """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = []

    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("trust show takes no arguments") }
        global = GlobalOptions(arguments)
    }

    static func cache(_ context: CommandContext) throws -> TrustCache {
        guard let cache = TrustCache(environment: context.environment) else {
            throw UsageError("set HOME or XDG_CACHE_HOME: the trust cache lives there")
        }
        return cache
    }

    struct ListState: Encodable {
        let territory: String
        let file: String
        let url: String?
        /// ok, expired, missing (not downloaded), refused.
        let status: String
        let sequenceNumber: Int?
        let issued: String?
        let nextUpdate: String?
        let services: [String: Int]?
        let error: TrustedListUpdater.Problem?
    }

    struct Report: Encodable {
        let cache: String
        let configured: Bool
        let listOfLists: String?
        let lotlSigners: String?
        let updated: String?
        let lists: [ListState]
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let cache = try Self.cache(context)
        let terminal = context.terminal
        guard let state = cache.state() else {
            if global.json {
                terminal.json(
                    Report(
                        cache: cache.directory.path, configured: false, listOfLists: nil, lotlSigners: nil,
                        updated: nil, lists: []))
            } else {
                terminal.line("no trust cache in \(cache.directory.path): run `tamga trust update`")
            }
            return .trustNotEstablished
        }
        let now = Date()
        let set = try cache.load(now: now, allowExpired: true) ?? { throw TrustedListError.noTrustConfigured }()
        func status(_ list: TrustedList) -> String { list.isExpired(at: now) ? "expired" : "ok" }
        let top = set.listOfLists
        var lists = [
            ListState(
                territory: "EU", file: state.lotlFile, url: state.lotlURL, status: status(top),
                sequenceNumber: top.sequenceNumber,
                issued: top.issued.map(XSDDateTime.format), nextUpdate: top.nextUpdate.map(XSDDateTime.format),
                services: ["pointers": top.pointers.filter(\.isFollowed).count], error: nil)
        ]
        for entry in set.entries {
            let list = entry.list
            lists.append(
                ListState(
                    territory: entry.pointer.territory, file: entry.pointer.cacheFileName, url: entry.pointer.location,
                    status: list.map(status) ?? (entry.source == nil ? "missing" : "refused"),
                    sequenceNumber: list?.sequenceNumber, issued: list?.issued.map(XSDDateTime.format),
                    nextUpdate: list?.nextUpdate.map(XSDDateTime.format), services: list?.serviceCounts,
                    error: entry.error.map(TrustedListUpdater.problem)))
        }
        let signers = state.customSigners ? "custom (\(TrustCache.signersFile))" : "built-in EU LOTL signers"
        if global.json {
            terminal.json(
                Report(
                    cache: cache.directory.path, configured: true, listOfLists: state.lotlURL, lotlSigners: signers,
                    updated: XSDDateTime.format(state.updated), lists: lists))
        } else {
            terminal.line(
                "trust cache \(cache.directory.path), updated \(XSDDateTime.format(state.updated)) (\(Self.age(since: state.updated, now: now)) ago)"
            )
            terminal.line("list of lists \(state.lotlURL), signers: \(signers)")
            for list in lists {
                var parts = [list.territory.padded(to: 3), list.file, list.status]
                if let sequence = list.sequenceNumber { parts.append("seq \(sequence)") }
                if let issued = list.issued { parts.append("issued \(issued)") }
                if let next = list.nextUpdate { parts.append("next update \(next)") }
                if let services = list.services { parts.append(Self.describe(services)) }
                if let error = list.error { parts.append("\(error.message) [\(error.code)]") }
                terminal.line(parts.joined(separator: "  "))
            }
        }
        return lists.dropFirst().contains { $0.status == "ok" } ? .success : .trustNotEstablished
    }

    static func describe(_ services: [String: Int]) -> String {
        if let pointers = services["pointers"] { return "\(pointers) pointers" }
        return ["ca", "ocsp", "tsa"].map { "\($0) \(services[$0] ?? 0)" }.joined(separator: ", ")
    }

    static func age(since date: Date, now: Date) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        if seconds < 3600 { return "\(seconds / 60) min" }
        if seconds < 86400 * 2 { return "\(seconds / 3600) h" }
        return "\(seconds / 86400) days"
    }
}
