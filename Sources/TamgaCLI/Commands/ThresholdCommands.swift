import FoundationEssentials
import Glibc
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
    static let usage =
        "--server URL --code CODE --account NAME [--role sign|auth|both] [--ca-file PEM] [--pin-file FILE] [--pin1-file FILE] [--store DIR] [--json]"
    static let help = """
        Runs the two enrollment round trips with the co-signer (the one-time CODE from its operator),
        seals this device's share under a new PIN (PIN2 for sign, at least 5 characters; PIN1 for
        auth, at least 4; asked twice on a terminal, or --pin-file / TAMGA_PIN) hardened by the
        co-signer (every later PIN check needs it: docs/threshold-pin.md), and fetches the key's certificate by signing a request
        with the new key. --role both enrolls the sign key and then the auth key with the same code:
        PIN2 as above, PIN1 from --pin1-file / TAMGA_PIN1 or asked. The share lives under
        $XDG_DATA_HOME/tamga/threshold/NAME (or --store DIR), with the device key (device.key) that
        signs every call to the co-signer.
        With an https co-signer, its TLS key is pinned now (after the usual checks against the
        system's trust, or --ca-file PEM) and every later call accepts that key only. Without
        --server, "cosigner" in config.json names the co-signer.
        --json: {"account", "documentNumber", "keys": [{"role", "keyID", "certificate"}]}.
        """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = [
        "--server", "--code", "--account", "--role", "--pin-file", "--pin1-file", "--store", "--ca-file",
    ]

    /// `--server`, else the configuration's `cosigner` (looked up when run).
    let server: URL?
    let code: String
    let account: String
    let roles: [ShareRole]
    let pinFile: String?
    let pin1File: String?
    let storeRoot: String?
    let caFile: String?
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        caFile = arguments.value("--ca-file")
        var server: URL? = nil
        if let serverText = arguments.value("--server") {
            guard let url = URL(string: serverText), url.scheme == "http" || url.scheme == "https", url.host != nil
            else {
                throw UsageError("--server takes the co-signer's http(s) URL")
            }
            server = url
        }
        guard let code = arguments.value("--code"), !code.isEmpty else {
            throw UsageError("give the enrollment code with --code")
        }
        guard let account = arguments.value("--account"), !account.isEmpty else {
            throw UsageError("name the account with --account (the document number)")
        }
        switch arguments.value("--role") ?? "sign" {
        case "sign": roles = [.sign]
        case "auth": roles = [.auth]
        case "both": roles = [.sign, .auth]
        default: throw UsageError("--role takes sign, auth or both")
        }
        self.server = server
        self.code = code
        self.account = account
        pinFile = arguments.value("--pin-file")
        pin1File = arguments.value("--pin1-file")
        storeRoot = arguments.value("--store")
        global = GlobalOptions(arguments)
    }

    /// Where each role's new PIN comes from: the usual sources for a single role; with both,
    /// PIN2 from those and PIN1 from --pin1-file or TAMGA_PIN1.
    func secrets(for role: ShareRole, _ environment: [String: String]) -> SecretInput {
        guard roles.count == 2, role == .auth else { return SecretInput(pinFile: pinFile, environment: environment) }
        var remapped = environment
        remapped[SecretInput.environmentVariable] = environment["TAMGA_PIN1"]
        return SecretInput(pinFile: pin1File, environment: remapped)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        guard let server = try server ?? Configuration.load(environment: context.environment).cosigner else {
            throw UsageError("give the co-signer with --server URL (or \"cosigner\" in config.json)")
        }
        // The account's folder first: a read-only home is reported before any PIN is asked.
        let store = try ThresholdAccountFolder.creating(
            account: account, store: storeRoot, environment: context.environment)
        // Every PIN first, so nothing is enrolled when one cannot be read.
        var pins: [ShareRole: SecretBytes] = [:]
        for role in roles {
            let pin = try secrets(for: role, context.environment).readNew(
                prompt: "New \(role == .sign ? "PIN2 (signing)" : "PIN1 (authentication)") for this split key: ")
            // Too short: refused before any request, so no code is half used.
            try PINPolicy.check(pin, role: role)
            pins[role] = pin
        }
        var transport = HTTPTransport(timeout: 60)
        if let caFile {
            guard let pem = FileManager.default.contents(atPath: caFile) else {
                throw CoreError.unreadableFile(path: caFile, reason: "cannot read")
            }
            transport.trustedCertificates = try Certificate.parseAll(pem: pem)
        }
        let client = ThresholdClient(server: server, transport: transport)
        var enrolled: [[String: String]] = []
        var document = ""
        for role in roles {
            let (share, registration, certificate) = try await client.enroll(
                code: code, role: role, pin: pins[role]!, store: store
            ) { step in
                if !global.quiet { context.terminal.error(roles.count > 1 ? "\(role.rawValue): \(step)" : step) }
            }
            document = registration.documentNumber
            enrolled.append([
                "role": role.rawValue, "keyID": WireFormat.hex(share.keyID), "certificate": certificate.subject,
            ])
            if !global.json {
                // The document number and the certificate come from the co-signer: escaped, so
                // that neither can rewrite the screen (OpenSSL's name printing leaves C1 controls
                // and bidirectional overrides raw).
                context.terminal.line(
                    "Enrolled \(role.rawValue) key \(WireFormat.hex(share.keyID).prefix(16))… for \(TerminalText.escaped(registration.documentNumber))"
                )
                context.terminal.line("  certificate: \(TerminalText.escapedName(certificate.subject))")
            }
        }
        if global.json {
            struct Output: Encodable { let account: String, documentNumber: String, keys: [[String: String]] }
            context.terminal.json(Output(account: account, documentNumber: document, keys: enrolled))
        }
        return .success
    }
}

