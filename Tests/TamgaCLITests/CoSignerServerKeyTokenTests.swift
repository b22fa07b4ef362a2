import CoSigner
import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

/// `tamga cosigner serve --server-key pkcs11:LABEL` as real processes with a real SQLite file
/// and real SoftHSM tokens: the server key lives in the database wrapped by a token key, every
/// instance unwraps the same one, and every way of giving the wrong key is refused with its
/// own error code, before anything is written.
final class CoSignerServerKeyTokenTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    private var folder: URL!
    private var tokens: SoftHSMServerKeyTokens!
    override func setUpWithError() throws {
        folder = try TestEnvironment.temporaryFolder("cosigner-hsm")
        tokens = try SoftHSMServerKeyTokens(in: folder)
    }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    private var database: String { folder.appendingPathComponent("cosigner.db").path }
    private let module = ["--module", SoftHSMServerKeyTokens.module]

    /// The options naming the token key `label` on `token`.
    private func tokenKey(_ label: String = "server-key", token: String = SoftHSMServerKeyTokens.label) -> [String] {
        ["--server-key", "pkcs11:\(label)", "--token", token] + module
    }

    /// Runs tamga (at most 120 s: a co-signer that wrongly starts must not hang the test).
    private func tamga(
        _ arguments: [String], pin: String? = SoftHSMServerKeyTokens.pin
    ) throws -> TestEnvironment.ProcessResult {
        try TestEnvironment.run(
            "/usr/bin/timeout", ["120", binary] + arguments, environment: tokens.environment(pin: pin))
    }

    private func makeServerKey(_ label: String = "server-key", token: String = SoftHSMServerKeyTokens.label) throws {
        let made = try tamga(["cosigner", "make-server-key", "pkcs11:\(label)", "--token", token] + module)
        XCTAssertEqual(made.status, 0, made.error)
    }

    private func serve(_ key: [String]) throws -> (Process, URL) {
        try TestEnvironment.startListening(
            executable: binary, ["cosigner", "serve", "--db", database] + key, environment: tokens.environment())
    }

    /// The database's files (the database and any WAL beside it) and their contents.
    private func databaseFiles() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasPrefix("cosigner.db")
        {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    private struct Enrolled {
        let share: ClientKeyShare
        let registration: ThresholdClient.Registration
        let device: DeviceAttestation
    }

    /// Enrolls a sign key through `base` (the code issued with the server key options `key`).
    private func enroll(at base: URL, key: [String], pid: UInt8) async throws -> Enrolled {
        let code = try tamga(["cosigner", "issue-code", "38001085718", "--db", database] + key).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(code.count, 12, code)
        let device = DeviceAttestation(key: try DeviceKey(file: folder.appendingPathComponent("device.key").path))
        let (share, registration) = try await ThresholdClient(server: base, attestation: device)
            .enrollShare(code: code, role: .sign, clientPID: Transcript.taggedHash("hsm", [[pid]]))
        return Enrolled(share: share, registration: registration, device: device)
    }

    /// Signs one digest with `key` through `signer`; the signature verifies under the key.
    private func sign(with key: Enrolled, at signer: URL, rpKey: String, _ text: String) async throws {
        let client = ThresholdClient(server: signer, attestation: key.device)
        let digest = Array(Digest.compute(.sha256, over: Data(text.utf8)).bytes)
        let session = try await client.call(
            "POST", "v3/rp/session",
            ["keyID": WireFormat.hex(key.share.keyID), "digest": WireFormat.hex(digest), "displayText": "t"],
            apiKey: rpKey)
        let id = try XCTUnwrap(session["sessionID"] as? String)
        let share = key.share
        let signature = try await client.approve(
            sessionID: id, digest: digest, share: share.publicShare, token: key.registration.deviceToken,
            guard: ShareStateFile(path: folder.appendingPathComponent("guard-\(UUID().uuidString)").path)
        ) { share.secretKey }
        XCTAssertTrue(
            TwoPartySigning.verify(
                r: signature.r, s: signature.s, digest: try Digest(algorithm: .sha256, bytes: Data(digest)),
                publicKey: share.publicKey),
            "signature \(text)")
    }

    /// Started with a token key it enrolls and signs; the server key is in the database, only
    /// wrapped; restarted, and with a second instance beside it on the same database and token,
    /// it signs with the key enrolled before.
    func testATokenGuardedServerKeySignsAcrossRestartsAndInstances() async throws {
        try makeServerKey()
        let (first, firstURL) = try serve(tokenKey())
        let rpKey = try tamga(["cosigner", "add-rp", "Bank", "--db", database] + tokenKey()).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        XCTAssertEqual(rpKey.count, 64, rpKey)
        let enrolled = try await enroll(at: firstURL, key: tokenKey(), pid: 1)
        try await sign(with: enrolled, at: firstURL, rpKey: rpKey, "first")
        TestEnvironment.terminate(first)

        XCTAssertFalse(FileManager.default.fileExists(atPath: database + ".key"), "no key file is made")
        let stored = try XCTUnwrap(
            try CoSignerStore.tokenWrappedServerKey(in: CoSignerStore.openDatabase(path: database)))
        XCTAssertEqual(stored.label, "server-key")
        XCTAssertEqual(stored.wrapped.count, 1 + 12 + 32 + 16, "format byte, IV, the wrapped 32 bytes, tag")

        // Restarted, and a second instance on the same database and token: both sign with the
        // key enrolled on the first (a new device key enrolls a second key, signed on both).
        let (second, secondURL) = try serve(tokenKey())
        defer { TestEnvironment.terminate(second) }
        let (third, thirdURL) = try serve(tokenKey())
        defer { TestEnvironment.terminate(third) }
        try await sign(with: enrolled, at: secondURL, rpKey: rpKey, "restarted")
        try await sign(with: enrolled, at: thirdURL, rpKey: rpKey, "second instance")
        let another = try await enroll(at: thirdURL, key: tokenKey(), pid: 2)
        try await sign(with: another, at: secondURL, rpKey: rpKey, "enrolled on the second instance")
    }

    /// The wrong label, two keys under one label, a wrong or missing PIN, an extractable or
    /// readable or short key, another token's key under the same label, and a key file: each refused with its code, the
    /// database left as it was and no key file made.
    func testEveryWrongServerKeyIsRefusedAndChangesNothing() throws {
        try makeServerKey()
        XCTAssertEqual(
            try tamga(["cosigner", "issue-code", "38001085718", "--db", database, "--create"] + tokenKey()).status, 0)
        let before = try databaseFiles()
        let wrapped = try CoSignerStore.tokenWrappedServerKey(in: CoSignerStore.openDatabase(path: database))?.wrapped
        XCTAssertNotNil(wrapped)

        try tokens.pkcs11Tool(["--keygen", "--key-type", "AES:32", "--label", "extractable", "--extractable"])
        try tokens.pkcs11Tool(["--keygen", "--key-type", "AES:32", "--label", "readable"])
        try tokens.pkcs11Tool(["--keygen", "--key-type", "AES:16", "--label", "short", "--sensitive"])
        for _ in 0..<2 {
            try tokens.pkcs11Tool(["--keygen", "--key-type", "AES:32", "--label", "twice", "--sensitive"])
        }
        try makeServerKey(token: SoftHSMServerKeyTokens.otherLabel)
        try makeServerKey("server-key-2")

        let cases: [(what: String, key: [String], pin: String?, exit: Int32, code: String, says: String)] = [
            (
                "no such label", tokenKey("nope"), SoftHSMServerKeyTokens.pin, 3, "cosigner-server-key-not-found",
                "no secret key labelled nope"
            ),
            // SoftHSM sets CKF_USER_PIN_COUNT_LOW after a failure: the message says it.
            (
                "two keys under one label", tokenKey("twice"), SoftHSMServerKeyTokens.pin, 3,
                "cosigner-server-key-not-found", "2 secret keys labelled twice"
            ),
            (
                "wrong PIN", tokenKey(), "999999", 9, "wrong-pin",
                "failed tries were counted; it may lock the PIN soon. It was tried once and not again"
            ),
            ("no PIN", tokenKey(), nil, 2, "usage", "TAMGA_COSIGNER_TOKEN_PIN"),
            (
                "extractable", tokenKey("extractable"), SoftHSMServerKeyTokens.pin, 3, "cosigner-server-key-unsafe",
                "CKA_EXTRACTABLE"
            ),
            (
                "not sensitive", tokenKey("readable"), SoftHSMServerKeyTokens.pin, 3, "cosigner-server-key-unsafe",
                "CKA_SENSITIVE"
            ),
            ("AES-128", tokenKey("short"), SoftHSMServerKeyTokens.pin, 3, "cosigner-server-key-unsafe", "AES-128"),
            (
                "another token's key", tokenKey(token: SoftHSMServerKeyTokens.otherLabel), SoftHSMServerKeyTokens.pin,
                3, "cosigner-server-key-mismatch",
                "on token other-hsm does not open it"
            ),
            (
                "another key on the token", tokenKey("server-key-2"), SoftHSMServerKeyTokens.pin, 3,
                "cosigner-server-key-mismatch", "labelled server-key-2"
            ),
            (
                "a key file", ["--key", database + ".key"], nil, 3, "cosigner-server-key-mismatch",
                "--server-key pkcs11:server-key"
            ),
            ("the default key file", [], nil, 3, "cosigner-server-key-mismatch", "--server-key pkcs11:server-key"),
        ]
        for refused in cases {
            let result = try tamga(["cosigner", "serve", "--db", database, "--json"] + refused.key, pin: refused.pin)
            XCTAssertEqual(result.status, refused.exit, "\(refused.what): \(result.error)")
            // A usage error (exit 2) says itself on stderr only, with the usage line.
            if refused.code != "usage" {
                XCTAssertTrue(
                    result.output.contains("\"code\":\"\(refused.code)\"")
                        || result.output.contains("\"code\" : \"\(refused.code)\""),
                    "\(refused.what): \(result.output)")
            }
            XCTAssertTrue(result.error.contains(refused.says), "\(refused.what): \(result.error)")
            XCTAssertEqual(try databaseFiles(), before, "\(refused.what): the database is unchanged")
            XCTAssertFalse(
                FileManager.default.fileExists(atPath: database + ".key"), "\(refused.what): no key file is made")
        }
        XCTAssertEqual(
            try CoSignerStore.tokenWrappedServerKey(in: CoSignerStore.openDatabase(path: database))?.wrapped, wrapped)
        // A label already taken is not made twice (two keys under one label could not be told apart).
        let again = try tamga(
            ["cosigner", "make-server-key", "pkcs11:server-key", "--token", SoftHSMServerKeyTokens.label] + module)
        XCTAssertEqual(again.status, 3, again.error)
        XCTAssertTrue(again.error.contains("already taken"), again.error)
    }

    /// A database whose secrets a key file sealed does not take a token key (a new server key
    /// would open none of them); one with nothing sealed yet does.
    func testADatabaseSealedWithAKeyFileRefusesATokenKey() throws {
        try makeServerKey()
        XCTAssertEqual(try tamga(["cosigner", "issue-code", "38001085718", "--db", database, "--create"]).status, 0)
        // What the first start of a file-key co-signer writes (its sealed ring-Pedersen
        // parameters), without the seconds of making real ones: the refusal looks only at rows.
        try CoSignerStore.openDatabase(path: database).execute(
            "INSERT INTO server_identity (id, pid, ring_pedersen, created_at) VALUES (1, ?, ?, 0)",
            [.blob([1]), .blob([2])])
        let before = try databaseFiles()
        let result = try tamga(["cosigner", "serve", "--db", database, "--json"] + tokenKey())
        XCTAssertEqual(result.status, 3, result.error)
        XCTAssertTrue(result.output.contains("cosigner-server-key-mismatch"), result.output)
        XCTAssertTrue(result.error.contains("sealed with a server key file"), result.error)
        XCTAssertEqual(try databaseFiles(), before)
        XCTAssertNil(try CoSignerStore.tokenWrappedServerKey(in: CoSignerStore.openDatabase(path: database)))
    }

    /// A co-signer that ran with a key file moves to a token key: wrap-server-key refuses a key
    /// file that does not open the database, then wraps the right one; the token key signs with
    /// the key enrolled before, and the key file is refused from then on.
    func testAKeyFileDatabaseMovesToATokenKey() async throws {
        try makeServerKey()
        let (first, firstURL) = try serve([])
        let rpKey = try tamga(["cosigner", "add-rp", "Bank", "--db", database]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let enrolled = try await enroll(at: firstURL, key: [], pid: 3)
        try await sign(with: enrolled, at: firstURL, rpKey: rpKey, "with the key file")
        TestEnvironment.terminate(first)

        let wrap = ["cosigner", "wrap-server-key", "--db", database] + tokenKey()
        let stranger = folder.appendingPathComponent("stranger.key").path
        try Data((0..<32).map { UInt8($0) }).write(to: URL(fileURLWithPath: stranger))
        // The stopped co-signer left its WAL; a connection opened and closed folds it in, so
        // that the files compared below change only if something is written.
        _ = try CoSignerStore.openDatabase(path: database)
        let before = try databaseFiles()
        let refused = try tamga(wrap + ["--key", stranger])
        XCTAssertEqual(refused.status, 3, refused.error)
        XCTAssertTrue(refused.error.contains("does not open what the database"), refused.error)
        XCTAssertEqual(try databaseFiles(), before, "nothing written")

        let wrapped = try tamga(wrap)
        XCTAssertEqual(wrapped.status, 0, wrapped.error)
        XCTAssertTrue(wrapped.output.contains("--server-key pkcs11:server-key"), wrapped.output)
        let again = try tamga(wrap)
        XCTAssertEqual(again.status, 3, again.error)
        XCTAssertTrue(again.error.contains("already"), again.error)

        let (second, secondURL) = try serve(tokenKey())
        defer { TestEnvironment.terminate(second) }
        try await sign(with: enrolled, at: secondURL, rpKey: rpKey, "with the token key")
        let fileKey = try tamga(["cosigner", "serve", "--db", database, "--json"])
        XCTAssertEqual(fileKey.status, 3, fileKey.error)
        XCTAssertTrue(fileKey.output.contains("cosigner-server-key-mismatch"), fileKey.output)
    }

    /// A wrong PIN is tried once and never again, and the refusal says what the token says of
    /// its counter; a locked PIN is not tried at all. Through the MOCK module of
    /// Fixtures/mock in front of these SoftHSM tokens: it counts C_Login calls and plays the
    /// final try and the lock, which SoftHSM does not.
    func testAWrongPINIsTriedOnceAndALockedOneNotAtAll() throws {
        try makeServerKey()
        let mock = folder.appendingPathComponent("mock-token.so").path
        let compilers = ["/opt/swift/usr/bin/clang", "/usr/bin/clang", "/usr/bin/gcc", "/usr/bin/cc"].filter {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        let compiler = try XCTUnwrap(compilers.first, "a C compiler (the Swift toolchain's clang)")
        let built = try TestEnvironment.run(
            compiler,
            [
                "-shared", "-fPIC", "-I/usr/include/p11-kit-1", "-o", mock,
                TestEnvironment.fixture("mock/mock-token-pkcs11.c"), "-ldl",
            ])
        XCTAssertEqual(built.status, 0, built.error)
        let log = folder.appendingPathComponent("logins.txt")
        func serve(_ variables: [String: String]) throws -> (result: TestEnvironment.ProcessResult, logins: Int) {
            try? FileManager.default.removeItem(at: log)
            var environment = tokens.environment(pin: "999999")
            environment["MOCK_LOGIN_LOG"] = log.path
            for (name, value) in variables { environment[name] = value }
            let result = try TestEnvironment.run(
                "/usr/bin/timeout",
                [
                    "120", binary, "cosigner", "serve", "--db", database, "--json", "--server-key", "pkcs11:server-key",
                    "--token", SoftHSMServerKeyTokens.label, "--module", mock,
                ], environment: environment)
            let logins = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").count ?? 0
            return (result, logins)
        }
        let wrong = try serve([:])
        XCTAssertEqual(wrong.result.status, 9, wrong.result.error)
        XCTAssertTrue(wrong.result.output.contains("wrong-pin"), wrong.result.output)
        XCTAssertEqual(wrong.logins, 1, "tried once, not again")
        let finalTry = try serve(["MOCK_PIN_FINAL_TRY": "1"])
        XCTAssertEqual(finalTry.result.status, 9, finalTry.result.error)
        XCTAssertTrue(finalTry.result.error.contains("one try is left before it locks the PIN"), finalTry.result.error)
        XCTAssertEqual(finalTry.logins, 1)
        let locked = try serve(["MOCK_PIN_LOCKED": "1"])
        XCTAssertEqual(locked.result.status, 9, locked.result.error)
        XCTAssertTrue(locked.result.output.contains("pin-blocked"), locked.result.output)
        XCTAssertEqual(locked.logins, 0, "a locked PIN is not tried")
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: database), "no database is made by a start that fails at the token")
    }
}
