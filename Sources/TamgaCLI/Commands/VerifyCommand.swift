import Foundation
import ASiC
import TamgaCore

/// `tamga verify CONTAINER [--trust CA.pem]`
struct VerifyCommand: Command {
    static let path = ["verify"]
    static let abstract = "Checks every signature of a container and prints a verdict per signature."
    static let usage = "CONTAINER [--trust CA.pem]... [--tsl LIST.xml --tsl-cert SIGNER.pem] [--allow-expired-trust] [--certs CERTS.pem]... [--min-profile B|T|LT|LTA] [--json]"
    static let help = """
    Checks: container structure; manifest against the signed references (every data file signed,
    nothing extra); every digest; the SignatureValue with the KeyInfo certificate's key only; the
    signing-certificate reference; nonRepudiation; the certificate chain.
    Trust: without --trust and --tsl, the lists of `tamga trust update` (the trust cache); with
    no trust option and no cache, every signature is at best UNKNOWN and tamga says "no trust
    configured".
    Options:
      --trust FILE    PEM certificates to trust as anchors (repeatable); without any, a signature
                      can be intact but its status is UNKNOWN (exit 5)
      --tsl FILE      an ETSI TS 119 612 trusted list (offline): its CA/QC, TSA/QTST and OCSP/QC
                      services, as granted at each time-stamp, are the anchors; qualification is
                      judged too (NON_QSCD when not a qualified signature). A list of lists (LOTL)
                      works too: each national list it points to is read from the file beside it
                      named like the last segment of the pointer's TSLLocation (…/EE_T.xml →
                      EE_T.xml), else from the trust cache, and checked with the certificates the
                      pointer names; the lists found together are the trust
      --tsl-cert FILE the certificate(s) allowed to sign the list or the list of lists (required
                      with --tsl; the list is refused unless its signature verifies with one of them)
      --allow-expired-trust  use trusted lists past their NextUpdate (validating archives
                      offline); the report says so (warning trust-list-expired). The lists'
                      service history still decides what was granted at the time that counts
      --certs FILE    PEM certificates that may complete a chain (issuing CAs), not trusted
      --min-profile P signatures below P are INVALID (default LT, as DigiDoc: B and T carry no
                      proof that the certificate was valid and unrevoked when signing)
      --json          the report as JSON (schema in docs/cli.md)
    Exit codes: 0 all VALID/WARNING, 1 something INVALID or no signatures, 3 container or trusted
    list refused (an expired list says when it expired), 5 intact but trust not established.
    """
    static let flags: Set<String> = GlobalOptions.flags.union(["--allow-expired-trust"])
    static let options: Set<String> = ["--trust", "--certs", "--min-profile", "--tsl", "--tsl-cert"]