/// What the device-side commands share: the account, its role, where its share lives, secrets.
private struct ThresholdAccountOptions {
    let account: String
    /// `--role`, when given; commands that can tell the role from a session use that instead.
    let explicitRole: ShareRole?
    let storeRoot: String?
    let pinFile: String?

    static let options: Set<String> = ["--account", "--role", "--store", "--pin-file"]

    var role: ShareRole { explicitRole ?? .sign }

    init(_ arguments: ParsedArguments) throws {
        guard let account = arguments.value("--account"), !account.isEmpty else {
            throw UsageError("name the account with --account")
        }
        if let text = arguments.value("--role") {
            guard let role = ShareRole(rawValue: text) else { throw UsageError("--role takes sign or auth") }
            explicitRole = role
        } else {
            explicitRole = nil
        }
        self.account = account
        storeRoot = arguments.value("--store")
        pinFile = arguments.value("--pin-file")
    }

    func store(_ context: CommandContext) throws -> ShareKeyStore {
        try ThresholdAccountFolder.existing(account: account, store: storeRoot, environment: context.environment)
    }

    /// The role to talk to the co-signer with: `--role`, else whichever key is enrolled (sign first).
    func registeredRole(_ store: ShareKeyStore) -> ShareRole {
        explicitRole ?? ((try? store.registration(.sign)) != nil ? .sign : .auth)
    }

    func client(
        _ store: ShareKeyStore, role: ShareRole? = nil
    ) throws -> (ThresholdClient, ThresholdClient.Registration) {
        let registration = try store.registration(role ?? registeredRole(store))
        guard let server = URL(string: registration.server) else {
            throw ThresholdError.keyStore("the stored co-signer URL is not a URL")
        }
        return (
            ThresholdClient(
                server: server, transport: registration.transport(), attestation: try store.deviceAttestation()),
            registration
        )
    }

    func secrets(_ context: CommandContext) -> SecretInput {
        SecretInput(pinFile: pinFile, environment: context.environment)
    }

    /// The session's verification code as this device computes it from the digest it would
    /// sign with its own key; nil when it holds no key for the session or would refuse it.
    func verificationCode(of session: ThresholdClient.SessionInfo, store: ShareKeyStore) -> String? {
        guard let share = try? store.publicShare(session.role), share.keyID == session.keyID else { return nil }
        return try? session.verificationCode(
            subjectPublicKeyInfo: TwoPartySigning.subjectPublicKeyInfo(share.publicKey))
    }

    /// The co-signer's part of every PIN check of `role`'s key, as this device.
    func hardening(_ store: ShareKeyStore, role: ShareRole) throws -> CoSignerPINHardening {
        let (client, registration) = try client(store, role: role)
        return CoSignerPINHardening(client: client, token: registration.deviceToken)
    }
}

