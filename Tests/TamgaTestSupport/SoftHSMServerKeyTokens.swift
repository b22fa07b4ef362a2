import Foundation

/// Two SoftHSM2 tokens of their own, in a private folder, for co-signer processes started with
/// `--server-key pkcs11:LABEL` (their environment points `SOFTHSM2_CONF` here and carries the
/// PIN in `TAMGA_COSIGNER_TOKEN_PIN`): `cosigner-hsm` and `other-hsm`, both with user PIN
/// `pin`, holding no keys until a test makes them (`tamga cosigner make-server-key`, or
/// `pkcs11Tool` for keys the co-signer must refuse). Separate from `SoftHSMToken`, whose
/// configuration the test process itself has loaded: a child process reads its own.
public final class SoftHSMServerKeyTokens: Sendable {
    public static let module = SoftHSMToken.module
    public static let label = "cosigner-hsm"
    public static let otherLabel = "other-hsm"
    public static let pin = "246810"

    public let folder: URL
    public var configuration: String { folder.appendingPathComponent("softhsm2.conf").path }

    /// The environment for a child process that uses these tokens (`pin` nil: no PIN variable).
    public func environment(pin: String? = SoftHSMServerKeyTokens.pin) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["SOFTHSM2_CONF"] = configuration
        environment["TAMGA_COSIGNER_TOKEN_PIN"] = pin
        return environment
    }

    public init(in parent: URL) throws {
        folder = parent.appendingPathComponent("softhsm")
        let tokens = folder.appendingPathComponent("tokens")
        try FileManager.default.createDirectory(at: tokens, withIntermediateDirectories: true)
        try """
        directories.tokendir = \(tokens.path)
        objectstore.backend = file
        log.level = ERROR
        slots.removable = false
        slots.mechanisms = ALL
        library.reset_on_fork = false

        """.write(toFile: configuration, atomically: true, encoding: .utf8)
        for label in [Self.label, Self.otherLabel] {
            try run(
                "/usr/bin/softhsm2-util",
                ["--init-token", "--free", "--label", label, "--so-pin", "12345678", "--pin", Self.pin])
        }
    }

    /// `pkcs11-tool` logged in to the token `token` with these arguments.
    public func pkcs11Tool(token: String = SoftHSMServerKeyTokens.label, _ arguments: [String]) throws {
        try run(
            "/usr/bin/pkcs11-tool",
            ["--module", Self.module, "--token-label", token, "--login", "--pin", Self.pin] + arguments)
    }

    private func run(_ executable: String, _ arguments: [String]) throws {
        let result = try TestEnvironment.run(executable, arguments, environment: environment())
        guard result.status == 0 else {
            throw NSError(
                domain: "SoftHSMServerKeyTokens", code: 1,
                userInfo: [
                    NSLocalizedDescriptionKey: "\(executable) \(arguments.joined(separator: " ")): \(result.error)"
                ])
        }
    }
}