    let container: String
    let trustFiles: [String]
    let certificateFiles: [String]
    let minimumProfile: SignatureProfile
    let trustedListFile: String?
    let trustedListSigners: [String]
    let allowExpiredTrust: Bool
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1 else { throw UsageError("give exactly one container to verify") }
        container = arguments.positionals[0]
        trustFiles = arguments.all("--trust")
        certificateFiles = arguments.all("--certs")
        minimumProfile = try SignatureProfile(argument: arguments.value("--min-profile") ?? "LT")
        trustedListFile = arguments.value("--tsl")
        trustedListSigners = arguments.all("--tsl-cert")
        if trustedListFile != nil && trustedListSigners.isEmpty {
            throw UsageError("--tsl needs --tsl-cert: the certificate that signs the list, which tamga pins")
        }
        allowExpiredTrust = arguments.has("--allow-expired-trust")
        global = GlobalOptions(arguments)
    }

    static func loadCertificates(_ paths: [String]) throws -> [Certificate] {
        try paths.flatMap { path -> [Certificate] in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CoreError.unreadableFile(path: path, reason: "no such file or not readable")
            }
            let pem = try Certificate.parseAll(pem: data)
            return pem.isEmpty ? [try Certificate(der: data)] : pem
        }
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let trust = TrustStore(anchors: try Self.loadCertificates(trustFiles),
                               intermediates: try Self.loadCertificates(certificateFiles))
        // The container first: a missing or hostile one is the error to report, not the trust.
        let opened = try Container(openingAt: container)
        let (trustedList, notices) = try resolveTrustedLists(context, explicitAnchors: !trustFiles.isEmpty)
        opened.progress = context.terminal.progress(quiet: global.quiet)
        var options = ValidationOptions(trust: trust, trustedList: trustedList, minimumProfile: minimumProfile)
        options.trustNotices = notices
        let report = opened.validate(options)
        if global.json {
            context.terminal.json(report)
        } else {
            Self.printReport(report, context.terminal)
        }
        switch report.status {
        case .valid, .warning, .nonQSCD: return .success
        case .unknown: return .trustNotEstablished
        case .invalid: return .verificationFailed
        }
    }

    /// The trusted lists to validate with: `--tsl` (a national list or a list of lists), else the
    /// trust cache when neither `--trust` nor `--tsl` is given. Lists that cannot be used are
    /// named on stderr; an expired list in use becomes a notice for the report.
    private func resolveTrustedLists(_ context: CommandContext, explicitAnchors: Bool) throws -> (TrustedList?, [TrustNotice]) {
        let now = Date()
        let cache = TrustCache(environment: context.environment)
        let set: TrustedListSet
        if let trustedListFile {
            guard let data = Self.readCapped(trustedListFile) else {
                throw CoreError.unreadableFile(path: trustedListFile, reason: "no such file or not readable")
            }
            let signers = try Self.loadCertificates(trustedListSigners)
            // A signer that is not allowed may still be one a pivot list announces, for a list of lists.
            var single: TrustedList? = nil
            do {
                single = try TrustedList(data: data, signers: signers, now: now, allowExpired: allowExpiredTrust)
            } catch TrustedListError.untrustedSigner {}
            if let single, single.kind == .national {
                return (single, single.isExpired(at: now) ? [Self.expiredNotice(single)] : [])
            }
            // The files beside the LOTL were given with it; the cache may hold another LOTL's lists.
            let folder = URL(fileURLWithPath: trustedListFile).deletingLastPathComponent()
            let pivots: (String) -> Data? = { uri in
                if let name = URL(string: uri)?.lastPathComponent, !name.isEmpty, name != "/",
                   let bytes = Self.readCapped(folder.appendingPathComponent(name).path) { return bytes }
                return cache?.pivot(uri)
            }
            set = try TrustedListSet.load(listOfLists: data, signers: signers, now: now, allowExpired: allowExpiredTrust,
                                          signerError: .untrustedSigner, name: URL(fileURLWithPath: trustedListFile).lastPathComponent,
                                          pivots: pivots) { pointer in
                if let name = pointer.locationFileName {
                    let path = folder.appendingPathComponent(name).path
                    if let bytes = Self.readCapped(path) { return (bytes, path) }
                }
                guard let cache, let bytes = Self.readCapped(cache.path(pointer.cacheFileName)) else { return nil }
                return (bytes, cache.path(pointer.cacheFileName))
            }
        } else if explicitAnchors {
            return (nil, [])
        } else {
            guard let cached = try cache?.load(now: now, allowExpired: allowExpiredTrust) else {
                context.terminal.error("tamga: \(TrustedListError.noTrustConfigured)")
                return (nil, [.noTrustConfigured])
            }
            set = cached
        }
        for entry in set.entries {
            if let error = entry.error {
                context.terminal.error("tamga: trust: the \(entry.pointer.territory) list (\(entry.source ?? entry.pointer.location)) was not used: \(error) [\(error.code)]")
            }
        }
        if set.lists.isEmpty {
            context.terminal.error("tamga: trust: no national list of the list of lists is usable; run `tamga trust update`")
        }
        return (set.union, set.expiredInUse.map(Self.expiredNotice))
    }

    private static func expiredNotice(_ list: TrustedList) -> TrustNotice {
        let name = list.kind == .listOfLists ? "list of trusted lists" : "\(list.territory) trusted list"
        let when = list.nextUpdate.map { "expired on \(XSDDateTime.format($0))" } ?? "has no NextUpdate"
        return .expiredListUsed("the \(name) \(when); used because of --allow-expired-trust")
    }

    private static func readCapped(_ path: String) -> Data? { TrustCache.readCapped(path) }

    static func printReport(_ report: ValidationReport, _ t: Terminal) {
        t.line("\(report.container): \(report.status.rawValue)")
        t.line("  data files: \(report.dataFiles.joined(separator: ", "))")
        for finding in report.findings { t.line("  \(finding.severity.rawValue.lowercased()): \(finding.message) [\(finding.code)]") }
        for (index, s) in report.signatures.enumerated() {
            t.line("  signature \(index + 1) (\(s.id ?? "no id"), \(s.file)): \(s.status.rawValue), profile \(s.profile)")
            if let signer = s.signer { t.line("    signer: \(signer)") }
            if let time = s.timeStampTime { t.line("    time-stamped: \(time)") }
            if let time = s.signingTime { t.line("    claimed signing time: \(time)") }
            for finding in s.findings { t.line("    \(finding.severity.rawValue.lowercased()): \(finding.message) [\(finding.code)]") }
        }
    }
}