/// `tamga threshold pending`
struct ThresholdPendingCommand: Command {
    static let path = ["threshold", "pending"]
    static let abstract = "Lists the signing sessions waiting for this device's approval."
    static let usage = "--account NAME [--role sign|auth] [--store DIR] [--json]"
    static let help = """
        One line per session: id, kind, verification code, relying party, what it asks to sign.
        The four-digit code is computed on this device from the digest it would sign (Smart-ID's
        rule); it must be the code the relying party shows. "????": this device would refuse the
        session (an AUTH digest that is not its own, or a key it does not hold).
        --json: {"sessions": [{"id", "kind", "rpName", "displayText", "digest", "verificationCode"}]}.
        """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ThresholdAccountOptions.options
    fileprivate let account: ThresholdAccountOptions
    let global: GlobalOptions
    init(_ arguments: ParsedArguments) throws {
        account = try ThresholdAccountOptions(arguments)
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let store = try account.store(context)
        let (client, registration) = try account.client(store)
        let sessions = try await client.pending(registration)
        let codes = sessions.map { account.verificationCode(of: $0, store: store) }
        if global.json {
            context.terminal.json([
                "sessions": zip(sessions, codes).map { session, code in
                    var object = [
                        "id": session.id, "kind": session.kind, "rpName": session.rpName,
                        "displayText": session.displayText,
                        "digest": WireFormat.hex(session.digest),
                    ]
                    object["verificationCode"] = code
                    return object
                }
            ])
        } else if sessions.isEmpty {
            context.terminal.line("No session is waiting.")
        } else {
            // Everything here came from the network: escaped, so it cannot rewrite the screen.
            for (session, code) in zip(sessions, codes) {
                context.terminal.line(
                    TerminalText.escaped(
                        "\(session.id)  \(session.kind)  \(code ?? "????")  \(session.rpName): \(session.displayText)"))
            }
        }
        return .success
    }
}

/// `tamga threshold info`
struct ThresholdInfoCommand: Command {
    static let path = ["threshold", "info"]
    static let abstract = "Shows one session as the co-signer describes it, and what this device would sign."
    static let usage = "SESSION --account NAME [--store DIR] [--json]"
    static let help = """
        Relying party, text, kind, state, expiry and the digest. For an AUTH session also the
        relying party's challenge and whether the digest is ACSP_V2 of that challenge and this
        device's own key (approve refuses it otherwise).
        """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ThresholdAccountOptions.options
    fileprivate let account: ThresholdAccountOptions
    let session: String
    let global: GlobalOptions
    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1 else {
            throw UsageError("give the session id (tamga threshold pending lists them)")
        }
        session = arguments.positionals[0]
        account = try ThresholdAccountOptions(arguments)
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let store = try account.store(context)
        let (client, registration) = try account.client(store)
        let info = try await client.session(session, registration: registration)
        // Whether this device agrees with the digest (it has the key the session names).
        var check = "not this device's key"
        if let share = try? store.publicShare(info.role), share.keyID == info.keyID {
            do {
                _ = try info.digestToSign(subjectPublicKeyInfo: TwoPartySigning.subjectPublicKeyInfo(share.publicKey))
                check =
                    info.kind == "AUTH"
                    ? "ACSP_V2 of the challenge and this device's key" : "the relying party's digest"
            } catch {
                check = "MISMATCH: approve will refuse"
            }
        }
        let expires = info.expiresAt.map { $0.formatted(.iso8601) } ?? ""
        let code = account.verificationCode(of: info, store: store)
        if global.json {
            var object: [String: String] = [
                "id": info.id, "kind": info.kind, "state": info.state, "rpName": info.rpName,
                "displayText": info.displayText,
                "digest": WireFormat.hex(info.digest), "keyID": WireFormat.hex(info.keyID), "expiresAt": expires,
                "digestCheck": check,
            ]
            if let challenge = info.rpChallenge { object["rpChallenge"] = Data(challenge).base64EncodedString() }
            object["verificationCode"] = code
            context.terminal.json(object)
        } else {
            context.terminal.line("session       \(TerminalText.escaped(info.id))")
            context.terminal.line(
                "kind          \(TerminalText.escaped(info.kind)) (\(info.role == .sign ? "PIN2, sign key" : "PIN1, auth key"))"
            )
            context.terminal.line("state         \(TerminalText.escaped(info.state))")
            context.terminal.line("relying party \(TerminalText.escaped(info.rpName))")
            context.terminal.line("text          \(TerminalText.escaped(info.displayText))")
            if let challenge = info.rpChallenge {
                context.terminal.line("challenge     \(Data(challenge).base64EncodedString())")
            }
            context.terminal.line("digest        \(WireFormat.hex(info.digest)) (\(check))")
            context.terminal.line("code          \(code ?? "???? (this device would refuse it)")")
            if !expires.isEmpty { context.terminal.line("expires       \(expires)") }
        }
        return .success
    }
}

