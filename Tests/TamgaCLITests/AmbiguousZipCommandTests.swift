import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// The command line meets an archive with two readings as a user would: `verify` refuses it
/// (exit 3, `ambiguous-zip`, the reason in words), never VALID; `container ls` and `extract`
/// refuse it too, and extract writes nothing. The file itself is left as it was.
final class AmbiguousZipCommandTests: XCTestCase {
    private var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("cli-zip") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }
    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private let trust = ["--trust", TestEnvironment.pki("chain.pem"), "--min-profile", "B"]

    /// A signed container over contract.txt = "Pay 100 EUR to Alice.", valid before the attack.
    private func signedAlice() async throws -> String {
        let contract = try TestEnvironment.write("Pay 100 EUR to Alice.", named: "contract.txt", in: folder)
        let container = path("alice.asice")
        var (code, _, err) = await runTamgaInProcess(["container", "create", container, contract, "-q"])
        XCTAssertEqual(code, .success, err)
        (code, _, err) = await runTamgaInProcess([
            "sign", container, "--with", "key:\(TestEnvironment.pki("ec-p256.key.pem"))",
            "--cert", TestEnvironment.pki("ec-p256.cert.pem"), "--profile", "B", "-q",
        ])
        XCTAssertEqual(code, .success, err)
        let (valid, out, _) = await runTamgaInProcess(["verify", container] + trust)
        XCTAssertEqual(valid, .success, out)
        return container
    }

    func testEachShapeIsRefusedByVerifyLsAndExtract() async throws {
        let alice = try await signedAlice()
        for shape in ["appended", "appended-missing-comment-byte", "zip64-locator"] {
            let file = path("\(shape).asice")
            let made = try TestEnvironment.run(
                "/usr/bin/python3",
                [
                    TestEnvironment.script("make-ambiguous-zip.py"), shape, alice, file,
                    "Pay 999999 EUR to Mallory.",
                ])
            XCTAssertEqual(made.status, 0, made.error)
            let before = try TestEnvironment.bytes(file)

            let (verify, json, _) = await runTamgaInProcess(["verify", file, "--json"] + trust)
            XCTAssertEqual(verify, .inputRejected, "\(shape): \(json)")
            XCTAssertTrue(json.contains("\"ambiguous-zip\""), "\(shape): \(json)")
            XCTAssertFalse(json.contains("VALID"), "\(shape): \(json)")
            let (_, _, said) = await runTamgaInProcess(["verify", file] + trust)
            XCTAssertTrue(said.contains("ZIP readers would disagree"), "\(shape): \(said)")

            let (ls, _, _) = await runTamgaInProcess(["container", "ls", file])
            XCTAssertEqual(ls, .inputRejected, shape)
            let out = path("out-\(shape)")
            let (extract, _, _) = await runTamgaInProcess(["container", "extract", file, "--to", out])
            XCTAssertEqual(extract, .inputRejected, shape)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/contract.txt"), "\(shape): nothing extracted")
            XCTAssertEqual(try TestEnvironment.bytes(file), before, "\(shape): the file is untouched")
        }
    }

    /// The real binary's exit code, for scripts that check it.
    func testTheBinaryExitsWithThree() async throws {
        let alice = try await signedAlice()
        let file = path("appended.asice")
        _ = try TestEnvironment.run(
            "/usr/bin/python3", [TestEnvironment.script("make-ambiguous-zip.py"), "appended", alice, file, "Mallory"])
        let result = try TestEnvironment.run(
            TestEnvironment.productsDirectory.appendingPathComponent("tamga").path, ["verify", file] + trust)
        XCTAssertEqual(result.status, 3, result.output + result.error)
    }
}
