import CoSigner
import FoundationEssentials
import Glibc
import PKCS11
import TamgaCore
import Threshold

/// Where the co-signer's server key (the 32 bytes that seal every share, PIN guard and the
/// ring-Pedersen parameters) comes from: a file (`--server-key FILE`, or the older `--key FILE`;
/// default `DATABASE.key`), or a key on a PKCS#11 token (`--server-key pkcs11:LABEL`) that
/// wraps a server key kept in the database, so that it is the same on every instance and
/// opens only where the token (an HSM) is. The token's user PIN comes from
/// `TAMGA_COSIGNER_TOKEN_PIN`, never from the command line (where `ps` shows it).
struct CoSignerServerKey {
    enum Location: Equatable {
        case file(String)
        case token(keyLabel: String)
    }

    static let pinVariable = "TAMGA_COSIGNER_TOKEN_PIN"
    /// The options this adds to every command that opens the co-signer's store.
    static let options: Set<String> = ["--key", "--server-key", "--module", "--token"]
    static let helpLines = """
          --server-key pkcs11:LABEL  the server key is kept in the database, wrapped by the AES key
                               LABEL on a PKCS#11 token (an HSM; see cosigner make-server-key);
                               the token's user PIN from TAMGA_COSIGNER_TOKEN_PIN
          --server-key FILE, --key FILE  the server key in a file (default DATABASE.key)
          --module PATH        with pkcs11: this PKCS#11 library (default: "pkcs11Module" in
                               config.json, else the p11-kit registered modules)
          --token LABEL        with pkcs11: the token holding the key, when several are present
        """

    let location: Location
    let module: String?
    let token: String?

    init(_ arguments: ParsedArguments, database: String) throws {
        let serverKey = arguments.value("--server-key"), keyFile = arguments.value("--key")
        guard serverKey == nil || keyFile == nil else {
            throw UsageError("give the server key once: --server-key pkcs11:LABEL, --server-key FILE or --key FILE")
        }
        if let serverKey, serverKey.hasPrefix("pkcs11:") {
            let label = String(serverKey.dropFirst("pkcs11:".count))
            guard !label.isEmpty else { throw UsageError("--server-key pkcs11:LABEL needs the token key's label") }
            location = .token(keyLabel: label)
        } else {
            location = .file(serverKey ?? keyFile ?? (database + ".key"))
        }
        module = arguments.value("--module")
        token = arguments.value("--token")
        if case .file = location, module != nil || token != nil {
            throw UsageError("--module and --token go with --server-key pkcs11:LABEL")
        }
    }

    /// The key file, when the server key is in one.
    var file: String? { if case .file(let path) = location { path } else { nil } }

    /// Opens the store on `database`. With a token the token work comes first (module, token,
    /// login, the key and its attributes), so that a wrong label, PIN or key changes nothing,
    /// not even a new database file.
    func store(database path: String, environment: [String: String]) throws -> CoSignerStore {
        switch location {
        case .file(let file):
            let database = try CoSignerStore.openDatabase(path: path)
            try CoSignerStore.refuseKeyFile(for: database)
            return try CoSignerStore(database: database, serverKey: CoSignerStore.serverKey(file: file))
        case .token(let keyLabel):
            let wrapper = try Self.open(keyLabel: keyLabel, token: token, module: module, environment: environment) {
                token, pin in
                try TokenKeyWrapper(token: token, keyLabel: keyLabel, pin: pin)
            }
            let database = try CoSignerStore.openDatabase(path: path)
            // The unwrapped key is one array, which the store keeps for the process's lifetime
            // (every request seals or opens with it): not wiped. The token call's buffers were.
            return try CoSignerStore(
                database: database, serverKey: CoSignerStore.sealingKey(in: database, wrapper: wrapper))
        }
    }

    /// Finds the token, reads the PIN from the environment and runs `body` with them; a PIN
    /// the token refuses is said in the co-signer's words (it is tried once, never again).
    static func open<T>(
        keyLabel: String, token label: String?, module: String?, environment: [String: String],
        _ body: (PKCS11Tokens.Token, SecretBytes?) throws -> T
    ) throws -> T {
        let module = try module ?? Configuration.load(environment: environment).pkcs11Module
        let token: PKCS11Tokens.Token
        do {
            token = try PKCS11Tokens.choose(label: label, in: PKCS11Tokens.modules(path: module))
        } catch PKCS11Error.severalTokens(let labels) {
            throw OperationError(
                underlying: PKCS11Error.severalTokens(labels: labels),
                description:
                    "Several tokens are present (\(labels.joined(separator: ", "))). Say which holds the server key with --token LABEL."
            )
        }
        // A co-signer starts unattended: a token with a PIN pad gets its PIN from the
        // environment too, or not at all (no one is there to type it).
        var pin: SecretBytes? = nil
        if token.info.loginRequired {
            guard let text = environment[pinVariable], !text.isEmpty else {
                throw UsageError(
                    "token \(token.info.label) needs its user PIN: put it in \(pinVariable) (a PIN on the command line would show in ps)"
                )
            }
            var bytes = Array(text.utf8)
            pin = SecretBytes(consuming: &bytes)
        }
        do {
            return try body(token, pin)
        } catch let error as PKCS11Error {
            switch error {
            case .pinIncorrect(let countLow, let finalTry):
                let counter =
                    finalTry
                    ? " The token says one try is left before it locks the PIN."
                    : countLow ? " The token says failed tries were counted; it may lock the PIN soon." : ""
                throw OperationError(
                    underlying: error,
                    description:
                        "Token \(token.info.label) refused the PIN in \(pinVariable).\(counter) It was tried once and not again; nothing was changed."
                )
            case .pinLocked:
                throw OperationError(
                    underlying: error,
                    description:
                        "Token \(token.info.label)'s user PIN is locked. Unlock it with the token's SO PIN or management tool; nothing was changed."
                )
            default: throw error
            }
        }
    }
}