/// `tamga threshold approve`
struct ThresholdApproveCommand: Command {
    static let path = ["threshold", "approve"]
    static let abstract = "Approves one session: shows what is signed, asks the PIN, signs with the split key."
    static let usage = "SESSION --account NAME [--store DIR] [--pin-file FILE] [--json]"
    static let help = """
        The device fetches the session itself and shows the relying party and the text before asking
        for the PIN. A SIGN session uses the sign key and PIN2, an AUTH session the auth key and PIN1;
        for AUTH the device computes ACSP_V2 over the relying party's challenge and its own key and
        refuses a session whose digest differs. The joint signature is checked against this
        device's certificate before it is sent back (what you see is what you sign). Before the PIN
        it shows the verification code, computed here from the digest it signs: approve only when
        it is the code the relying party shows. --json adds "verificationCode".
        """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ThresholdAccountOptions.options
    fileprivate let account: ThresholdAccountOptions
    let session: String
    let global: GlobalOptions
    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1 else {
            throw UsageError("give the session id (tamga threshold pending lists them)")
        }
        session = arguments.positionals[0]
        account = try ThresholdAccountOptions(arguments)
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let store = try account.store(context)
        let (lookup, lookupRegistration) = try account.client(store)
        let info = try await lookup.session(session, registration: lookupRegistration)
        guard info.state == "PENDING" else { throw UsageError("session \(session) is \(info.state), not waiting") }
        let role = info.role
        if let explicit = account.explicitRole, explicit != role {
            throw UsageError(
                "session \(session) is \(info.kind), which needs the \(role.rawValue) key, not --role \(explicit.rawValue)"
            )
        }
        let (client, registration) = try account.client(store, role: role)
        let share = try store.publicShare(role)
        guard info.keyID == share.keyID else {
            throw UsageError("session \(session) is for another key of this account")
        }
        let certificate = try store.certificate(role)
        let spki = TwoPartySigning.subjectPublicKeyInfo(share.publicKey)
        // The share's key is the certificate's key: the joint signature, checked under the share's
        // key before finish goes out, is then checked under the certificate.
        guard certificate.publicKey.subjectPublicKeyInfo == spki else {
            throw ThresholdError.keyStore("the stored certificate is not for this share's key")
        }
        let digest = try info.digestToSign(subjectPublicKeyInfo: spki)
        let code = VerificationCode.smartID(hash: digest)
        context.terminal.error(TerminalText.escaped("\(info.rpName) asks (\(info.kind)): \(info.displayText)"))
        context.terminal.error("Verification code: \(code) (approve only if the relying party shows the same)")
        let prompt = ThresholdPINPrompt(secrets: account.secrets(context))
        let name = account.account
        let hardening = CoSignerPINHardening(client: client, token: registration.deviceToken)
        let signature = try await client.approve(
            sessionID: session, digest: digest, share: share, token: registration.deviceToken,
            guard: store.shareGuard(role)
        ) {
            try await store.unlock(role, pin: try await prompt.pin(role: role, account: name), hardening: hardening)
                .secretKey
        }
        let raw = Data(Scalar.encode(signature.r) + Scalar.encode(signature.s))
        guard
            certificate.publicKey.verify(
                signature: raw, digest: try Digest(algorithm: .sha256, bytes: Data(digest)), algorithm: .ecdsaP256SHA256
            )
        else {
            throw ThresholdError.signatureCheckFailed
        }
        if global.json {
            context.terminal.json([
                "session": session, "kind": info.kind, "state": "COMPLETE", "signature": WireFormat.hex(Array(raw)),
                "verificationCode": code,
            ])
        } else {
            // The kind came from the network and the subject from the co-signer's CA: escaped.
            context.terminal.line(
                "Approved \(TerminalText.escaped(info.kind)) session \(TerminalText.escaped(session)): signed as \(TerminalText.escapedName(certificate.subject))"
            )
        }
        return .success
    }
}

