import XCTest
@testable import TamgaCLI
import ASiC
import TamgaCore
import TamgaTestSupport

/// The commands run in-process with captured output, plus the real binary for exit codes.
final class CommandLineTests: XCTestCase {
    private var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("cli") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    final class Capture: @unchecked Sendable {
        var out = "", err = ""
    }

    private func tamga(_ words: [String], environment: [String: String] = [:]) async -> (ExitCode, String, String) {
        let capture = Capture()
        let terminal = Terminal(out: { capture.out += $0 }, err: { capture.err += $0 }, interactiveErrors: false)
        let code = await TamgaCommandLine.run(words, CommandContext(terminal: terminal, environment: environment))
        return (code, capture.out, capture.err)
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private func createContainer(_ name: String = "c.asice") async throws -> String {
        let a = try TestEnvironment.write("alpha\n", named: "a.txt", in: folder)
        let b = try TestEnvironment.write("beta\n", named: "b ö.txt", in: folder)
        let (code, _, err) = await tamga(["container", "create", path(name), a, b, "-q"])
        XCTAssertEqual(code, .success, err)
        return path(name)
    }

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func testVersionAndHelpForEveryCommand() async {
        let (code, out, _) = await tamga(["--version"])
        XCTAssertEqual(code, .success)
        XCTAssertEqual(out, "tamga \(TamgaCommandLine.version)\n")
        for command in TamgaCommandLine.commands {
            let (code, out, _) = await tamga(command.path + ["--help"])
            XCTAssertEqual(code, .success)
            XCTAssertTrue(out.hasPrefix("Usage: tamga \(command.path.joined(separator: " "))"), out)
        }
        let (helpCode, helpOut, _) = await tamga(["help", "verify"])
        XCTAssertEqual(helpCode, .success)
        XCTAssertTrue(helpOut.contains("--trust FILE"))
    }

    func testUsageErrorsExitWithTwo() async {
        for words in [["frobnicate"], ["container"], ["verify"], ["verify", "x.asice", "--bogus"], ["sign", "x.asice"],
                      ["sign", "x.asice", "--with", "card"], ["container", "create", "--compression=zip", "a", "b"], []] {
            let (code, _, err) = await tamga(words)
            XCTAssertEqual(code, .usage, "\(words)")
            XCTAssertFalse(err.isEmpty, "\(words)")
        }
    }

    func testCreateListAsJSON() async throws {
        let container = try await createContainer()
        let (code, out, _) = await tamga(["container", "ls", container, "--json"])
        XCTAssertEqual(code, .success)
        let listing = try json(out)
        XCTAssertEqual(listing["signed"] as? Bool, false)
        let files = try XCTUnwrap(listing["dataFiles"] as? [[String: Any]])
        XCTAssertEqual(files.map { $0["name"] as? String }, ["a.txt", "b ö.txt"])
        XCTAssertEqual(files.map { $0["size"] as? Int }, [6, 5])
        XCTAssertEqual(files.map { $0["mediaType"] as? String }, ["text/plain", "text/plain"])
    }

    func testCreateRefusesToReplaceWithoutForce() async throws {
        let container = try await createContainer()
        let before = try TestEnvironment.bytes(container)
        let (code, _, err) = await tamga(["container", "create", container, path("a.txt")])
        XCTAssertEqual(code, .inputRejected)
        XCTAssertTrue(err.contains("--force"), err)
        XCTAssertEqual(try TestEnvironment.bytes(container), before)
    }

    func testSignWithPKCS12AndPinFileThenVerify() async throws {
        let container = try await createContainer()
        let pin = try TestEnvironment.write("test1234\n", named: "pin", in: folder)
        let (code, out, err) = await tamga(["sign", container, "--with", "key:\(TestEnvironment.pki("ec-p384.p12"))", "--pin-file", pin,
                                            "--role", "Auditor", "--json"])
        XCTAssertEqual(code, .success, err)
        XCTAssertEqual(try json(out)["signatureFile"] as? String, "META-INF/signatures0.xml")
        let (verifyCode, verifyOut, _) = await tamga(["verify", container, "--trust", TestEnvironment.pki("root.cert.pem"),
                                                      "--certs", TestEnvironment.pki("issuing-ca.cert.pem"), "--json"])
        XCTAssertEqual(verifyCode, .success, verifyOut)
        let report = try json(verifyOut)
        XCTAssertEqual(report["status"] as? String, "VALID")
    }

    func testEncryptedKeyFromEnvironmentAndWrongPasswordIsNotRetried() async throws {
        let container = try await createContainer()
        let before = try TestEnvironment.bytes(container)
        let arguments = ["sign", container, "--with", "key:\(TestEnvironment.pki("ec-p256.enc.key.pem"))",
                         "--cert", TestEnvironment.pki("ec-p256.cert.pem")]
        let (wrong, _, err) = await tamga(arguments + ["--json"], environment: ["TAMGA_PIN": "wrong"])
        XCTAssertEqual(wrong, .signingFailed)
        XCTAssertTrue(err.contains("does not retry"), err)
        XCTAssertEqual(try TestEnvironment.bytes(container), before)
        let (right, _, rightErr) = await tamga(arguments, environment: ["TAMGA_PIN": "test1234"])
        XCTAssertEqual(right, .success, rightErr)
    }

    func testVerifyExitCodes() async throws {
        let container = try await createContainer()
        let (unsigned, _, _) = await tamga(["verify", container])
        XCTAssertEqual(unsigned, .verificationFailed)
        _ = await tamga(["sign", container, "--with", "key:\(TestEnvironment.pki("rsa-2048.key.pem"))", "--cert", TestEnvironment.pki("rsa-2048.cert.pem")])
        let (untrusted, out, _) = await tamga(["verify", container])
        XCTAssertEqual(untrusted, .trustNotEstablished, out)
        let (trusted, _, _) = await tamga(["verify", container, "--trust", TestEnvironment.pki("chain.pem")])
        XCTAssertEqual(trusted, .success)
        try Data("not a zip".utf8).write(to: URL(fileURLWithPath: path("junk.asice")))
        let (junk, junkOut, _) = await tamga(["verify", path("junk.asice"), "--json"])
        XCTAssertEqual(junk, .inputRejected)
        XCTAssertEqual((try json(junkOut)["error"] as? [String: String])?["code"], "malformed-zip")
        let (missing, _, _) = await tamga(["verify", path("nope.asice")])
        XCTAssertEqual(missing, .inputRejected)
    }

    func testAddRemoveAndExtract() async throws {
        let container = try await createContainer()
        let c = try TestEnvironment.write("gamma", named: "c.txt", in: folder)
        do { let r = await tamga(["container", "add", container, c, "-q"]).0; XCTAssertEqual(r, .success) }
        do { let r = await tamga(["container", "remove", container, "a.txt"]).0; XCTAssertEqual(r, .success) }
        let out = folder.appendingPathComponent("out").path
        let (code, text, _) = await tamga(["container", "extract", container, "--to", out, "--json"])
        XCTAssertEqual(code, .success)
        XCTAssertEqual((try json(text)["extracted"] as? [String])?.count, 2)
        do { let r = await tamga(["container", "extract", container, "--to", out]).0; XCTAssertEqual(r, .inputRejected, "no overwrite without --force") }
        do { let r = await tamga(["container", "extract", container, "c.txt", "--to", out, "--force"]).0; XCTAssertEqual(r, .success) }
        _ = await tamga(["container", "remove", container, "b ö.txt"])
        let (last, lastOut, _) = await tamga(["container", "remove", container, "c.txt"])
        XCTAssertEqual(last, .success)
        XCTAssertTrue(lastOut.contains("deleted"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: container))
    }

    func testTheBinaryPassesExitCodesThrough() throws {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tamga").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return XCTFail("the tamga binary is not beside the test bundle at \(binary); build with swift build first")
        }
        XCTAssertEqual(try TestEnvironment.run(binary, ["--version"]).output, "tamga \(TamgaCommandLine.version)\n")
        XCTAssertEqual(try TestEnvironment.run(binary, ["verify", path("missing.asice")]).status, 3)
        XCTAssertEqual(try TestEnvironment.run(binary, ["--nonsense"]).status, 2)
        // No terminal and no PIN source: a clear error instead of a hang.
        let container = try TestEnvironment.write("x", named: "x.txt", in: folder)
        XCTAssertEqual(try TestEnvironment.run(binary, ["container", "create", path("p.asice"), container]).status, 0)
        let result = try TestEnvironment.run("/usr/bin/setsid", ["--wait", binary, "sign", path("p.asice"), "--with", "key:\(TestEnvironment.pki("ec-p256.p12"))"],
                                             environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(result.status, 4, result.error)
        XCTAssertTrue(result.error.contains("--pin-file"), result.error)
    }
}
