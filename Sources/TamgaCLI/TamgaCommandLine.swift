import ASiC
internal import CDeferredLibraries
import CoSigner
import Dispatch
import FoundationEssentials
import Glibc
import HTTPService
import IDCard
import MobileID
import PCSC
import PKCS11
import RemoteSigning
import TamgaCore
import TamgaSupport
import Threshold

/// The `tamga` command line as a library, so tests run commands in-process.
public enum TamgaCommandLine {
    public static let version = "0.1.0"

    static let commands: [any Command.Type] = [
        ContainerCreateCommand.self, ContainerAddCommand.self, ContainerRemoveCommand.self,
        ContainerListCommand.self, ContainerExtractCommand.self, ContainerTimestampCommand.self, SignCommand.self,
        ExtendCommand.self, VerifyCommand.self, CompareCommand.self, ReadersCommand.self,
        CardInfoCommand.self, CardChangePINCommand.self, CardUnblockCommand.self, TokensCommand.self,
        CoSignerServeCommand.self, CoSignerMigrateCommand.self, CoSignerIssueCodeCommand.self,
        CoSignerAddRelyingPartyCommand.self, CoSignerBackupCommand.self, CoSignerRestoreCommand.self,
        CoSignerMakeServerKeyCommand.self, CoSignerWrapServerKeyCommand.self, ThresholdEnrollCommand.self,
        ThresholdPendingCommand.self,
        ThresholdInfoCommand.self, ThresholdApproveCommand.self, ThresholdActivityCommand.self,
        ThresholdVerifyPINCommand.self, ThresholdChangePINCommand.self, ThresholdDeleteCommand.self,
        MobileIDM200Command.self, MobileIDLinkCommand.self, MobileIDDecodeCommand.self, MobileIDCheckCommand.self,
        TrustUpdateCommand.self, TrustShowCommand.self, ValidationServeCommand.self,
    ]

    /// This process's arguments, with paths that are not UTF-8 made reachable (`RawArguments`).
    public static func processArguments() -> [String] { RawArguments.processArguments() }

    /// The process's terminal and environment.
    public static func processContext() -> CommandContext {
        CommandContext(processEnvironmentFor: .standard())
    }

    /// Runs a command line (`arguments[0]` is the program name) and returns the exit code.
    public static func main(_ arguments: [String], context: CommandContext = processContext()) async -> Int32 {
        tamga_lazy_set_failure_handler(libraryMissing)
        let handlers = installInterruptHandlers()
        defer { handlers.forEach { $0.cancel() } }
        return await run(Array(arguments.dropFirst()), context).rawValue
    }

    /// The exit code when the command line is answered without Swift concurrency (`--version`,
    /// help, usage errors, `readers`' listing), else nil: then call `main`. The `tamga` binary
    /// asks this first, so those start like a C tool: no libdispatch threads, no signal sources
    /// (what they answer writes no file an interruption would have to remove).
    public static func mainWithoutConcurrency(_ arguments: [String], context: CommandContext? = nil) -> Int32? {
        tamga_lazy_set_failure_handler(libraryMissing)
        return runWithoutConcurrency(Array(arguments.dropFirst()), context ?? processContext())?.rawValue
    }

    /// Ends the process once a command has returned: what it wrote to standard output is
    /// flushed, and the exit handlers are skipped. They are OpenSSL's, libxml2's and ICU's
    /// clean-ups, freeing what the process gives back anyway (measured: about 1 ms of a small
    /// `verify`'s 11). Nothing is lost: a command's files are complete (written, synced, renamed)
    /// before it returns, and its temporary files are removed by the command itself.
    public static func exitAfterCommand(_ code: Int32) -> Never {
        fflush(nil)
        _exit(code)
    }

