import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// SoftHSM2 tokens for the PKCS#11 tests, made once per test process in a private folder
/// (SoftHSM reads `SOFTHSM2_CONF` once per process, at its first `C_Initialize`):
///
/// token `tamga-test` (user PIN 123456), keys imported from `Fixtures/pki`, each with its
/// certificate under the same `CKA_ID`:
///   01 ec-p256 · 02 rsa-2048 · 03 ec-p384 · 04 other-ec-p256 with `CKA_ALWAYS_AUTHENTICATE`
///   (the eID PIN2 pattern)
/// token `tamga-spare` (user PIN 654321): 01 ec-p256, for wrong-PIN tests;
/// token `tamga-removable` (user PIN 654321): 01 ec-p256, for the removed-token test (its folder
/// under `tokens/` is what that test deletes).
public final class SoftHSMToken: Sendable {
    public static let module = "/usr/lib/softhsm/libsofthsm2.so"
    public static let label = "tamga-test"
    public static let pin = "123456"
    public static let spareLabel = "tamga-spare"
    public static let sparePIN = "654321"
    public static let removableLabel = "tamga-removable"

    public let folder: URL
    public var configuration: String { folder.appendingPathComponent("softhsm2.conf").path }

    /// The process's tokens; made on first use, with `SOFTHSM2_CONF` set for this process.
    public static let shared: Result<SoftHSMToken, Error> = Result { try SoftHSMToken() }

    private init() throws {
        folder = try TestEnvironment.temporaryFolder("softhsm")
        let tokens = folder.appendingPathComponent("tokens")
        try FileManager.default.createDirectory(at: tokens, withIntermediateDirectories: true)
        try """
        directories.tokendir = \(tokens.path)
        objectstore.backend = file
        log.level = ERROR
        slots.removable = false
        slots.mechanisms = ALL
        library.reset_on_fork = false

        """.write(toFile: folder.appendingPathComponent("softhsm2.conf").path, atomically: true, encoding: .utf8)
        setenv("SOFTHSM2_CONF", configuration, 1)
        // p11-kit's registered modules include OpenSC, whose C_Initialize starts the PC/SC client
        // library, which reads PCSCLITE_CSOCK_NAME once per process: point it at the rig's socket
        // now, or every later PC/SC test in this process would look for the system's pcscd.
        setenv("PCSCLITE_CSOCK_NAME", PCSCRig.socketPath, 1)
        var environment = ProcessInfo.processInfo.environment
        environment["SOFTHSM2_CONF"] = configuration
        func run(_ executable: String, _ arguments: [String]) throws {
            let result = try TestEnvironment.run(executable, arguments, environment: environment)
            guard result.status == 0 else {
                throw NSError(
                    domain: "SoftHSMToken", code: 1,
                    userInfo: [
                        NSLocalizedDescriptionKey: "\(executable) \(arguments.joined(separator: " ")): \(result.error)"
                    ])
            }
        }
        let util = "/usr/bin/softhsm2-util", tool = "/usr/bin/pkcs11-tool"
        try run(util, ["--init-token", "--free", "--label", Self.label, "--so-pin", "12345678", "--pin", Self.pin])
        try run(
            util,
            ["--init-token", "--free", "--label", Self.spareLabel, "--so-pin", "12345678", "--pin", Self.sparePIN])
        func put(
            _ token: String, _ pin: String, id: String, label: String, key: String, certificate: String,
            extra: [String] = []
        ) throws {
            let base = ["--module", Self.module, "--token-label", token, "--login", "--pin", pin]
            try run(
                tool,
                base + [
                    "--write-object", TestEnvironment.pki("\(key).key.pem"), "--type", "privkey", "--id", id, "--label",
                    label, "--usage-sign",
                ] + extra)
            try run(
                tool,
                base + [
                    "--write-object", TestEnvironment.pki("\(certificate).cert.der"), "--type", "cert", "--id", id,
                    "--label", label,
                ])
        }
        try put(Self.label, Self.pin, id: "01", label: "ec-p256", key: "ec-p256", certificate: "ec-p256")
        try put(Self.label, Self.pin, id: "02", label: "rsa-2048", key: "rsa-2048", certificate: "rsa-2048")
        try put(Self.label, Self.pin, id: "03", label: "ec-p384", key: "ec-p384", certificate: "ec-p384")
        try put(
            Self.label, Self.pin, id: "04", label: "ec-p256-pin2", key: "other-ec-p256", certificate: "other-ec-p256",
            extra: ["--always-auth"])
        try put(Self.spareLabel, Self.sparePIN, id: "01", label: "spare", key: "ec-p256", certificate: "ec-p256")
        try run(
            util,
            ["--init-token", "--free", "--label", Self.removableLabel, "--so-pin", "12345678", "--pin", Self.sparePIN])
        try put(
            Self.removableLabel, Self.sparePIN, id: "01", label: "removable", key: "ec-p256", certificate: "ec-p256")
    }

    /// The folder SoftHSM keeps the token labelled `label` in (one folder per token).
    public func tokenFolder(label: String) throws -> URL? {
        let tokens = folder.appendingPathComponent("tokens")
        for name in try FileManager.default.contentsOfDirectory(atPath: tokens.path) {
            let object = tokens.appendingPathComponent(name).appendingPathComponent("token.object")
            if let data = FileManager.default.contents(atPath: object.path), data.range(of: Data(label.utf8)) != nil {
                return tokens.appendingPathComponent(name)
            }
        }
        return nil
    }
}
