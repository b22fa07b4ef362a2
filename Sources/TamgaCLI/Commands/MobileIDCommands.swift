import FoundationEssentials
import Glibc
import MobileID
import TamgaCore
import TamgaSupport

/// Prints a message's JSON as it is (sorted keys), for text and `--json` alike.
private func printJSON(_ data: Data, _ terminal: Terminal) {
    let object = (try? JSON.parse(data)) ?? [:]
    let pretty = (try? JSON.data(object, options: [.prettyPrinted, .withoutEscapingSlashes])).map { Data($0) } ?? data
    terminal.line(String(decoding: pretty, as: UTF8.self))
}

/// Reads `@FILE`, a FILE that exists (a message is never a file name: JSON starts with `{`),
/// or the text itself.
private func argumentText(_ value: String) throws -> String {
    let path: String
    if value.hasPrefix("@") {
        path = String(value.dropFirst())
    } else if !value.hasPrefix("{"), FileBytes.isRegularFile(value) {
        path = value
    } else {
        return value
    }
    guard let data = FileManager.default.contents(atPath: path) else {
        throw CoreError.unreadableFile(path: path, reason: "cannot read")
    }
    return String(decoding: data, as: UTF8.self).trimmed()
}

/// `tamga mobileid m200`
struct MobileIDM200Command: Command {
    static let path = ["mobileid", "m200"]
    static let abstract = "Builds the M200 message an SP sends to the Korean mobile-ID app."
    static let usage =
        "--mode direct|indirect --host URL [--trxcode CODE] [--profile BASE64] [--image URL] [--ci] [--telno] [--message-version V] [--json]"
    static let help = """
        Prints the M200 JSON and, on the last line, its unpadded base64url (what app links and
        m200Base64 carry). The transaction code is made now (yyyyMMddHHmmssSSS + 8 hex digits)
        unless given. --ci / --telno ask the app to include the CI identifier / the phone number.
        --json: {"m200": {…}, "base64": "…"}.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--ci", "--telno"])
    static let options: Set<String> = ["--mode", "--host", "--trxcode", "--profile", "--image", "--message-version"]
    let m200: M200
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard let modeText = arguments.value("--mode"), let mode = Mode(rawValue: modeText) else {
            throw UsageError("--mode takes direct, indirect, proxy or p2p")
        }
        let code = arguments.value("--trxcode") ?? TransactionCode.make()
        guard TransactionCode.isValid(code) else {
            throw UsageError("--trxcode: \(MobileIDError.malformedTransactionCode(code))")
        }
        guard mode != .direct || arguments.value("--host") != nil else {
            throw UsageError("a direct-mode M200 needs --host (where the app posts the presentation)")
        }
        m200 = M200(
            version: arguments.value("--message-version") ?? "1.0.0", transactionCode: code, mode: mode,
            profile: arguments.value("--profile") ?? "",
            image: arguments.value("--image"), ci: arguments.has("--ci"), telno: arguments.has("--telno"),
            host: arguments.value("--host"))
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        if global.json {
            let object: [String: Any] = ["m200": (try? JSON.parse(m200.json)) ?? [:], "base64": m200.base64]
            printJSON(Data(try JSON.data(object)), context.terminal)
        } else {
            printJSON(m200.json, context.terminal)
            context.terminal.line(m200.base64)
        }
        return .success
    }
}

/// `tamga mobileid link`
struct MobileIDLinkCommand: Command {
    static let path = ["mobileid", "link"]
    static let abstract = "Builds the URL that opens the mobile-ID app for an M200 (scheme or universal link)."
    static let usage = "M200-BASE64|@FILE --client-scheme SCHEME [--universal | --testbed] [--json]"
    static let help = """
        MobileID://verify?clientScheme=…&data=…&mode=… by default, tMobileID:// with --testbed, or
        https://mobileid.go.kr/verify.html?… with --universal. The app takes at most 1024
        characters: a longer URL is refused (exit 3); leave the profile out of the M200 then.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--universal", "--testbed"])
    static let options: Set<String> = ["--client-scheme"]
    let m200: String, clientScheme: String, universal: Bool, testbed: Bool
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1 else { throw UsageError("give the M200 (base64, or @FILE)") }
        global = GlobalOptions(arguments)
        m200 = arguments.positionals[0]
        clientScheme = arguments.value("--client-scheme") ?? ""
        universal = arguments.has("--universal")
        testbed = arguments.has("--testbed")
        if universal && testbed {
            throw UsageError("the universal link exists for production only: --universal or --testbed")
        }
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let message = try M200(base64: argumentText(m200))
        let url =
            universal
            ? try AppLink.universal(message, clientScheme: clientScheme)
            : try AppLink.scheme(message, clientScheme: clientScheme, environment: testbed ? .testbed : .production)
        // --json is accepted by every command, so it must give JSON here too, not a bare line.
        if global.json { context.terminal.json(["url": url]) } else { context.terminal.line(url) }
        return .success
    }
}