    /// When a library tamga loads on first use cannot be loaded in the middle of a command
    /// (CDeferredLibraries): what an interruption does, then exit 11 with the message naming the
    /// package. The command cannot be handed an error at that point (it was calling, say,
    /// OpenSSL), and nothing it had written is kept.
    private static let libraryMissing: @convention(c) (UnsafePointer<CChar>?) -> Void = { message in
        _ = TemporaryFiles.removeAll()
        TerminalRestore.restore()
        let text = message.map { String(cString: $0) } ?? "a library tamga needs cannot be loaded"
        FileDescriptorOutput.write("tamga: \(text)\n", to: FileDescriptorOutput.standardError)
        // _exit: another thread may be inside OpenSSL, whose exit-time clean-up must not run under it.
        _exit(ExitCode.libraryMissing.rawValue)
    }

    /// On SIGINT, SIGTERM or SIGHUP: remove temporary files being written, put the terminal
    /// back if a prompt had turned echo off, and exit with 128 + the signal number. The
    /// original container is untouched (writes only ever rename complete files into place).
    private static func installInterruptHandlers() -> [DispatchSourceSignal] {
        // A parent may have started us with these blocked (a program spawning from a libdispatch
        // worker thread passes on its all-blocked mask); blocked, they would never arrive.
        var interrupts = sigset_t()
        sigemptyset(&interrupts)
        for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&interrupts, number) }
        pthread_sigmask(SIG_UNBLOCK, &interrupts, nil)
        return [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if serving {
                    // systemd then waits for the exit instead of counting it as a crash.
                    ServiceManagerNotification.send(
                        "STOPPING=1", socket: getenv("NOTIFY_SOCKET").map { String(cString: $0) })
                }
                let removed = TemporaryFiles.removeAll()
                TerminalRestore.restore()
                FileDescriptorOutput.write(
                    "\n\(interruptionMessage(removedFiles: removed))\n", to: FileDescriptorOutput.standardError)
                // _exit: the command's threads are still running (in OpenSSL, say), and the
                // libraries' exit-time clean-ups must not run under them.
                _exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    /// Set by a command that serves until stopped (`cosigner serve`): its SIGTERM is an
    /// ordinary stop, not an interruption.
    /// Written by the command's task, read by the signal handler's thread: behind a lock.
    static var serving: Bool {
        get { servingLock.withLock { servingFlag } }
        set { servingLock.withLock { servingFlag = newValue } }
    }
    private static let servingLock = Lock()
    nonisolated(unsafe) private static var servingFlag = false  // guarded by `servingLock`

    /// What an interrupted tamga says last: a stopped server that it stopped; a run that was
    /// writing that the unfinished files were removed; otherwise only that it was interrupted.
    static func interruptionMessage(removedFiles: Int) -> String {
        if serving { return "tamga: stopped." }
        if removedFiles > 0 {
            return "tamga: interrupted; the unfinished file was removed and the original is untouched."
        }
        return "tamga: interrupted."
    }

    /// A command line read and checked: either answered already (help, `--version`, a usage
    /// error) or a command ready to run.
    enum Prepared {
        case answered(ExitCode)
        case command(any Command, path: [String], json: Bool)
    }

    static func run(_ words: [String], _ context: CommandContext) async -> ExitCode {
        switch prepare(words, context) {
        case .answered(let code): return code
        case .command(let instance, let path, let json):
            do {
                return try await instance.run(context)
            } catch {
                return report(error, path: path, json: json, context.terminal)
            }
        }
    }

    /// What a command line asks, without Swift concurrency: nil when it needs it (nearly every
    /// command). `--version`, help, usage errors and the commands that answer synchronously
    /// (`readers`' listing) are answered here, before anything starts threads (starting them
    /// is a good part of such a command's time).
    static func runWithoutConcurrency(_ words: [String], _ context: CommandContext) -> ExitCode? {
        switch prepare(words, context) {
        case .answered(let code): return code
        case .command(let instance, let path, let json):
            do {
                return try instance.runWithoutConcurrency(context)
            } catch {
                return report(error, path: path, json: json, context.terminal)
            }
        }
    }

    /// Reads the command line: help, `--version` and usage errors are answered; a command is
    /// parsed into its instance.
    static func prepare(_ words: [String], _ context: CommandContext) -> Prepared {
        let terminal = context.terminal
        guard let first = words.first else {
            terminal.error(overview)
            return .answered(.usage)
        }
        switch first {
        case "--version", "version":
            let rest = words.dropFirst()
            guard rest.allSatisfy({ $0 == "--json" || $0 == "--libraries" }) else {
                terminal.error("tamga --version takes only --json and --libraries")
                return .answered(.usage)
            }
            let report = VersionReport.current(loadingLibraries: rest.contains("--libraries"))
            if rest.contains("--json") { terminal.json(report) } else { terminal.line(report.text) }
            return .answered(.success)
        case "--help", "-h", "help":
            let topic = Array(words.dropFirst())
            if topic.isEmpty {
                terminal.line(overview)
                return .answered(.success)
            }
            if topic == ["--man"] {
                terminal.line(ManualPage.render(commands: commands, version: version, overview: overview))
                return .answered(.success)
            }
            if topic.first == "--completion" {
                guard topic.count == 2, let shell = ShellCompletion.Shell(rawValue: topic[1]) else {
                    terminal.error("tamga help --completion takes bash or zsh")
                    return .answered(.usage)
                }
                var script = ShellCompletion.render(shell, commands: commands)
                if script.hasSuffix("\n") { script.removeLast() }
                terminal.line(script)
                return .answered(.success)
            }
            guard let command = find(topic) else {
                // `help container` is the group's list of subcommands.
                if topic.count == 1, let group = groupHelp(topic[0]) {
                    terminal.line(group)
                    return .answered(.success)
                }
                let what = TerminalText.escaped(topic.joined(separator: " "))
                terminal.error("tamga: no command \"\(what)\"\n\n\(groupHelp(topic[0]) ?? overview)")
                return .answered(.usage)
            }
            terminal.line(command.type.helpText)
            return .answered(.success)
        default:
            break
        }
        guard let (command, rest) = find(words).map({ ($0.type, Array(words.dropFirst($0.type.path.count))) }) else {
            if let group = groupHelp(first) {
                let next = words.dropFirst().first
                if next == "--help" || next == "-h" {
                    terminal.line(group)
                    return .answered(.success)
                }
                let subcommands = commands.filter { $0.path.first == first && $0.path.count > 1 }.map { $0.path[1] }
                let hint =
                    next.flatMap { NearestWord.suggestion(for: $0, among: subcommands) }.map {
                        " (did you mean \"\(first) \($0)\"?)"
                    } ?? ""
                let problem =
                    next.map { "has no subcommand \"\(TerminalText.escaped($0))\"\(hint)" } ?? "needs a subcommand"
                terminal.error("tamga: \(first) \(problem)\n\n\(group)")
            } else {
                // The first words of every command: a command's own name, or its group's.
                var names: [String] = []
                for command in commands where !names.contains(command.path[0]) { names.append(command.path[0]) }
                let hint = NearestWord.suggestion(for: first, among: names).map { " Did you mean \"\($0)\"?" } ?? ""
                terminal.error(
                    "tamga: unknown command \"\(TerminalText.escaped(first))\".\(hint) Run tamga --help for the list.")
            }
            return .answered(.usage)
        }
        if rest.contains("--help") || rest.contains("-h") {
            terminal.line(command.helpText)
            return .answered(.success)
        }
        if let refusal = RawArguments.refusal(rest) {
            terminal.error("tamga \(command.path.joined(separator: " ")): \(refusal)")
            return .answered(.usage)
        }
        let json = rest.contains("--json")
        do {
            let parsed = try ParsedArguments(
                rest, flags: command.flags.union(["--help", "-h"]), options: command.options)
            return .command(try command.init(parsed), path: command.path, json: json)
        } catch {
            return .answered(report(error, path: command.path, json: json, terminal))
        }
    }

    /// A command's failure as the person (and `--json`) sees it, and its exit code: a usage
    /// error (from reading the arguments or from running) with the command's usage line.
    static func report(_ error: Error, path: [String], json: Bool, _ terminal: Terminal) -> ExitCode {
        if let error = error as? UsageError {
            let usage = commands.first { $0.path == path }?.usage ?? ""
            terminal.error(
                "tamga \(path.joined(separator: " ")): \(printable("\(error)"))\n\nUsage: tamga \(path.joined(separator: " ")) \(usage)"
            )
            return .usage
        }
        let (code, exit) = classify(error)
        let message = message(for: error)
        if json {
            terminal.json(["error": ["code": code, "message": message]])
        }
        terminal.error("tamga: \(printable(message))")
        return exit
    }

    /// What an error says to a person. Foundation's file errors describe themselves as a dump
    /// (`Error Domain=NSCocoaErrorDomain Code=642 … UserInfo={…}`): they become the file and the
    /// system's reason.
    static func message(for error: Error) -> String {
        guard isFileError(error), let cocoa = error as? CocoaError else { return "\(error)" }
        let path = cocoa.filePath ?? cocoa.url?.path ?? "a file"
        let underlying = (cocoa.underlying as? POSIXError).map { String(cString: strerror($0.code.rawValue)) }
        return
            "Cannot use \(path) (\(underlying ?? Self.reason(of: cocoa.code))); check that its folder exists and is writable, "
            + "or set the XDG_* variable for it (XDG_DATA_HOME, XDG_CACHE_HOME, XDG_CONFIG_HOME) or HOME."
    }

    /// A file system error of Foundation's: a `CocoaError` as FoundationEssentials throws it, or
    /// an error in NSCocoaErrorDomain. (Where the whole of Foundation is loaded, as in the tests,
    /// any NSError casts to CocoaError whatever its domain: the cast alone does not tell.)
    static func isFileError(_ error: Error) -> Bool {
        type(of: error) == CocoaError.self || error._domain == "NSCocoaErrorDomain"
    }

    /// A file error's reason when the system's own is not attached.
    static func reason(of code: CocoaError.Code) -> String {
        switch code {
        case .fileNoSuchFile, .fileReadNoSuchFile: "no such file or folder"
        case .fileReadNoPermission, .fileWriteNoPermission: "permission denied"
        case .fileWriteOutOfSpace: "no space left on the device"
        case .fileWriteVolumeReadOnly: "read-only file system"
        case .fileWriteFileExists: "it exists already"
        case .fileReadCorruptFile: "its contents cannot be read"
        default: "file system error \(code.rawValue)"
        }
    }

    /// The help of a command group (`container`, `threshold`, `cosigner`, `mobileid`, `card`):
    /// its subcommands with what each does, taken from the command list so it cannot go stale.
    /// Nil when `group` is not one.
    static func groupHelp(_ group: String) -> String? {
        let members = commands.filter { $0.path.count > 1 && $0.path[0] == group }
        guard !members.isEmpty else { return nil }
        let names = members.map { $0.path.dropFirst().joined(separator: " ") }
        let width = names.map(\.count).max() ?? 0
        var lines = ["Usage: tamga \(group) SUBCOMMAND [OPTIONS]", "", "Subcommands:"]
        for (name, member) in zip(names, members) {
            lines.append("  " + name + String(repeating: " ", count: width - name.count) + "  " + member.abstract)
        }
        lines += ["", "Run tamga help \(group) SUBCOMMAND (or tamga \(group) SUBCOMMAND --help) for its options."]
        return lines.joined(separator: "\n")
    }

    /// An error message for the terminal. Messages quote names from containers and answers
    /// from services: a line holding a control or bidirectional character is escaped whole
    /// (`TerminalText.escaped`); lines without one are printed as they are, so the backslash
    /// in "no /, \\, control characters" is not doubled. `--json` carries the exact text.
    static func printable(_ message: String) -> String {
        message.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.unicodeScalars.contains(where: TerminalText.isUnsafe)
                ? TerminalText.escaped(String(line)) : String(line)
        }.joined(separator: "\n")
    }

    private static func find(_ words: [String]) -> (type: any Command.Type, Void)? {
        for command in commands where words.starts(with: command.path) { return (command, ()) }
        return nil
    }

    /// The one place where errors become exit codes and stable codes.
    static func classify(_ error: Error) -> (String, ExitCode) {
        switch error {
        case let e as ContainerError:
            switch e {
            case .ioFailure: return (e.code, .writeFailed)
            case .unreadableInput: return (e.code, .inputRejected)
            case .invalidMediaType, .invalidSignatureProperty, .invalidDataFileName: return (e.code, .usage)
            case .signatureValueRejected, .signingCertificateUnsuitable, .noPendingSignature:
                return (e.code, .signingFailed)
            default: return (e.code, .inputRejected)
            }
        case let e as CoreError:
            switch e {
            case .unreadableFile, .malformedCertificate: return (e.code, .inputRejected)
            // A refused password is a refused secret, as a card's or token's PIN: exit 9 for both.
            case .wrongPassword: return (e.code, .pinRejected)
            case .serviceUnreachable, .serviceHTTPStatus, .serviceRefused, .serviceResponseRejected, .serviceURLMissing,
                .certificateNotGood:
                return (e.code, .serviceFailed)
            default: return (e.code, .signingFailed)
            }
        case let e as TrustedListError: return (e.code, e == .noTrustConfigured ? .trustNotEstablished : .inputRejected)
        case let e as TrustCacheError: return (e.code, .writeFailed)
        // No pcscd, no reader, no card: the same exit whichever command met it (readers, card, sign).
        case let e as PCSCError: return (e.code, .cardUnavailable)
        case let e as CardError:
            switch e {
            case .wrongPIN, .pinBlocked, .pinNotActivated, .pinLength, .newPINRejected: return (e.code, .pinRejected)
            case .cancelled: return (e.code, .cancelled)
            case .unexpectedStatus, .malformedResponse: return (e.code, .signingFailed)
            default: return (e.code, .cardUnavailable)
            }
        case SecretInput.Failure.mismatch: return ("new-pin-mismatch", .pinRejected)
        case let e as ThresholdError:
            switch e {
            case .wrongPIN, .pinTooShort, .pinTooLong, .pinBlocked: return (e.code, .pinRejected)
            case .keyStore, .notEnrolled, .reservedName, .outdatedShareFormat, .serverKeyNotFound, .serverKeyUnsafe,
                .serverKeyMismatch:
                return (e.code, .inputRejected)
            // A network loss at the co-signer: a service failure, nothing locked.
            case .sessionAbandoned, .signatureNotDelivered, .coSignerNeeded: return (e.code, .serviceFailed)
            default: return (e.code, .signingFailed)
            }
        case let e as HTTPServerError:
            return (e.code, e.code == "http-library-missing" ? .libraryMissing : .serviceFailed)
        case let e as DatabaseError:
            switch e.kind {
            case .failed: return ("database", .writeFailed)
            // PostgreSQL down or unreachable: a service failure, nothing written.
            case .unavailable: return ("database-unavailable", .serviceFailed)
            case .schemaNewer: return ("database-schema-newer", .inputRejected)
            }
        case let e as PKCS11Error:
            switch e {
            case .pinIncorrect, .pinLocked, .pinLength, .pinExpired: return (e.code, .pinRejected)
            case .cancelled: return (e.code, .cancelled)
            case .moduleNotFound, .moduleFailedToLoad, .noRegisteredModules: return (e.code, .inputRejected)
            case .tokenNotFound, .severalTokens, .tokenRemoved: return (e.code, .cardUnavailable)
            default: return (e.code, .signingFailed)
            }
        case let e as MobileIDError: return (e.code, .inputRejected)
        case let e as RemoteSigningError:
            switch e {
            case .userRefused: return (e.code, .cancelled)
            case .notAClient, .documentUnusable: return (e.code, .cardUnavailable)
            case .serviceRefused, .malformedResponse, .serviceError: return (e.code, .serviceFailed)
            case .notConfigured, .badConfiguration: return (e.code, .usage)
            default: return (e.code, .signingFailed)
            }
        case let e as OperationError: return classify(e.underlying)
        case let e as CommandLineError:
            switch e {
            case .folderNotWritable: return (e.code, .writeFailed)
            case .configurationMalformed: return (e.code, .inputRejected)
            }
        case SecretInput.Failure.cancelled: return ("cancelled", .cancelled)
        case SecretInput.Failure.noTerminal: return ("no-terminal", .signingFailed)
        case SecretInput.Failure.unreadable: return ("unreadable-pin-file", .inputRejected)
        // Foundation's file errors, should one get through: a plain message (`message(for:)`), exit 6.
        case _ where isFileError(error): return ("file-system", .writeFailed)
        default: return ("failure", .signingFailed)
        }
    }

    static let overview = """
        tamga \(version) — sign and verify ASiC-E containers (.asice, XAdES) on Linux; read ASiC-S (.asics).

        Usage: tamga COMMAND [OPTIONS]

        Containers:
          container create OUT.asice FILE...   pack files into a new container
          container add CONTAINER FILE...      add data files (unsigned containers only)
          container remove CONTAINER NAME      remove a data file (unsigned containers only)
          container ls CONTAINER               list data files and signatures
          container extract CONTAINER [NAME]   write data files to a folder
          container timestamp IN OUT.asics --tsa URL   time-stamp a whole container into an ASiC-S archive
        Signing and verifying:
          sign CONTAINER --with key:FILE|card|pkcs11|threshold   add a XAdES signature (LT by default: --tsa URL)
          extend CONTAINER --to LT|LTA         add time-stamps and OCSP to existing signatures
          verify CONTAINER [--trust CA.pem]    check every signature (trust: the cache of `trust update`,
                                               or --trust PEM anchors, or --tsl LIST.xml)
          compare CONTAINER --with A --with B  sign the same content with each signer, verify, time phase by phase
        Trust:
          trust update [--lotl URL]            download and check the EU list of lists and the national lists
          trust show [--json]                  what is cached, how fresh, services per kind

        Readers:
          readers [--json] [--watch | --wait MEDIA]   PC/SC readers: state, ATR, card kind, Rutoken media family
        Tokens:
          tokens [--module PATH] [--login]     PKCS#11 modules, tokens, certificates and keys
        Split key (2-of-2 threshold ECDSA):
          threshold enroll --server URL --code CODE --account NAME   enroll; sign with --with threshold:NAME
          threshold pending|info SESSION|approve SESSION|activity|verify-pin|change-pin|delete --account NAME
        Co-signer (server half of threshold keys):
          cosigner serve [--db FILE|URI] [--port N]  run the HTTP API (docs/cosigner-api.md)
          cosigner migrate [--db FILE|URI]          bring the database's schema up to date
          cosigner issue-code DOCUMENT-NUMBER       a one-time enrollment code
          cosigner add-rp NAME                      register a relying party, print its API key
        Korean mobile ID (App2App messages):
          mobileid m200|link|decode|check      build M200 and app links, decode and check messages
        ID cards:
          card info [--reader NAME]            holder, document number, certificates, PIN tries left
          card change-pin --pin1|--pin2|--puk  change a PIN with the current one
          card unblock --pin1|--pin2           unblock a PIN with the PUK

        Other: help [COMMAND | GROUP], --version. Every command takes --help.
        Exit codes: 0 ok, 1 invalid or unsigned, 2 usage, 3 input refused, 4 signing failed,
                    5 trust not established, 6 write failed, 7 TSA/OCSP failed, 8 wait timed out,
                    9 PIN or password refused, 10 no usable card, 11 library missing, 130 cancelled
                    (docs/cli.md).
        """
}
