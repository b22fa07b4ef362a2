import Foundation
import TamgaCore
import Threshold

/// The device's threshold PIN from `--pin-file`, `$TAMGA_PIN` or a prompt (never retried).
struct ThresholdPINPrompt: ThresholdPINProvider {
    let secrets: SecretInput
    func pin(role: ShareRole, account: String) async throws -> SecretBytes {
        do {
            return try secrets.read(prompt: "\(role == .sign ? "PIN2" : "PIN1") of threshold account \(account): ")
        } catch SecretInput.Failure.cancelled {
            throw ThresholdError.unexpectedMessage("cancelled at the PIN prompt")
        }
    }
}

/// `tamga threshold enroll`
struct ThresholdEnrollCommand: Command {
    static let path = ["threshold", "enroll"]
    static let abstract = "Enrolls a split signing key with a co-signer (this device holds one share)."
    static let usage = "--server URL --code CODE --account NAME [--role sign|auth] [--pin-file FILE] [--store DIR] [--json]"
    static let help = """
    Runs the two enrollment round trips with the co-signer (the one-time CODE from its operator),
    seals this device's share under a new PIN (PIN2 for sign, PIN1 for auth; asked twice, or
    --pin-file / TAMGA_PIN), and fetches the key's certificate by signing a request with the new
    key. The share lives under $XDG_DATA_HOME/tamga/threshold/NAME (or --store DIR).
    """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ["--server", "--code", "--account", "--role", "--pin-file", "--store"]

    let server: URL
    let code: String
    let account: String
    let role: ShareRole
    let pinFile: String?
    let storeRoot: String?
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard let serverText = arguments.value("--server"), let server = URL(string: serverText), server.scheme == "http" || server.scheme == "https" else {
            throw UsageError("give the co-signer with --server URL")
        }
        guard let code = arguments.value("--code"), !code.isEmpty else { throw UsageError("give the enrollment code with --code") }
        guard let account = arguments.value("--account"), !account.isEmpty else { throw UsageError("name the account with --account (the document number)") }
        guard let role = ShareRole(rawValue: arguments.value("--role") ?? "sign") else { throw UsageError("--role takes sign or auth") }
        self.server = server
        self.code = code
        self.account = account
        self.role = role
        pinFile = arguments.value("--pin-file")
        storeRoot = arguments.value("--store")
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let secrets = SecretInput(pinFile: pinFile, environment: context.environment)
        let pin = try secrets.read(prompt: "New \(role == .sign ? "PIN2" : "PIN1") for this split key: ")
        let store = try ShareKeyStore(account: account, root: storeRoot.map { URL(fileURLWithPath: $0) }, environment: context.environment)
        let client = ThresholdClient(server: server)
        let (share, registration, certificate) = try await client.enroll(code: code, role: role, pin: pin, store: store) { step in
            if !global.quiet { context.terminal.error(step) }
        }
        if global.json {
            context.terminal.json(["account": account, "role": role.rawValue, "documentNumber": registration.documentNumber,
                                   "keyID": WireFormat.hex(share.keyID), "certificate": certificate.subject])
        } else {
            context.terminal.line("Enrolled \(role.rawValue) key \(WireFormat.hex(share.keyID).prefix(16))… for \(registration.documentNumber)")
            context.terminal.line("  certificate: \(certificate.subject)")
        }
        return .success
    }
}