/// `tamga mobileid decode`
struct MobileIDDecodeCommand: Command {
    static let path = ["mobileid", "decode"]
    static let abstract = "Decodes an App2App URL, envelope, M200 or M400 and checks its form."
    static let usage = "TEXT|@FILE [--client-scheme SCHEME]"
    static let help = """
        TEXT is an app call (MobileID://, tMobileID://, https://mobileid.go.kr/verify.html), a
        callback (SCHEME://verify?success=…, with --client-scheme), an SP envelope
        {"result", "data"}, or base64 (any alphabet, padded or not) or JSON of an M200 or M400.
        Prints the message as JSON; a malformed one is refused with its reason (exit 3).
        """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ["--client-scheme"]
    let text: String, clientScheme: String?

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1 else { throw UsageError("give the text to decode (or @FILE)") }
        text = arguments.positionals[0]
        clientScheme = arguments.value("--client-scheme")
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let input = try argumentText(text)
        if let clientScheme, input.lowercased().hasPrefix(clientScheme.lowercased() + "://") {
            printJSON(try AppLink.parseCallback(input, clientScheme: clientScheme).json, context.terminal)
        } else if input.contains("://") && (try? JSON.parse(Data(input.utf8))) == nil {
            let call = try AppLink.parseCall(input)
            // The client scheme comes from the link (a QR code, a web page): escaped.
            context.terminal.error(
                "app call (\(call.environment == .testbed ? "test bed" : "production"), mode \(call.mode.rawValue), clientScheme \"\(TerminalText.escaped(call.clientScheme))\")"
            )
            printJSON(call.m200.json, context.terminal)
        } else {
            // JSON: an envelope, or a message; otherwise base64 of a message.
            var message = Data(input.utf8)
            if let object = (try? JSON.parse(message)) as? [String: Any], object["data"] is String,
                object["result"] != nil
            {
                message = try Envelope(json: message).message
            } else if (try? JSON.parse(message)) == nil {
                message = try Base64URL.decode(input, field: "the text")
            }
            guard let object = (try? JSON.parse(message)) as? [String: Any] else {
                throw MobileIDError.malformedMessage(message: "input", detail: "not a JSON object")
            }
            switch object["cmd"] as? String {
            case "200": printJSON(try M200(object: object).json, context.terminal)
            case "400": printJSON(try M400(object: object).json, context.terminal)
            case "530":
                printJSON(message, context.terminal)
                if let inner = object["m200Base64"] as? String {
                    printJSON(try M200(base64: inner).json, context.terminal)
                }
            default: printJSON(message, context.terminal)
            }
        }
        return .success
    }
}

/// `tamga mobileid check`
struct MobileIDCheckCommand: Command {
    static let path = ["mobileid", "check"]
    static let abstract = "Checks an M400 presentation as an SP server must, before decrypting it."
    static let usage = "M400|FILE|@FILE --trxcode CODE --nonce NONCE [--auth-type pin,face] [--json]"
    static let help = """
        The presentation (JSON or base64) must be for --trxcode, carry the profile's --nonce, use
        supported VP values (RSA key, AES-128/256), and satisfy the profile's authentication
        (--auth-type; without it, pin or bio). Exit 0 accepted; 1 refused, with the SP errcode an
        M900 answer would carry. --json: {"accepted", "code", "errcode", "message"}.
        """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ["--trxcode", "--nonce", "--auth-type"]
    let text: String, transactionCode: String, nonce: String, authType: [String]?
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1 else { throw UsageError("give the M400 (JSON, base64, or @FILE)") }
        text = arguments.positionals[0]
        guard let code = arguments.value("--trxcode"), let nonce = arguments.value("--nonce") else {
            throw UsageError("give --trxcode and --nonce of the transaction")
        }
        transactionCode = code
        self.nonce = nonce
        authType = arguments.value("--auth-type").map { $0.split(separator: ",").map(String.init) }
        global = GlobalOptions(arguments)
    }

    struct Verdict: Encodable {
        let accepted: Bool
        let code: String?
        let errcode: Int?
        let message: String
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let verdict: Verdict
        do {
            try M400(text: argumentText(text)).check(
                transactionCode: transactionCode, nonce: nonce, requiredAuthType: authType)
            verdict = Verdict(
                accepted: true, code: nil, errcode: nil, message: "presentation accepted for \(transactionCode)")
        } catch let error as MobileIDError {
            verdict = Verdict(accepted: false, code: error.code, errcode: error.spErrorCode, message: error.description)
        }
        if global.json {
            context.terminal.json(verdict)
        } else if verdict.accepted {
            context.terminal.line(verdict.message)
        } else {
            // The reason quotes the wallet's message (a transaction code, an authType): escaped.
            context.terminal.line(
                TerminalText.escaped(
                    "refused: \(verdict.message) [\(verdict.code ?? "")\(verdict.errcode.map { ", errcode \($0)" } ?? "")]"
                ))
        }
        return verdict.accepted ? .success : .verificationFailed
    }
}