/// `tamga threshold activity`
struct ThresholdActivityCommand: Command {
    static let path = ["threshold", "activity"]
    static let abstract = "Shows the account's activity log kept by the co-signer."
    static let usage = "--account NAME [--role sign|auth] [--store DIR] [--json]"
    static let help = "Newest first: enrollment, sessions created, signed, declined, keys locked."
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ThresholdAccountOptions.options
    fileprivate let account: ThresholdAccountOptions
    let global: GlobalOptions
    init(_ arguments: ParsedArguments) throws {
        account = try ThresholdAccountOptions(arguments)
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let (client, registration) = try account.client(account.store(context))
        let entries = try await client.activity(registration)
        if global.json {
            context.terminal.json(["activity": entries])
        } else {
            // Every field came from the network (a detail quotes the relying party's name): escaped.
            for entry in entries {
                context.terminal.line(
                    TerminalText.escaped("\(entry["at"] ?? "")  \(entry["event"] ?? "")  \(entry["detail"] ?? "")"))
            }
        }
        return .success
    }
}

/// `tamga threshold verify-pin`, `change-pin`, `delete`
struct ThresholdVerifyPINCommand: Command {
    static let path = ["threshold", "verify-pin"]
    static let abstract = "Checks this device's PIN for the split key (a wrong one counts here and at the co-signer)."
    static let usage = "--account NAME [--role sign|auth] [--store DIR] [--pin-file FILE] [--json]"
    static let help = """
        Exit 0 when the PIN opens the share, 9 with the tries left when it does not (or when it is
        shorter than 4 characters for PIN1, 5 for PIN2: refused before anything is sent). Every PIN
        check needs the co-signer (exit 7 when it cannot be reached; nothing is counted then); it
        blocks the PIN after 5 wrong tries in a row, the device deletes the share after 10.
        """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ThresholdAccountOptions.options
    fileprivate let account: ThresholdAccountOptions
    let global: GlobalOptions
    init(_ arguments: ParsedArguments) throws {
        account = try ThresholdAccountOptions(arguments)
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let store = try account.store(context)
        let hardening = try account.hardening(store, role: account.role)
        try await store.verifyPIN(
            account.role, pin: account.secrets(context).read(prompt: "PIN of threshold account \(account.account): "),
            hardening: hardening)
        // --json is accepted by every command, so it gives JSON here too (a wrong PIN is the error object).
        if global.json {
            context.terminal.json(["account": account.account, "role": account.role.rawValue, "result": "pin-correct"])
        } else {
            context.terminal.line("PIN correct.")
        }
        return .success
    }
}

struct ThresholdChangePINCommand: Command {
    static let path = ["threshold", "change-pin"]
    static let abstract = "Changes this device's PIN for the split key (the key and certificate stay)."
    static let usage = "--account NAME [--role sign|auth] [--store DIR] [--pin-file FILE] [--json]"
    static let help = """
        The current PIN, then the new one twice; --pin-file holds two lines, or TAMGA_PIN and
        TAMGA_NEW_PIN. The new PIN has at least 4 characters (PIN1) or 5 (PIN2), checked before
        anything is sent. The co-signer takes part (it evaluates both PINs and registers the new one).
        """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ThresholdAccountOptions.options
    fileprivate let account: ThresholdAccountOptions
    let global: GlobalOptions
    init(_ arguments: ParsedArguments) throws {
        account = try ThresholdAccountOptions(arguments)
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let store = try account.store(context)
        let pins = try account.secrets(context).readChange(currentPrompt: "Current PIN: ", newPrompt: "New PIN: ")
        let hardening = try account.hardening(store, role: account.role)
        try await store.changePIN(account.role, old: pins.current, new: pins.new, hardening: hardening)
        if global.json {
            context.terminal.json(["account": account.account, "role": account.role.rawValue, "result": "pin-changed"])
        } else {
            context.terminal.line("PIN changed.")
        }
        return .success
    }
}

struct ThresholdDeleteCommand: Command {
    static let path = ["threshold", "delete"]
    static let abstract =
        "Deletes this device's registration for the account (local only; the co-signer keeps its half)."
    static let usage = "--account NAME [--store DIR] [--json]"
    static let help = "Removes the sealed shares, certificates and registration of the account from this device."
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = ThresholdAccountOptions.options
    fileprivate let account: ThresholdAccountOptions
    let global: GlobalOptions
    init(_ arguments: ParsedArguments) throws {
        account = try ThresholdAccountOptions(arguments)
        global = GlobalOptions(arguments)
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        try account.store(context).deleteRegistration()
        if global.json {
            context.terminal.json(["account": account.account, "result": "deleted"])
        } else {
            context.terminal.line("Deleted the local registration of \(account.account).")
        }
        return .success
    }
}
