import ASiC
import FoundationEssentials
import Glibc
import IDCard
import PKCS11
import RemoteSigning
import TamgaCore
import TamgaSupport
import Threshold

/// `tamga compare CONTAINER --with SPEC --with SPEC …`: the same content signed by each signer,
/// every result verified, the phases timed side by side.
struct CompareCommand: Command {
    static let path = ["compare"]
    static let abstract = "Signs the same content with several signers and compares them phase by phase."
    static let usage =
        "CONTAINER --with SPEC [--with SPEC]... [--runs N] [--out DIR] [--combined FILE] [--report FILE.html|FILE.svg] [--profile P] [--tsa URL] [--ocsp URL] [--certs PEM] [--trust PEM]... [--cert C] [--module PATH] [--force] [--json]"
    static let help = """
        Each --with takes what sign takes (key:FILE, card[:READER], pkcs11[:LABEL][:KEY-ID],
        threshold[:ACCOUNT]). For each signer, a copy of CONTAINER is signed --runs times (default 3,
        a new signer each run, as separate tamga sign calls would), the last copy is kept as
        DIR/LABEL.asice (DIR defaults to CONTAINER's name with "-compare") and verified. A signer
        that fails shows why in its column; the others still run.
        Phases (median and p95 over the runs): prepare (hashing, building the signature), PIN/unlock
        (getting the PIN and unlocking: the card's retry counter, a token's login, decrypting the
        split key's share), signature (the card's VERIFY and PSO:CDS, the token's C_Sign, the split
        key's three rounds with the co-signer), TSA, OCSP, write.
        --combined FILE   also one container holding one signature from each signer that worked
        --report FILE     the comparison as a picture, made from the --json output: FILE.html is one
                          self-contained page (bars per phase with p95 whiskers, every run's total,
                          what each signer protects against, how to reproduce it; no script, nothing
                          fetched, printable on A4), FILE.svg the bar chart alone
        --trust PEM       anchors for verification (repeatable; without, the trust cache of tamga trust
                          update, whose trusted lists also give the report's qualification row)
        PINs: TAMGA_CARD_PIN, TAMGA_PKCS11_PIN, TAMGA_THRESHOLD_PIN, TAMGA_KEY_PASSWORD for each
        kind, else TAMGA_PIN, else asked on the terminal each run (never retried).
        --json: {"container", "runs", "profile", "signers": [{"with", "label", "location",
        "algorithm", "subject", "phases": {PHASE: {"median", "p95"}} in seconds, "runs": [{PHASE:
        seconds, "total"}], "properties", "signatureValueBytes", "signatureFileBytes", "validation",
        "output", "error": {"code", "message"}}], "combined", "tamga", "date", "command", "machine"}.
        Exit codes: 0 every signer signed and its container verified VALID; 1 otherwise.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--force", "--rsa-pss"])
    static let options: Set<String> = Set([
        "--with", "--runs", "--out", "--combined", "--profile", "--trust", "--min-profile", "--cert", "--module",
        "--report",
    ])
    .union(LongTermOptions.options).union(RemoteOptions.options)

    let container: String
    let specifications: [(text: String, spec: SignerSpecification)]
    let runs: Int
    let outFolder: String
    let combined: String?
    let profile: SignatureProfile
    let minimumProfile: SignatureProfile
    let longTerm: LongTermOptions
    let trustFiles: [String]
    let certificatePath: String?
    let module: String?
    let force: Bool
    let pss: Bool
    let remote: RemoteOptions
    let global: GlobalOptions
    let reportPath: String?
    /// The command line as given (after `tamga compare`), for the report.
    let words: [String]

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1 else {
            throw UsageError("give the one container whose content every signer signs")
        }
        container = arguments.positionals[0]
        let texts = arguments.all("--with")
        guard !texts.isEmpty else { throw UsageError("name the signers to compare with --with (twice or more)") }
        specifications = try texts.map { ($0, try SignerSpecification($0)) }
        guard let runs = Int(arguments.value("--runs") ?? "3"), (1...1000).contains(runs) else {
            throw UsageError("--runs takes 1 to 1000")
        }
        self.runs = runs
        outFolder = arguments.value("--out") ?? (container.removingFileExtension + "-compare")
        combined = arguments.value("--combined")
        profile = try SignatureProfile(argument: arguments.value("--profile") ?? "LT")
        minimumProfile = try SignatureProfile(argument: arguments.value("--min-profile") ?? profile.rawValue)
        longTerm = try LongTermOptions(arguments)
        trustFiles = arguments.all("--trust")
        certificatePath = arguments.value("--cert")
        module = arguments.value("--module")
        force = arguments.has("--force")
        pss = arguments.has("--rsa-pss")
        remote = try RemoteOptions(arguments)
        global = GlobalOptions(arguments)
        reportPath = arguments.value("--report")
        if let reportPath, CompareReport.Format(path: reportPath) == nil {
            throw UsageError("--report takes a file ending in .html (the whole report) or .svg (the bar chart alone)")
        }
        words = arguments.words
    }

    /// A file-name-safe label per signer, unique within the run. Phone numbers and identity
    /// codes stay out of file names: remote signers are labelled by their service only.
    static func labels(_ texts: [String]) -> [String] {
        var used = Set<String>()
        return texts.map { text in
            var label: String
            if text.hasPrefix("mobile-id:") || text.hasPrefix("smart-id:") {
                label = String(text.prefix { $0 != ":" })
            } else {
                label = String(text.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" }).lowercased()
                label = label.split(separator: "-").joined(separator: "-")
                if label.count > 40 { label = String(label.prefix(40)) }
            }
            var candidate = label, counter = 1
            while used.contains(candidate) {
                counter += 1
                candidate = "\(label)-\(counter)"
            }
            used.insert(candidate)
            return candidate
        }
    }

    struct Statistic: Encodable { let median: Double, p95: Double }
    struct Failure: Encodable { let code: String, message: String }
    struct Column: Encodable {
        let with: String, label: String
        var location = "", algorithm = "", subject = ""
        var phases: [String: Statistic] = [:]
        /// Every run's phases and total in seconds, in the order run (the report's strip plot).
        var runs: [[String: Double]] = []
        var properties: SignerProperties?
        var signatureValueBytes: Int?
        var signatureFileBytes: Int?
        var validation: String?
        var output: String?
        var error: Failure?
    }
    struct Combined: Encodable {
        let path: String
        let signatures: Int
        let validation: String
        let errors: [String: Failure]
    }
    struct Report: Encodable {
        let container: String, runs: Int, profile: String, signers: [Column], combined: Combined?
        /// How to reproduce it: tamga's version and commit, when, the command, on what machine.
        let tamga: String, date: String, command: [String], machine: MachineDescription
    }

    static var phaseNames: [(key: String, title: String, value: KeyPath<SigningPhases, TimeInterval>)] {
        [
            ("prepare", "prepare", \.prepare), ("unlock", "PIN/unlock", \.unlock), ("sign", "signature", \.sign),
            ("timeStamp", "TSA", \.timeStamp), ("ocsp", "OCSP", \.ocsp), ("write", "write", \.write),
        ]
    }

    static func statistic(_ values: [Double]) -> Statistic {
        let sorted = values.sorted()
        let median =
            sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        let rank = max(0, Int((0.95 * Double(sorted.count)).rounded(.up)) - 1)  // nearest rank
        return Statistic(median: median, p95: sorted[min(rank, sorted.count - 1)])
    }

    /// Where the signer's key lives, in words.
    static func location(_ signer: any Signer, _ spec: SignerSpecification) -> String {
        switch signer {
        case let card as IDCardSigner: return "ID card (\(card.cardName)) in \(card.readerName)"
        case let token as PKCS11Signer:
            return "token \"\(token.token.info.label)\" via \(token.token.module.path.lastPathPart)"
        case let split as ThresholdSigner: return "split: this device + co-signer \(split.coSigner)"
        case let mobile as MobileIDSigner: return "Mobile-ID SIM of \(mobile.phoneNumber)"
        case let smart as SmartIDSigner: return "Smart-ID account \(smart.documentNumber)"
        default:
            if case .keyFile(let path) = spec { return "key file \(path.lastPathPart)" }
            return "software key"
        }
    }

    /// The PIN sources for one kind of signer.
    func secrets(for spec: SignerSpecification, _ environment: [String: String]) -> SecretInput {
        let variable: String
        switch spec {
        case .card: variable = "TAMGA_CARD_PIN"
        case .pkcs11: variable = "TAMGA_PKCS11_PIN"
        case .threshold: variable = "TAMGA_THRESHOLD_PIN"
        case .keyFile: variable = "TAMGA_KEY_PASSWORD"
        case .smartID, .mobileID: variable = "TAMGA_PIN"  // nothing is asked here: the PIN is typed on the phone
        }
        var remapped = environment
        if let specific = environment[variable] { remapped[SecretInput.environmentVariable] = specific }
        return SecretInput(pinFile: nil, environment: remapped)
    }

    /// One signature on the container at `path` (already a copy): the phases and the new file.
    func signOnce(
        _ spec: SignerSpecification, at path: String, context: CommandContext
    ) async throws -> (any Signer, SigningPhases, SignatureFile?) {
        let signer = try await spec.makeSigner(
            certificatePath: certificatePath, secrets: secrets(for: spec, context.environment), pss: pss,
            terminal: context.terminal, module: module, remote: remote)
        var services = try longTerm.services(environment: context.environment)
        services.issuerCandidates += (signer as? SoftwareSigner)?.chain ?? []
        let opened = try Container(openingAt: path)
        let name = try await opened.sign(with: signer, options: SignatureOptions(profile: profile), services: services)
        return (signer, opened.lastSigningPhases ?? SigningPhases(), opened.signatures.first { $0.name == name })
    }

    static func copy(_ source: String, to target: String) throws {
        if FileManager.default.fileExists(atPath: target) { try FileManager.default.removeItem(atPath: target) }
        try FileManager.default.copyItem(atPath: source, toPath: target)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        _ = try Container(openingAt: container)  // a bad container is reported before anything else
        if profile > .B, try longTerm.services(environment: context.environment).timeStamping == nil {
            throw UsageError(
                "\(profile.withArticle) signature needs a time-stamping authority: give --tsa URL or set \(LongTermOptions.environmentTSA) (or --profile B)"
            )
        }
        let labels = Self.labels(specifications.map(\.text))
        try FileManager.default.createDirectory(atPath: outFolder, withIntermediateDirectories: true)
        let outputs = labels.map { outFolder.appendingPathPart("\($0).asice") }
        if !force,
            let existing = (outputs + (combined.map { [$0] } ?? []) + (reportPath.map { [$0] } ?? [])).first(where: {
                FileManager.default.fileExists(atPath: $0)
            })
        {
            throw ContainerError.alreadyExists(existing)
        }
        let trust = TrustStore(
            anchors: try VerifyCommand.loadCertificates(trustFiles),
            intermediates: try VerifyCommand.loadCertificates(longTerm.certificateFiles))
        // Without --trust, the trust cache (`tamga trust update`), as verify takes it: the results
        // are judged against the trusted lists, and the report's qualification row reads them.
        let trustedList =
            trustFiles.isEmpty
            ? (try? TrustCache(environment: context.environment)?.load(
                now: Date(), allowExpired: false, territories: nil))??.union : nil
        let validation = ValidationOptions(trust: trust, trustedList: trustedList, minimumProfile: minimumProfile)

        var columns: [Column] = []
        for (index, entry) in specifications.enumerated() {
            var column = Column(with: entry.text, label: labels[index])
            let work = outFolder.appendingPathPart(".\(labels[index]).run.asice")
            var phases: [SigningPhases] = []
            defer { try? FileManager.default.removeItem(atPath: work) }
            // With --force, last time's output must not pass for this run's when this signer fails.
            if force { try? FileManager.default.removeItem(atPath: outputs[index]) }
            do {
                for run in 1...runs {
                    if !global.quiet { context.terminal.error("\(entry.text): run \(run)/\(runs)") }
                    try Self.copy(container, to: work)
                    let (signer, timing, file) = try await signOnce(entry.spec, at: work, context: context)
                    phases.append(timing)
                    var times = Dictionary(
                        uniqueKeysWithValues: Self.phaseNames.map { ($0.key, timing[keyPath: $0.value]) })
                    times["total"] = Self.phaseNames.reduce(0) { $0 + timing[keyPath: $1.value] }
                    column.runs.append(times)
                    if run == runs {
                        let certificate = try await signer.certificate()
                        column.location = Self.location(signer, entry.spec)
                        column.algorithm = signer.algorithm.description
                        column.subject = certificate.commonName ?? certificate.subject
                        column.signatureFileBytes = file?.data.count
                        if case .rsa(let bits) = certificate.publicKey.type {
                            column.signatureValueBytes = (bits + 7) / 8
                        }
                        if let curve = signer.algorithm.curve { column.signatureValueBytes = 2 * curve.fieldSize }
                        column.properties = SignerProperties.describe(
                            signer, certificate: certificate, location: column.location,
                            signatureValueBytes: column.signatureValueBytes,
                            trustedList: trustedList, intermediates: trust.intermediates,
                            anchorsGiven: !trustFiles.isEmpty)
                        if FileManager.default.fileExists(atPath: outputs[index]) {
                            try FileManager.default.removeItem(atPath: outputs[index])
                        }
                        try FileManager.default.moveItem(atPath: work, toPath: outputs[index])
                        column.output = outputs[index]
                    }
                }
                let report = try Container(openingAt: outputs[index]).validate(validation)
                column.validation =
                    report.signatures.last.map { "\($0.status.rawValue) (\($0.profile))" } ?? report.status.rawValue
            } catch {
                let (code, _) = TamgaCommandLine.classify(error)
                column.error = Failure(code: code, message: "\(error)")
            }
            if !phases.isEmpty {
                for phase in Self.phaseNames {
                    column.phases[phase.key] = Self.statistic(phases.map { $0[keyPath: phase.value] })
                }
                column.phases["total"] = Self.statistic(
                    phases.map { p in Self.phaseNames.reduce(0) { $0 + p[keyPath: $1.value] } })
            }
            columns.append(column)
        }

        var combinedResult: Combined? = nil
        if let combined {
            if !global.quiet { context.terminal.error("combined: one signature from each signer") }
            try Self.copy(container, to: combined + ".tamga-compare")
            defer { try? FileManager.default.removeItem(atPath: combined + ".tamga-compare") }
            if force { try? FileManager.default.removeItem(atPath: combined) }
            var errors: [String: Failure] = [:]
            var count = 0
            for (index, entry) in specifications.enumerated() where columns[index].error == nil {
                do {
                    _ = try await signOnce(entry.spec, at: combined + ".tamga-compare", context: context)
                    count += 1
                } catch {
                    errors[entry.text] = Failure(code: TamgaCommandLine.classify(error).0, message: "\(error)")
                }
            }
            // Kept only when every signer that worked alone also signed it: a partial container
            // would look like the comparison's result.
            if errors.isEmpty && count > 0 {
                try FileManager.default.moveItem(atPath: combined + ".tamga-compare", toPath: combined)
                let report = try Container(openingAt: combined).validate(validation)
                combinedResult = Combined(
                    path: combined, signatures: report.signatures.count, validation: report.status.rawValue,
                    errors: errors)
            } else {
                combinedResult = Combined(path: combined, signatures: 0, validation: "NOT WRITTEN", errors: errors)
            }
        }

        let report = Report(
            container: container, runs: runs, profile: profile.rawValue, signers: columns, combined: combinedResult,
            tamga: "\(TamgaCommandLine.version) (commit \(BuildCommit.value))", date: Date().formatted(.iso8601),
            command: ["tamga", "compare"] + words, machine: MachineDescription.current())
        if global.json { context.terminal.json(report) } else { Self.printTable(report, context.terminal) }
        if let reportPath {
            // Made from the JSON that --json prints, so the two never disagree.
            try CompareReport.write(json: Array(try Terminal.encodedJSON(report)), to: reportPath, force: force)
            if !global.quiet { context.terminal.error("report: \(TamgaCommandLine.printable(reportPath))") }
        }
        let allValid =
            columns.allSatisfy { $0.error == nil && $0.validation?.hasPrefix("VALID") == true }
            && (combinedResult.map { $0.validation == "VALID" && $0.errors.isEmpty } ?? true)
        return allValid ? .success : .verificationFailed
    }

    static func milliseconds(_ statistic: Statistic?) -> String {
        guard let statistic else { return "—" }
        return NumberText.fixed(statistic.median * 1000, digits: 1) + " / "
            + NumberText.fixed(statistic.p95 * 1000, digits: 1)
    }

    static func printTable(_ report: Report, _ terminal: Terminal) {
        var rows: [(String, [String])] = []
        rows.append(("signer", report.signers.map(\.with)))
        rows.append(("key location", report.signers.map(\.location)))
        rows.append(("algorithm", report.signers.map(\.algorithm)))
        rows.append(("certificate", report.signers.map(\.subject)))
        for phase in phaseNames {
            rows.append(("\(phase.title) ms", report.signers.map { milliseconds($0.phases[phase.key]) }))
        }
        rows.append(("total ms", report.signers.map { milliseconds($0.phases["total"]) }))
        rows.append(
            (
                "signature",
                report.signers.map { column in
                    guard let value = column.signatureValueBytes else { return "—" }
                    return "\(value) B value, \(column.signatureFileBytes ?? 0) B XML"
                }
            ))
        rows.append(("validation", report.signers.map { $0.validation ?? "—" }))
        rows.append(("output", report.signers.map { $0.output.map { $0.lastPathPart } ?? "—" }))
        if report.signers.contains(where: { $0.error != nil }) {
            rows.append(("error", report.signers.map { $0.error.map { "FAILED: \($0.code)" } ?? "" }))
        }
        // Long cells are cut in the table (--json has them whole); empty ones show a dash.
        let cell = { (text: String) -> String in
            text.isEmpty ? "—" : text.count > 48 ? String(text.prefix(47)) + "…" : text
        }
        let firstWidth = rows.map(\.0.count).max() ?? 0
        let widths = report.signers.indices.map { index in rows.map { cell($0.1[index]).count }.max() ?? 0 }
        terminal.line("\(report.container): \(report.profile), median / p95 over \(report.runs) run(s)")
        for (title, cells) in rows {
            var line = title.padded(to: firstWidth)
            for (index, text) in cells.enumerated() { line += "  " + cell(text).padded(to: widths[index]) }
            terminal.line(line.trimmingTrailingWhitespace())
        }
        for column in report.signers {
            if let error = column.error { terminal.line("\(column.with) failed: \(error.message) [\(error.code)]") }
        }
        if let combined = report.combined {
            terminal.line("combined: \(combined.path): \(combined.signatures) signature(s), \(combined.validation)")
            for (with, failure) in combined.errors.sorted(by: { $0.key < $1.key }) {
                terminal.line("  \(with): \(failure.code): \(failure.message)")
            }
        }
    }
}
