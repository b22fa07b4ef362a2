import FoundationEssentials
import Glibc
import PCSC
import PKCS11
import TamgaSupport

/// `tamga readers`
struct ReadersCommand: Command {
    static let path = ["readers"]
    static let abstract = "Lists smart-card readers: state, ATR, the card recognised, the token media family."
    static let usage =
        "[--json] [--media [--module PATH]] | --watch [--json] | --wait MEDIA_OR_FAMILY [--timeout SECONDS]"
    static let help = """
        One line per reader: name, state (empty, present, in-use, exclusive, mute), the card's ATR,
        the card recognised from it, and the CryptoPro media family when the reader or card is a
        Rutoken (the serial part of a media name needs the token itself: see tamga tokens).
          --watch              print readers attached and detached and cards inserted and removed as
                               they happen, until interrupted (with --json: one JSON object per line)
          --wait MEDIA         tell the user to connect the token and wait until a reader with a card of
                               that media family is present (rutoken_ecp, rutoken_lt, or a full media name
                               such as rutoken_ecp_4a1b2c3d, whose family is what can be checked here)
          --timeout SECONDS    how long --wait waits (default 60)
          --media              also the full CryptoPro media name of each Rutoken (rutoken_ecp_<serial>),
                               from its PKCS#11 token: the module's slot is named after the reader
          --module PATH        with --media: this PKCS#11 library instead of the p11-kit registered ones
        Exit codes: 0 listed / ready, 10 pcscd not running (as card and sign say), 8 --wait timed out (the message says whether
        another token was connected instead).
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--watch", "--media"])
    static let options: Set<String> = ["--wait", "--timeout", "--module"]

    let global: GlobalOptions
    let watch: Bool
    let waitFor: String?
    let timeout: TimeInterval
    let media: Bool
    let module: String?

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("readers takes no arguments") }
        global = GlobalOptions(arguments)
        watch = arguments.has("--watch")
        waitFor = arguments.value("--wait")
        guard let timeout = TimeInterval(arguments.value("--timeout") ?? "60"), timeout > 0 else {
            throw UsageError("--timeout takes a number of seconds")
        }
        self.timeout = timeout
        media = arguments.has("--media")
        module = arguments.value("--module")
        if module != nil && !media { throw UsageError("--module goes with --media") }
        if media && (watch || waitFor != nil) { throw UsageError("--media is for the listing, not --watch or --wait") }
        if watch && waitFor != nil { throw UsageError("--watch and --wait cannot be combined") }
        if let waitFor,
            MediaName(waitFor)?.family == nil && !["rutoken_ecp", "rutoken_lt", "rutoken"].contains(waitFor)
        {
            throw UsageError(
                "--wait takes a media family (rutoken_ecp, rutoken_lt, rutoken) or a media name, not \(waitFor)")
        }
    }

    private func family(of text: String) -> String { MediaName(text)?.family ?? text }

    struct EventLine: Encodable {
        let event: String
        let reader: String
        let state: String
        let atr: String?
        let card: String?
    }

    private func watchReaders(_ context: CommandContext) async throws -> ExitCode {
        let monitor = try ReaderMonitor()
        let events = monitor.events()
        defer { monitor.stop() }
        for try await event in events {
            if global.json {
                context.terminal.jsonLine(
                    EventLine(
                        event: event.kind.rawValue, reader: event.reader.name, state: event.reader.state.summary,
                        atr: event.reader.atr.isEmpty ? nil : event.reader.atrHex, card: event.reader.card?.name))
            } else {
                context.terminal.line(event.description)
            }
        }
        return .success
    }

    private func waitForToken(_ wanted: String, _ context: CommandContext) async throws -> ExitCode {
        let expected = family(of: wanted)
        // pcscd first: "waiting…" and then "pcscd is not running" would have had the person wait
        // for nothing.
        let monitor = try ReaderMonitor()
        context.terminal.error("Connect the token (\(wanted)); waiting up to \(Int(timeout)) s…")
        let events = monitor.events()
        let timer = Task {
            try await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
            monitor.cancel()
        }
        defer {
            timer.cancel()
            monitor.stop()
        }
        var wrong: String? = nil
        for try await event in events where event.reader.state.contains(.present) {
            let family = event.reader.mediaFamily
            if family == expected {
                if global.json {
                    context.terminal.json(
                        WaitResult(
                            ready: true, reader: event.reader.name, card: event.reader.card?.name,
                            mediaFamily: expected, instead: nil))
                } else {
                    context.terminal.line(
                        "ready: \(event.reader.name) (\(event.reader.card?.name ?? "token"), media family \(expected))")
                }
                return .success
            }
            wrong =
                "\(event.reader.name) holds \(event.reader.card?.name ?? "an unknown card (ATR \(event.reader.atrHex))")"
        }
        if global.json {
            context.terminal.json(
                WaitResult(ready: false, reader: nil, card: nil, mediaFamily: expected, instead: wrong))
        } else {
            context.terminal.error(
                "tamga: no \(expected) token appeared within \(Int(timeout)) s"
                    + (wrong.map { "; instead: \($0)" } ?? "") + ".")
        }
        return .waitTimedOut
    }

    /// `readers --wait … --json`: one object, whether the token came (exit 0) or not (exit 8).
    struct WaitResult: Encodable {
        let ready: Bool
        let reader: String?
        let card: String?
        let mediaFamily: String
        let instead: String?
    }

    struct Listing: Encodable {
        struct Entry: Encodable {
            let name: String
            let state: String
            let atr: String?
            let card: String?
            let mediaFamily: String?
            let mediaName: String?
        }
        let readers: [Entry]

        /// The listing as `Encodable` would write it (absent optionals left out), for
        /// `Terminal.json(_: JSON.Value)`; `ReadersListingTests` holds the two to the same text.
        var tree: JSON.Value {
            .object([
                (
                    "readers",
                    .array(
                        readers.map { entry in
                            var members: [(String, JSON.Value)] = [
                                ("name", .string(entry.name)), ("state", .string(entry.state)),
                            ]
                            if let atr = entry.atr { members.append(("atr", .string(atr))) }
                            if let card = entry.card { members.append(("card", .string(card))) }
                            if let family = entry.mediaFamily { members.append(("mediaFamily", .string(family))) }
                            if let name = entry.mediaName { members.append(("mediaName", .string(name))) }
                            return .object(members)
                        })
                )
            ])
        }
    }

    /// Reader name → the Rutoken media name of the PKCS#11 token in it. Rutoken's module names
    /// each slot after its PC/SC reader, which is how the two are matched.
    private func tokenMediaNames() throws -> [String: String] {
        var names: [String: String] = [:]
        for token in PKCS11Tokens.tokens(in: try PKCS11Tokens.modules(path: module)) {
            if let name = token.info.rutokenMediaName { names[token.slot.description] = name }
        }
        return names
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        if watch { return try await watchReaders(context) }
        if let waitFor { return try await waitForToken(waitFor, context) }
        return try list(context)
    }

    func runWithoutConcurrency(_ context: CommandContext) throws -> ExitCode? {
        watch || waitFor != nil ? nil : try list(context)
    }

    /// The listing: one SCardGetStatusChange over every reader, no waiting.
    private func list(_ context: CommandContext) throws -> ExitCode {
        let readers = try PCSCContext().readers()
        let mediaNames = media ? try tokenMediaNames() : [:]
        let listing = Listing(
            readers: readers.map {
                .init(
                    name: $0.name, state: $0.state.summary, atr: $0.atr.isEmpty ? nil : $0.atrHex, card: $0.card?.name,
                    mediaFamily: $0.mediaFamily, mediaName: mediaNames[$0.name])
            })
        if global.json {
            context.terminal.json(listing.tree)
        } else if readers.isEmpty {
            context.terminal.line("No smart-card reader is connected. Plug one in and run tamga readers again.")
        } else {
            for entry in listing.readers {
                var line = "\(entry.name): \(entry.state)"
                if let atr = entry.atr { line += ", ATR \(atr)" }
                line += entry.card.map { ", \($0)" } ?? (entry.atr == nil ? "" : ", unknown card")
                if let name = entry.mediaName {
                    line += ", media \(name)"
                } else if let family = entry.mediaFamily {
                    line += ", media \(family)_…"
                }
                context.terminal.line(line)
            }
        }
        return .success
    }
}
