import ASiC
import FoundationEssentials
import Glibc
import TamgaCore

/// `tamga extend CONTAINER --to LT|LTA`
struct ExtendCommand: Command {
    static let path = ["extend"]
    static let abstract = "Raises existing signatures (tamga's or others') to T, LT or LTA."
    static let usage = "CONTAINER --to T|LT|LTA --tsa URL [--ocsp URL] [--certs FILE] [--signature FILE]... [--json]"
    static let help = """
        Adds what each signature lacks: a signature time-stamp (T), the issuer certificate and a fresh
        OCSP response (LT), a new archive time-stamp (LTA; each run adds one more). Every service is
        asked before anything is written: if one fails, the container is unchanged and the error names it.
        Options:
          --to PROFILE         T, LT or LTA
          --signature FILE     only this signature file, e.g. META-INF/signatures0.xml (repeatable)
        \(LongTermOptions.help)
        """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = LongTermOptions.options.union(["--to", "--signature"])

    let container: String
    let profile: SignatureProfile
    let only: [String]
    let longTerm: LongTermOptions
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1 else { throw UsageError("give exactly one container") }
        container = arguments.positionals[0]
        guard let to = arguments.value("--to") else { throw UsageError("say which level with --to T|LT|LTA") }
        profile = try SignatureProfile(argument: to)
        guard profile > .B else { throw UsageError("--to takes T, LT or LTA") }
        only = arguments.all("--signature")
        longTerm = try LongTermOptions(arguments)
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let lock = try context.lockContainer(container)
        defer { withExtendedLifetime(lock) {} }
        let opened = try Container(openingAt: container)
        let services = try longTerm.services(environment: context.environment)
        guard services.timeStamping != nil else {
            throw UsageError(
                "extending needs a time-stamping authority: give --tsa URL or set \(LongTermOptions.environmentTSA)")
        }
        let changed = try await opened.extend(to: profile, services: services, fileNames: only.isEmpty ? nil : only)
        if global.json {
            context.terminal.json(ExtendOutcome(container: container, profile: profile.rawValue, extended: changed))
        } else if changed.isEmpty {
            context.terminal.line(
                TamgaCommandLine.printable(
                    "\(container): every signature already reaches \(profile.rawValue); nothing was changed."))
        } else {
            for file in changed {
                context.terminal.line(
                    TamgaCommandLine.printable("\(container): \(file) extended to \(profile.rawValue)"))
            }
        }
        return .success
    }
}

private struct ExtendOutcome: Encodable {
    let container: String
    let profile: String
    let extended: [String]
}
