import FoundationEssentials
import Glibc
import IDCard
import TamgaCore

/// Picks the reader: `--reader NAME`, else the only supported card, else (on a terminal) asks.
private func chooseReader(_ named: String?, secrets: SecretInput, _ body: (String?) throws -> Void) throws {
    do {
        try body(named)
    } catch CardError.severalCards(let readers) where named == nil {
        guard let chosen = try secrets.choose("Several ID cards are present. Which one?", from: readers) else {
            throw CardError.severalCards(readers: readers)
        }
        try body(chosen)
    }
}

/// What `card change-pin` and `card unblock` take: which PIN, which reader, where secrets come from.
private struct PINCommandOptions: Sendable {
    let kind: PINKind
    let reader: String?
    let pinFile: String?

    init(_ arguments: ParsedArguments, command: String, allowPUK: Bool) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("card \(command) takes no arguments") }
        let chosen = [("--pin1", PINKind.pin1), ("--pin2", .pin2), ("--puk", .puk)].filter {
            arguments.has($0.0) && (allowPUK || $0.1 != .puk)
        }
        guard chosen.count == 1 else {
            throw UsageError(allowPUK ? "say which one: --pin1, --pin2 or --puk" : "say which one: --pin1 or --pin2")
        }
        kind = chosen[0].1
        reader = arguments.value("--reader")
        pinFile = arguments.value("--pin-file")
    }

    /// Reads the counter of `guarding` (refusing a blocked one), asks for the two secrets, runs `change`.
    func run(
        _ context: CommandContext, guarding: PINKind, currentPrompt: (Int) -> String,
        change: (SecretBytes, SecretBytes, String?) throws -> Void
    ) throws {
        let secrets = SecretInput(pinFile: pinFile, environment: context.environment)
        try chooseReader(reader, secrets: secrets) { reader in
            let counter = try IDCardPINs.retryCounter(guarding, reader: reader)
            if counter.isBlocked { throw CardError.pinBlocked(guarding) }
            let digits = try IDCardPINs.digits(kind, reader: reader)
            let pins = try secrets.readChange(
                currentPrompt: currentPrompt(counter.triesLeft),
                newPrompt: "New \(kind.rawValue) (\(digits.lowerBound)–\(digits.upperBound) digits): ")
            do {
                try change(pins.current, pins.new, reader)
            } catch CardError.wrongPIN(let refused, let left) {
                // The card's own words speak of signing too; here only a PIN was to change.
                throw OperationError(
                    underlying: CardError.wrongPIN(refused, triesLeft: left),
                    description:
                        "Wrong \(refused.rawValue): \(left) \(left == 1 ? "try" : "tries") left before it is blocked. "
                        + "Nothing was changed; tamga does not retry a PIN.")
            }
        }
    }
}

/// `tamga card info`
struct CardInfoCommand: Command {
    static let path = ["card", "info"]
    static let abstract = "Shows the ID card: holder, document number, certificates, PIN retry counters."
    static let usage = "[--reader NAME] [--json]"
    static let help = """
        Reads no PIN. The holder and document number come from the card's personal data file when it
        has one (EstEID IDEMIA), else from the signing certificate.
          --reader NAME   the reader holding the card (tamga readers lists them); needed when several
                          ID cards are present and there is no terminal to ask on
        Exit codes: 0 shown, 10 no reader / no card / card removed / unsupported card.
        """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ["--reader"]

