import ASiC
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// `container timestamp`, and ASiC-S in `container ls`, `container extract` and `verify`, run
/// in-process with the loopback TSA.
final class ContainerTimestampCommandTests: XCTestCase {
    private var folder: URL!
    private var services: TestServices!

    override func setUpWithError() throws {
        folder = try TestEnvironment.temporaryFolder("cli-asics")
        services = try TestServices()
    }

    override func tearDown() {
        services.stop()
        TestEnvironment.removeFolder(folder)
    }

    private func tamga(_ words: [String], environment: [String: String] = [:]) async -> (ExitCode, String, String) {
        await runTamgaInProcess(words, environment: environment)
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    private func makeContainer() async throws -> String {
        let a = try TestEnvironment.write("alpha\n", named: "a.txt", in: folder)
        let (code, _, err) = await tamga(["container", "create", path("x.asice"), a, "-q"])
        XCTAssertEqual(code, .success, err)
        return path("x.asice")
    }

    private var trust: [String] {
        ["--trust", TestEnvironment.pki("root.cert.pem"), "--certs", TestEnvironment.pki("issuing-ca.cert.pem")]
    }

    func testTimestampThenListVerifyAndExtract() async throws {
        let input = try await makeContainer()
        let before = try TestEnvironment.bytes(input)
        let output = path("x.asice.asics")
        let (code, out, err) = await tamga([
            "container", "timestamp", input, output, "--tsa", services.url("tsa").absoluteString, "--json",
        ])
        XCTAssertEqual(code, .success, err)
        let listing = try json(out)
        XCTAssertEqual(listing["type"] as? String, "ASiC-S")
        XCTAssertEqual((listing["dataFiles"] as? [[String: Any]])?.compactMap { $0["name"] as? String }, ["x.asice"])
        XCTAssertEqual(try TestEnvironment.bytes(input), before)

        let (lsCode, lsOut, _) = await tamga(["container", "ls", output])
        XCTAssertEqual(lsCode, .success)
        XCTAssertTrue(lsOut.contains("(ASiC-S)"), lsOut)
        XCTAssertTrue(lsOut.contains("time-stamp token"), lsOut)
        XCTAssertTrue(lsOut.contains("TSA tamga Test TSA"), lsOut)

        let (verifyCode, verifyOut, _) = await tamga(["verify", output, "--json"] + trust)
        XCTAssertEqual(verifyCode, .success, verifyOut)
        let report = try json(verifyOut)
        XCTAssertEqual(report["status"] as? String, "VALID")
        XCTAssertEqual(report["containerType"] as? String, "ASiC-S")
        let signature = try XCTUnwrap((report["signatures"] as? [[String: Any]])?.first)
        XCTAssertEqual(signature["profile"] as? String, "TimeStampToken")
        XCTAssertEqual(signature["status"] as? String, "VALID")
        XCTAssertTrue((signature["signer"] as? String)?.contains("tamga Test TSA") ?? false, "\(signature)")
        XCTAssertNotNil(signature["timeStampTime"] as? String)
        XCTAssertNotNil(signature["id"] as? String)

        let (textCode, text, _) = await tamga(["verify", output] + trust)
        XCTAssertEqual(textCode, .success)
        XCTAssertTrue(text.contains("profile TimeStampToken"), text)
        XCTAssertTrue(text.contains("TSA: tamga Test TSA"), text)
        XCTAssertTrue(text.contains("x.asice is itself a container and was not validated"), text)

        let (extractCode, _, extractErr) = await tamga(["container", "extract", output, "--to", path("out"), "-q"])
        XCTAssertEqual(extractCode, .success, extractErr)
        XCTAssertEqual(try TestEnvironment.bytes(path("out/x.asice")), before)
    }

    func testVerifyExitCodes() async throws {
        let input = try await makeContainer()
        let output = path("v.asics")
        let (code, _, err) = await tamga(
            ["container", "timestamp", input, output, "-q"],
            environment: ["TAMGA_TSA_URL": services.url("tsa").absoluteString])
        XCTAssertEqual(code, .success, err)
        // No trust: intact, TSA not trusted.
        let (untrusted, untrustedOut, _) = await tamga(["verify", output])
        XCTAssertEqual(untrusted, .trustNotEstablished, untrustedOut)
        XCTAssertTrue(untrustedOut.contains("timestamp-untrusted"), untrustedOut)
    }

    func testTSAFailureExitsSevenAndWritesNothing() async throws {
        let input = try await makeContainer()
        let output = path("f.asics")
        let (code, _, err) = await tamga([
            "container", "timestamp", input, output, "--tsa", services.url("tsa/unavailable").absoluteString,
        ])
        XCTAssertEqual(code, .serviceFailed, err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".tamga-") }, [])
    }

    func testUsageAndRefusals() async throws {
        let input = try await makeContainer()
        let tsa = services.url("tsa").absoluteString
        let (noTSA, _, noTSAErr) = await tamga(["container", "timestamp", input, path("n.asics")])
        XCTAssertEqual(noTSA, .usage, noTSAErr)
        let (same, _, _) = await tamga(["container", "timestamp", input, input, "--tsa", tsa])
        XCTAssertEqual(same, .usage)
        // An ASiC-E name could never be read back as the archive: refused before the TSA is asked.
        for name in ["a.asice", "b.BDOC", "c.sce"] {
            let (code, _, err) = await tamga(["container", "timestamp", input, path(name), "--tsa", tsa])
            XCTAssertEqual(code, .usage, err)
            XCTAssertTrue(err.contains(".asics"), err)
            XCTAssertFalse(FileManager.default.fileExists(atPath: path(name)))
        }
        let existing = try TestEnvironment.write("keep", named: "e.asics", in: folder)
        let (exists, _, existsErr) = await tamga(["container", "timestamp", input, existing, "--tsa", tsa])
        XCTAssertEqual(exists, .inputRejected, existsErr)
        XCTAssertEqual(try TestEnvironment.bytes(existing), Data("keep".utf8))
        let (forced, _, forcedErr) = await tamga([
            "container", "timestamp", input, existing, "--tsa", tsa, "--force", "-q",
        ])
        XCTAssertEqual(forced, .success, forcedErr)
        let (addCode, _, addErr) = await tamga(["container", "add", existing, input, "--json"])
        XCTAssertEqual(addCode, .inputRejected)
        XCTAssertTrue(addErr.contains("read-only"), addErr)
    }

    func testHelpAndManualPageDescribeTheCommand() async {
        let (code, out, _) = await tamga(["help", "container", "timestamp"])
        XCTAssertEqual(code, .success)
        XCTAssertTrue(out.contains("--tsa URL"), out)
        let (manCode, man, _) = await tamga(["help", "--man"])
        XCTAssertEqual(manCode, .success)
        XCTAssertTrue(man.contains("container timestamp"), String(man.prefix(200)))
    }
}
