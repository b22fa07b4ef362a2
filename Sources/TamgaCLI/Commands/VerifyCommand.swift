import ASiC
internal import CDeferredLibraries
import Dispatch
import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// `tamga verify CONTAINER [--trust CA.pem]`
struct VerifyCommand: Command {
    static let path = ["verify"]
    static let abstract = "Checks every signature of a container and prints a verdict per signature."
    static let usage =
        "CONTAINER [--trust CA.pem]... [--tsl LIST.xml --tsl-cert SIGNER.pem] [--allow-expired-trust] [--certs CERTS.pem]... [--min-profile B|T|LT|LTA] [--tm-responder-policy OID]... [--verbose] [-q | -qq] [--json]"
    static let help = """
        Checks: container structure; manifest against the signed references (every data file signed,
        nothing extra); every digest; the SignatureValue with the KeyInfo certificate's key only; the
        signing-certificate reference; nonRepudiation; the certificate chain at the time-stamp's time
        and at the certificate's issue date (notBefore), when its CA must already have been trusted.
        BDOC 2.1 time-marks (profile TM; TM-A with archive time-stamps is INVALID, as in SiVa, where
        DigiDoc ignores them) are validated, never created: the BDOC 2.1 signature policy, the first OCSP response
        that verifies (responder trusted at producedAt, status good), the responder's time-mark policy,
        and the nonce = DigestInfo(hash(SignatureValue)); the signer is judged at notBefore and at producedAt.
        ASiC-S (.asics, .scs): XAdES in META-INF/signatures.xml is checked the same way (its one
        reference must be the data object); a time-stamp token META-INF/timestamp.tst (profile
        TimeStampToken) must cover the data object's bytes, its TSA trusted at genTime (untrusted:
        UNKNOWN), and its archive-manifest renewals are checked oldest first. For DigiDoc's archive
        x.asice.asics only the token is checked: extract x.asice and verify it too.
        DigiDoc XML (.ddoc, SK-XML 1.0, DIGIDOC-XML 1.1–1.3, hashcode form too) is verified offline as
        the format defines it (docs/cli.md, DDOC): every DataFile digest, the SignatureValue, the
        signing certificate, the OCSP confirmation (its nonce the SignatureValue's SHA-1) and the
        chain at its producedAt, with SK's historical CAs and responders (the DDOC trust set) trusted
        by default; SHA-1 is a warning.
        Trust: without --trust and --tsl, "trust" in config.json (anchors, or "cache"), else the lists
        of `tamga trust update` (the trust cache); with no trust option and no cache, every signature is at best UNKNOWN and tamga says "no trust
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
                          proof that the certificate was valid and unrevoked when signing; TM counts as LT)
          --tm-responder-policy OID
                          also accept this certificate policy OID on a time-mark's OCSP responder
                          (repeatable; adds to the production 1.3.6.1.4.1.10015.4.1.2, e.g. for SK's
                          test responders, 1.3.6.1.4.1.10015.3.1.1)
          --verbose, -v   also each signer's full certificate subject (RFC 4514); without it a signer
                          is shown as a person reads the name: given name and surname (or the common
                          name) and the personal code
          --json          the report as JSON (schema in docs/cli.md): "signer" the full subject,
                          "signerName" as shown
          -q, --quiet     one line: the container's name and its verdict
          -qq             nothing at all: only the exit code says (errors that stop the check are
                          still said on stderr)
        Exit codes: 0 all VALID/WARNING, 1 something INVALID or no signatures, 3 container or trusted
        list refused (an expired list says when it expired), 5 intact but trust not established.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--allow-expired-trust", "--verbose", "-v", "-qq"])
    static let options: Set<String> = [
        "--trust", "--certs", "--min-profile", "--tsl", "--tsl-cert", "--tm-responder-policy",
    ]

    let container: String
    let trustFiles: [String]
    let certificateFiles: [String]
    let minimumProfile: SignatureProfile
    let trustedListFile: String?
    let trustedListSigners: [String]
    /// Added to the production time-mark responder policy.
    let timeMarkResponderPolicies: [String]
    let allowExpiredTrust: Bool
    let verbose: Bool
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1 else { throw UsageError("give exactly one container to verify") }
        try self.init(
            container: arguments.positionals[0], arguments: arguments,
            minimumProfile: try SignatureProfile(argument: arguments.value("--min-profile") ?? "LT"),
            verbose: arguments.has("--verbose") || arguments.has("-v"))
    }

    private init(container: String, arguments: ParsedArguments, minimumProfile: SignatureProfile, verbose: Bool) throws
    {
        self.container = container
        trustFiles = arguments.all("--trust")
        certificateFiles = arguments.all("--certs")
        self.minimumProfile = minimumProfile
        trustedListFile = arguments.value("--tsl")
        trustedListSigners = arguments.all("--tsl-cert")
        timeMarkResponderPolicies = arguments.all("--tm-responder-policy")
        // A typo would silently accept nothing: only dotted OIDs are taken.
        for oid in timeMarkResponderPolicies where !Self.isDottedOID(oid) {
            throw UsageError("--tm-responder-policy takes a dotted OID such as 1.3.6.1.4.1.10015.3.1.1, not '\(oid)'")
        }
        if trustedListFile != nil && trustedListSigners.isEmpty {
            throw UsageError("--tsl needs --tsl-cert: the certificate that signs the list, which tamga pins")
        }
        allowExpiredTrust = arguments.has("--allow-expired-trust")
        self.verbose = verbose
        global = GlobalOptions(arguments)
    }

    /// The trust options alone (`--trust`, `--certs`, `--tsl`, `--tsl-cert`,
    /// `--allow-expired-trust`, `--tm-responder-policy`), for a command that validates what it
    /// is sent rather than a file it is given (`validation serve`): it resolves trust as verify does.
    init(trustOptionsOf arguments: ParsedArguments) throws {
        try self.init(container: "", arguments: arguments, minimumProfile: .LT, verbose: false)
    }

    /// `1.2.840…`: at least two numeric arcs, no empty ones, no leading zeros.
    static func isDottedOID(_ text: String) -> Bool {
        let arcs = text.split(separator: ".", omittingEmptySubsequences: false)
        return arcs.count >= 2
            && arcs.allSatisfy { arc in
                !arc.isEmpty && arc.allSatisfy { $0.isASCII && $0.isNumber } && (arc == "0" || arc.first != "0")
            }
    }

    /// The trust store of `--trust` and `--certs` files, read on a dispatch worker.
    private final class TrustLoading: @unchecked Sendable {
        // Written once by the worker before `done` is signalled, read only after waiting for it.
        private var result: Result<TrustStore, Error> = .failure(CancellationError())
        private let done = DispatchSemaphore(value: 0)

        init(anchors: [String], intermediates: [String]) {
            DispatchQueue.global().async { [self] in
                result = Result {
                    TrustStore(
                        anchors: try VerifyCommand.loadCertificates(anchors),
                        intermediates: try VerifyCommand.loadCertificates(intermediates))
                }
                done.signal()
            }
        }

        func wait() throws -> TrustStore {
            done.wait()
            done.signal()  // a second wait returns at once
            return try result.get()
        }
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
        // Every verify parses XML: libxml2 (with ICU and the shared libstdc++ ICU needs, about a
        // quarter of a small DDOC's verify) is mapped on the other core while this one reads the
        // anchors and the container. OpenSSL first, here: the dynamic loader takes one lock, and
        // libxml2 mapped first would make this thread wait for it.
        _ = tamga_lazy_load("libcrypto.so.3")
        DispatchQueue.global().async { _ = tamga_lazy_load("libxml2.so.2") }
        // Without --trust and --tsl, the configuration file may name anchors (else: the trust cache).
        var anchors = trustFiles, intermediates = certificateFiles
        if trustFiles.isEmpty && trustedListFile == nil,
            case .anchors(let configured, let more) = try Configuration.load(environment: context.environment).trust
        {
            anchors = configured
            intermediates += more
        }
        // The anchors are read and parsed (OpenSSL 3 builds a decoder chain per certificate) on
        // another thread while this one opens the container, whose data files are hashed then:
        // the hashing core waits for nothing, the other has room beside its checking.
        let loading = TrustLoading(anchors: anchors, intermediates: intermediates)
        // The container first: a missing or hostile one is the error to report, not the trust.
        // Either way the loading is waited for: nothing of OpenSSL may run while the process exits.
        let opened: Container
        do {
            opened = try Container(openingAt: container)
        } catch {
            _ = try? loading.wait()
            throw error
        }
        let trust = try loading.wait()
        opened.progress = context.terminal.progress(quiet: global.quiet)
        // The trusted lists as ASiC's TrustSelection chooses them (the library's policy: the
        // signers' territories of a list of lists first, every list when that does not settle it).
        var options = ValidationOptions(trust: trust, minimumProfile: minimumProfile)
        options.timeMarkResponderPolicies.formUnion(timeMarkResponderPolicies)
        let (report, resolved) = try opened.validate(
            options, selecting: try trustSelection(context, hasAnchors: !anchors.isEmpty))
        // A DDOC is judged with the DDOC trust set as well: no trust cache is no problem there.
        let unconfigured = "tamga: \(TrustedListError.noTrustConfigured)"
        if !global.silent {
            for problem in resolved.problems where !(opened.kind == .ddoc && problem == unconfigured) {
                context.terminal.error(problem)
            }
        }
        if global.json {
            context.terminal.json(report)
        } else if global.silent {
            // -qq: the exit code says it all.
        } else if global.quiet {
            // -q: one line per container, its name and verdict, not a line per finding.
            context.terminal.escaping.line("\(report.container): \(report.status.rawValue)")
        } else {
            Self.printReport(report, context.terminal, verbose: verbose)
        }
        switch report.status {
        case .valid, .warning, .nonQSCD: return .success
        case .unknown: return .trustNotEstablished
        case .invalid: return .verificationFailed
        }
    }

    /// Where the trusted lists come from (ASiC's `TrustSelection` then chooses among them):
    /// `--tsl` (a national list or a list of lists, its signers from `--tsl-cert`), else none
    /// when there are anchors (`--trust` or the configuration's), else the trust cache.
    func trustSelection(_ context: CommandContext, hasAnchors: Bool) throws -> TrustSelection {
        let cache = TrustCache(environment: context.environment)
        if let trustedListFile {
            return TrustSelection(
                source: .file(path: trustedListFile, signers: try Self.loadCertificates(trustedListSigners)),
                allowExpired: allowExpiredTrust, cache: cache)
        }
        return TrustSelection(source: hasAnchors ? .anchors : .cache, allowExpired: allowExpiredTrust, cache: cache)
    }

    /// The text report. Signers are shown as people read their names (`signerName`); `verbose`
    /// adds the full RFC 4514 subject, which is what tells two certificates of one person apart.
    static func printReport(_ report: ValidationReport, _ terminal: Terminal, verbose: Bool = false) {
        let t = terminal.escaping  // names, ids, signers and findings quote the container
        t.line("\(report.container)\(report.containerType.map { " (\($0))" } ?? ""): \(report.status.rawValue)")
        t.line("  data files: \(report.dataFiles.joined(separator: ", "))")
        // OpenSSL's strings in words, unless --verbose asks for them as OpenSSL wrote them.
        let said: (ValidationReport.Finding) -> String = { verbose ? $0.message : OpenSSLWords.plain($0.message) }
        for finding in report.findings {
            t.line("  \(finding.severity.rawValue.lowercased()): \(said(finding)) [\(finding.code)]")
        }
        // DigiDoc's time-stamped archive: the token covers the inner container, not its signatures.
        if report.containerType == "ASiC-S", let inner = report.dataFiles.first,
            ["asice", "sce", "bdoc", "asics", "scs"].contains(inner.fileExtension.lowercased())
        {
            t.line(
                "  note: the data object \(inner) is itself a container and was not validated; extract it and verify it too"
            )
        }
        for (index, s) in report.signatures.enumerated() {
            t.line(
                "  signature \(index + 1) (\(s.id ?? "no id"), \(s.file)): \(s.status.rawValue), profile \(s.profile)")
            if let signer = s.signer {
                t.line((s.profile == "TimeStampToken" ? "    TSA: " : "    signer: ") + (s.signerName ?? signer))
                if verbose { t.line("      subject: \(signer)\(s.signerSerial.map { ", serial \($0)" } ?? "")") }
            }
            if let time = s.timeStampTime {
                t.line(s.profile.hasPrefix("TM") ? "    time-marked: \(time)" : "    time-stamped: \(time)")
            }
            if let time = s.signingTime, s.profile != "TimeStampToken" { t.line("    claimed signing time: \(time)") }
            if let roles = s.claimedRoles { t.line("    claimed roles: \(roles.joined(separator: "; "))") }
            if let place = s.productionPlace { t.line("    claimed place: \(place)") }
            for renewal in s.archiveTimeStamps ?? [] {
                t.line(
                    "    renewed: \(renewal.timeStampTime) by \(renewal.tsa ?? "unknown TSA") (\(renewal.file), \(renewal.manifest))"
                )
            }
            // A finding with severity VALID is a note.
            for finding in s.findings {
                t.line(
                    "    \(finding.severity == .valid ? "note" : finding.severity.rawValue.lowercased()): \(said(finding)) [\(finding.code)]"
                )
                // What to do about it, or a B that sign just wrote is a bare INVALID: the bound is
                // verify's own default.
                if finding.code == "profile-too-low", ["B", "T"].contains(s.profile) {
                    t.line(
                        "    hint: to accept \(s.profile == "B" ? "a B" : "a T")-level signature, verify with --min-profile \(s.profile); `tamga extend` adds the evidence that makes it LT"
                    )
                }
            }
        }
    }
}