    let reader: String?
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("card info takes no arguments") }
        reader = arguments.value("--reader")
        global = GlobalOptions(arguments)
    }

    struct Output: Encodable {
        struct CertificateInfo: Encodable {
            let role: String, subject: String, issuer: String, serialNumber: String
            let notBefore: String, notAfter: String, key: String, keyUsage: [String]
        }
        struct Counter: Encodable {
            let pin: String
            let triesLeft: Int
            let maximumTries: Int?
            let active: Bool
            let blocked: Bool
        }
        let reader: String, card: String, atr: String
        let holder: [String: String]
        let documentNumber: String?
        let certificates: [CertificateInfo]
        let pins: [Counter]
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        var info: IDCardInfo?
        try chooseReader(reader, secrets: SecretInput(pinFile: nil, environment: [:])) {
            info = try IDCardInfo.read(reader: $0)
        }
        guard let info else { return .cardUnavailable }
        let output = Output(
            reader: info.readerName, card: info.cardName, atr: info.atr, holder: info.holder,
            documentNumber: info.documentNumber,
            certificates: KeyRole.allCases.compactMap { role in
                info.certificates[role].map {
                    .init(
                        role: role.rawValue, subject: $0.subject, issuer: $0.issuer, serialNumber: $0.serialNumber,
                        notBefore: $0.notBefore.formatted(.iso8601), notAfter: $0.notAfter.formatted(.iso8601),
                        key: $0.publicKey.description, keyUsage: $0.keyUsage?.names ?? [])
                }
            },
            pins: PINKind.allCases.compactMap { kind in
                info.retryCounters[kind].map {
                    .init(
                        pin: kind.rawValue, triesLeft: $0.triesLeft, maximumTries: $0.maximumTries, active: $0.isActive,
                        blocked: $0.isBlocked)
                }
            })
        if global.json {
            context.terminal.json(output)
            return .success
        }
        let t = context.terminal
        t.line("\(output.card) in \(output.reader)")
        let name = [info.holder["givenNames"], info.holder["surname"]].compactMap { $0 }.joined(separator: " ")
        if !name.isEmpty { t.line("  holder:          \(name)") }
        if let code = info.holder["personalCode"] { t.line("  personal code:   \(code)") }
        if let number = output.documentNumber { t.line("  document number: \(number)") }
        if let expiry = info.holder["expiry"] { t.line("  valid until:     \(expiry)") }
        for certificate in output.certificates {
            t.line("  \(certificate.role) certificate: \(certificate.subject)")
            t.line(
                "    \(certificate.key), \(certificate.keyUsage.joined(separator: ", ")), valid \(certificate.notBefore) – \(certificate.notAfter)"
            )
        }
        for pin in output.pins {
            var line = "  \(pin.pin): \(pin.triesLeft)\(pin.maximumTries.map { " of \($0)" } ?? "") tries left"
            if pin.blocked { line += " — BLOCKED (tamga card unblock --\(pin.pin.lowercased()))" }
            if !pin.active { line += " — not activated yet (tamga card change-pin --\(pin.pin.lowercased()))" }
            t.line(line)
        }
        return .success
    }
}

/// `tamga card change-pin`
struct CardChangePINCommand: Command {
    static let path = ["card", "change-pin"]
    static let abstract = "Changes PIN1, PIN2 or the PUK with the current one."
    static let usage = "--pin1|--pin2|--puk [--reader NAME] [--pin-file FILE] [--json]"
    static let help = """
        Asks for the current PIN, then the new one twice (they must match; nothing is sent otherwise).
        One attempt: a wrong current PIN is reported with the tries left and never retried.
        Non-interactive: --pin-file FILE with two lines (current, new), or TAMGA_PIN and TAMGA_NEW_PIN.
        Exit codes: 0 changed, 9 the card refused the PIN (wrong, blocked, wrong length), 10 no card.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--pin1", "--pin2", "--puk"])
    static let options: Set<String> = ["--reader", "--pin-file"]

    private let options: PINCommandOptions
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        options = try PINCommandOptions(arguments, command: "change-pin", allowPUK: true)
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let kind = options.kind
        try options.run(context, guarding: kind, currentPrompt: { "Current \(kind.rawValue) (\($0) tries left): " }) {
            current, new, reader in
            try IDCardPINs.change(kind, current: current, new: new, reader: reader)
        }
        // --json is accepted by every command, so it gives JSON here too (a refusal is the error object).
        if global.json {
            context.terminal.json(["pin": kind.rawValue, "result": "changed"])
        } else {
            context.terminal.line("\(kind.rawValue) changed.")
        }
        return .success
    }
}

/// `tamga card unblock`
struct CardUnblockCommand: Command {
    static let path = ["card", "unblock"]
    static let abstract = "Unblocks PIN1 or PIN2 with the PUK and sets a new one."
    static let usage = "--pin1|--pin2 [--reader NAME] [--pin-file FILE] [--json]"
    static let help = """
        Asks for the PUK, then the new PIN twice. One attempt: a wrong PUK is reported with its tries
        left; a blocked PUK cannot be unblocked here (the card's issuer can).
        Non-interactive: --pin-file FILE with two lines (PUK, new PIN), or TAMGA_PIN (the PUK) and
        TAMGA_NEW_PIN.
        Exit codes: 0 unblocked, 9 the card refused the PUK or the new PIN, 10 no card.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--pin1", "--pin2"])
    static let options: Set<String> = ["--reader", "--pin-file"]

    private let options: PINCommandOptions
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        options = try PINCommandOptions(arguments, command: "unblock", allowPUK: false)
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let kind = options.kind
        try options.run(context, guarding: .puk, currentPrompt: { "PUK (\($0) tries left): " }) { puk, new, reader in
            try IDCardPINs.unblock(kind, puk: puk, new: new, reader: reader)
        }
        if global.json {
            context.terminal.json(["pin": kind.rawValue, "result": "unblocked"])
        } else {
            context.terminal.line("\(kind.rawValue) unblocked and set.")
        }
        return .success
    }
}