/// `tamga cosigner make-server-key`
struct CoSignerMakeServerKeyCommand: Command {
    static let path = ["cosigner", "make-server-key"]
    static let abstract = "Makes the token key that wraps the co-signer's server key (for --server-key pkcs11:LABEL)."
    static let usage = "pkcs11:LABEL [--module PATH] [--token LABEL]"
    static let help = """
        Generates an AES-256 key labelled LABEL on a PKCS#11 token (an HSM): private, sensitive,
        never extractable, allowed only to encrypt and decrypt. cosigner serve --server-key
        pkcs11:LABEL then keeps the server key wrapped by it in the database. The token's user PIN
        comes from TAMGA_COSIGNER_TOKEN_PIN. A label already taken is refused. The same key made
        with pkcs11-tool: pkcs11-tool --module PATH --login --keygen --key-type AES:32 --label LABEL
        --sensitive (not --extractable).
          --module PATH        this PKCS#11 library (default: "pkcs11Module" in config.json, else
                               the p11-kit registered modules)
          --token LABEL        the token to make it on, when several are present
        """
    static let flags: Set<String> = ["--quiet", "-q"]
    static let options: Set<String> = ["--module", "--token"]

    let keyLabel: String
    let module: String?
    let token: String?
    let quiet: Bool

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1, let spec = arguments.positionals.first, spec.hasPrefix("pkcs11:"),
            spec.count > "pkcs11:".count
        else {
            throw UsageError("give the key as pkcs11:LABEL")
        }
        keyLabel = String(spec.dropFirst("pkcs11:".count))
        module = arguments.value("--module")
        token = arguments.value("--token")
        quiet = GlobalOptions(arguments).quiet
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let tokenLabel = try CoSignerServerKey.open(
            keyLabel: keyLabel, token: token, module: module, environment: context.environment
        ) { token, pin in
            try TokenKeyWrapper.makeKey(token: token, label: keyLabel, pin: pin)
            return token.info.label
        }
        if !quiet {
            context.terminal.line(
                "made AES-256 key \(keyLabel) on token \(tokenLabel): use cosigner serve --server-key pkcs11:\(keyLabel)"
            )
        }
        return .success
    }
}

/// `tamga cosigner wrap-server-key`
struct CoSignerWrapServerKeyCommand: Command {
    static let path = ["cosigner", "wrap-server-key"]
    static let abstract =
        "Moves a co-signer database from a server key file to a token key (--server-key pkcs11:LABEL)."
    static let usage = "--server-key pkcs11:LABEL [--db FILE] [--key FILE] [--module PATH] [--token LABEL]"
    static let help = """
        Wraps the server key in --key FILE (default DATABASE.key) with the token key LABEL and keeps
        it in the database (--db, default ./cosigner.db), after checking that the file opens what the
        database holds sealed. Then start every instance with --server-key pkcs11:LABEL: the
        database refuses the key file from now on. Stop the co-signer first; once it signs with
        the token key, destroy the key file (shred -u FILE) and its backups. The token's user PIN
        comes from TAMGA_COSIGNER_TOKEN_PIN.
          --server-key pkcs11:LABEL  the token key (make it with cosigner make-server-key)
          --db FILE            the co-signer's database (it must exist)
          --key FILE           the server key file it was started with
          --module PATH        this PKCS#11 library (default: "pkcs11Module" in config.json, else
                               the p11-kit registered modules)
          --token LABEL        the token holding the key, when several are present
        """
    static let flags: Set<String> = ["--quiet", "-q"]
    static let options: Set<String> = ["--server-key", "--db", "--key", "--module", "--token"]

    let database: String
    let keyFile: String
    let keyLabel: String
    let module: String?
    let token: String?
    let quiet: Bool

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("cosigner wrap-server-key takes no arguments") }
        guard let spec = arguments.value("--server-key"), spec.hasPrefix("pkcs11:"), spec.count > "pkcs11:".count else {
            throw UsageError("give the token key as --server-key pkcs11:LABEL")
        }
        keyLabel = String(spec.dropFirst("pkcs11:".count))
        database = arguments.value("--db") ?? "cosigner.db"
        keyFile = arguments.value("--key") ?? (database + ".key")
        module = arguments.value("--module")
        token = arguments.value("--token")
        quiet = GlobalOptions(arguments).quiet
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        guard FileManager.default.fileExists(atPath: database) else {
            throw UsageError("there is no co-signer database at \(database)")
        }
        guard let data = FileManager.default.contents(atPath: keyFile), data.count == 32 else {
            throw UsageError(
                "\(keyFile) is not a server key file (32 bytes): give the one the co-signer was started with as --key FILE"
            )
        }
        var fileKey = Array(data)
        defer { wipe(&fileKey) }
        let tokenLabel = try CoSignerServerKey.open(
            keyLabel: keyLabel, token: token, module: module, environment: context.environment
        ) { token, pin in
            let wrapper = try TokenKeyWrapper(token: token, keyLabel: keyLabel, pin: pin)
            try CoSignerStore.wrapExistingKey(fileKey, in: CoSignerStore.openDatabase(path: database), wrapper: wrapper)
            return token.info.label
        }
        if !quiet {
            context.terminal.line(
                "the server key of \(database) is now wrapped by \(keyLabel) on token \(tokenLabel): start with --server-key pkcs11:\(keyLabel), then destroy \(keyFile)"
            )
        }
        return .success
    }
}
