import FoundationEssentials
import Glibc
import PKCS11
import TamgaCore

/// `tamga tokens`
struct TokensCommand: Command {
    static let path = ["tokens"]
    static let abstract = "Lists PKCS#11 modules, their tokens, certificates and keys."
    static let usage = "[--module PATH] [--token LABEL] [--login] [--pin-file FILE] [--json]"
    static let help = """
        Without --module, every module registered with p11-kit (its .module files: OpenSC, SoftHSM,
        a Rutoken module if its package registers one); with --module, that library only.
        Per token: label, manufacturer, model, serial, flags (login required, PIN count low / final
        try / locked, protected authentication path), mechanisms (GOST ones marked), the Rutoken
        media name when the token is a Rutoken, certificates (subject, key usage, validity) and
        keys paired by CKA_ID.
          --module PATH     a PKCS#11 library (e.g. /usr/lib/librtpkcs11ecp.so); default: "pkcs11Module"
                            in config.json, else the p11-kit registered modules
          --token LABEL     only the token with this label
          --login           log in to see private keys (most tokens hide them until then); the PIN
                            from --pin-file, TAMGA_PIN or a prompt, asked once per token
        Exit codes: 0 listed, 3 the module could not be loaded.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--login"])
    static let options: Set<String> = ["--module", "--pin-file", "--token"]

    let module: String?
    let tokenLabel: String?
    let login: Bool
    let pinFile: String?
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("tokens takes no arguments") }
        module = arguments.value("--module")
        tokenLabel = arguments.value("--token")
        login = arguments.has("--login")
        pinFile = arguments.value("--pin-file")
        global = GlobalOptions(arguments)
    }

    struct Listing: Encodable {
        struct Module: Encodable {
            let name: String, path: String, description: String?, manufacturer: String?, libraryVersion: String?
            let tokens: [Token]
        }
        struct Token: Encodable {
            let label: String, manufacturer: String, model: String, serialNumber: String, slotDescription: String
            let flags: [String]
            let mediaName: String?
            let mechanisms: [String]
            let gostMechanisms: [String]
            let certificates: [CertificateEntry]
            let keys: [KeyEntry]
        }
        struct CertificateEntry: Encodable {
            let id: String, label: String, subject: String, keyUsage: [String], notBefore: String, notAfter: String,
                key: String
        }
        struct KeyEntry: Encodable {
            let id: String, label: String, type: String, sign: Bool, alwaysAuthenticate: Bool, hasCertificate: Bool
        }
        let modules: [Module]
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let modules = try PKCS11Tokens.modules(
            path: module ?? Configuration.load(environment: context.environment).pkcs11Module)
        let secrets = SecretInput(pinFile: pinFile, environment: context.environment)
        var listing: [Listing.Module] = []
        for module in modules {
            let info = try? module.info()
            var tokens: [Listing.Token] = []
            for token in PKCS11Tokens.tokens(in: [module]) where tokenLabel == nil || token.info.label == tokenLabel {
                let mechanisms = (try? module.mechanisms(token.slot)) ?? []
                var objects = TokenObjects(certificates: [], keys: [])
                if let session = try? module.openSession(token.slot) {
                    if login && token.info.loginRequired {
                        let pin =
                            token.info.hasProtectedAuthenticationPath
                            ? nil : try secrets.read(prompt: "PIN for token \(token.info.label): ")
                        try session.login(pin: pin)
                    }
                    objects = (try? session.objects()) ?? objects
                    if login { session.logout() }
                }
                tokens.append(
                    .init(
                        label: token.info.label, manufacturer: token.info.manufacturer, model: token.info.model,
                        serialNumber: token.info.serialNumber, slotDescription: token.slot.description,
                        flags: token.info.flagNames,
                        mediaName: token.info.rutokenMediaName, mechanisms: mechanisms.map(\.description),
                        gostMechanisms: mechanisms.filter(\.isGOST).map(\.description),
                        certificates: objects.certificates.map {
                            .init(
                                id: $0.idHex, label: $0.label, subject: $0.certificate.subject,
                                keyUsage: $0.certificate.keyUsage?.names ?? [],
                                notBefore: $0.certificate.notBefore.formatted(.iso8601),
                                notAfter: $0.certificate.notAfter.formatted(.iso8601),
                                key: $0.certificate.publicKey.description)
                        },
                        keys: objects.keys.map {
                            .init(
                                id: $0.idHex, label: $0.label, type: $0.keyType, sign: $0.canSign,
                                alwaysAuthenticate: $0.alwaysAuthenticate,
                                hasCertificate: objects.certificate(for: $0) != nil)
                        }))
            }
            listing.append(
                .init(
                    name: module.name, path: module.path, description: info?.description,
                    manufacturer: info?.manufacturer,
                    libraryVersion: info?.libraryVersion, tokens: tokens))
        }
        if global.json {
            context.terminal.json(Listing(modules: listing))
            return .success
        }
        let t = context.terminal
        for module in listing {
            t.line("\(module.name): \(module.path)" + (module.description.map { " — \($0)" } ?? ""))
            if module.tokens.isEmpty { t.line("  (no token)") }
            for token in module.tokens {
                t.line(
                    "  token \"\(token.label)\": \(token.manufacturer) \(token.model), serial \(token.serialNumber), slot \"\(token.slotDescription)\""
                )
                if let media = token.mediaName { t.line("    media name: \(media)") }
                t.line("    flags: \(token.flags.joined(separator: ", "))")
                if !token.gostMechanisms.isEmpty {
                    t.line("    GOST mechanisms: \(token.gostMechanisms.joined(separator: ", "))")
                }
                for certificate in token.certificates {
                    t.line("    certificate \(certificate.id) \"\(certificate.label)\": \(certificate.subject)")
                    t.line(
                        "      \(certificate.key), \(certificate.keyUsage.joined(separator: ", ")), valid \(certificate.notBefore) – \(certificate.notAfter)"
                    )
                }
                for key in token.keys {
                    t.line(
                        "    key \(key.id) \"\(key.label)\": \(key.type)\(key.sign ? ", sign" : "")\(key.alwaysAuthenticate ? ", PIN for every signature" : "")\(key.hasCertificate ? "" : ", no certificate")"
                    )
                }
                if token.keys.isEmpty && !login && token.flags.contains("login-required") {
                    t.line("    (private keys are listed after --login)")
                }
            }
        }
        return .success
    }
}
