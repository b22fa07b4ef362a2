import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// DDOC from the command line, as a person meets it: `verify` (text and `--json`, each exit
/// code), `container ls` and `extract`, the read-only refusals, and the time-stamp wrapper the
/// refusal suggests.
final class DDOCCommandTests: XCTestCase {
    private var folder: URL!
    private var services: TestServices!

    override func setUpWithError() throws {
        folder = try TestEnvironment.temporaryFolder("cli-ddoc")
        services = try TestServices()
    }

    override func tearDown() {
        services.stop()
        TestEnvironment.removeFolder(folder)
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
    private let trust = [
        "--trust", TestEnvironment.pki("root.cert.pem"), "--certs", TestEnvironment.pki("issuing-ca.cert.pem"),
    ]

    private func ddoc(_ arguments: [String] = [], version: String = "1.3") throws -> String {
        let out = path("\(UUID().uuidString).ddoc")
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                TestEnvironment.script("make-ddoc.py"), "--pki", TestEnvironment.fixture("pki"),
                "--ocsp", services.url("ocsp").absoluteString, "--out", out, "--version", version,
            ] + arguments)
        XCTAssertEqual(result.status, 0, result.error)
        return out
    }

    func testVerifyGivesTheUsualOutputsAndExitCodes() async throws {
        let good = try ddoc()
        let (code, text, _) = await runTamgaInProcess(["verify", good] + trust)
        XCTAssertEqual(code, .success, text)
        XCTAssertTrue(
            text.contains("(DIGIDOC_XML_1.3): WARNING") && text.contains("profile TM") && text.contains("[ddoc-sha1]"),
            text)
        let (_, json, _) = await runTamgaInProcess(["verify", good, "--json"] + trust)
        try JSONOutputSchemaTests.conform(json, to: "verify")
        XCTAssertTrue(json.contains("\"containerType\" : \"DIGIDOC_XML_1.3\""), json)

        let (tampered, tamperedText, _) = await runTamgaInProcess(["verify", try ddoc(["--tamper-data"])] + trust)
        XCTAssertEqual(tampered, .verificationFailed, tamperedText)
        XCTAssertTrue(tamperedText.contains("[data-file-digest]"), tamperedText)

        // Without the test PKI's root only the DDOC trust set applies: intact, not trusted; and
        // "no trust configured" is not said, since the DDOC trust set is configured.
        let (untrusted, untrustedText, said) = await runTamgaInProcess(
            ["verify", good, "--certs", TestEnvironment.pki("issuing-ca.cert.pem")],
            environment: ["XDG_CACHE_HOME": path("empty-cache")])
        XCTAssertEqual(untrusted, .trustNotEstablished, untrustedText)
        XCTAssertFalse(said.contains("no trust configured"), said)

        let bomb = try ddoc(["--entity-bomb"])
        let (refused, _, refusal) = await runTamgaInProcess(["verify", bomb, "--json"] + trust)
        XCTAssertEqual(refused, .inputRejected)
        XCTAssertTrue(refusal.contains("DDOC") && refusal.contains("DOCTYPE"), refusal)
        let binary = try TestEnvironment.run(
            TestEnvironment.productsDirectory.appendingPathComponent("tamga").path, ["verify", bomb] + trust)
        XCTAssertEqual(binary.status, 3)
    }

    func testListAndExtractWorkAndChangesAreRefused() async throws {
        let source = try TestEnvironment.write("the signed text\n", named: "leping ö.txt", in: folder)
        let file = try ddoc(["--file", "leping ö.txt=\(source)"])
        let before = try TestEnvironment.bytes(file)
        let (listed, listing, _) = await runTamgaInProcess(["container", "ls", file])
        XCTAssertEqual(listed, .success)
        XCTAssertTrue(
            listing.contains("(DDOC): 1 data file(s), 1 signature(s)") && listing.contains("leping ö.txt"), listing)
        let (_, json, _) = await runTamgaInProcess(["container", "ls", file, "--json"])
        try JSONOutputSchemaTests.conform(json, to: "container-listing")
        let out = path("out")
        let (extracted, _, extractErr) = await runTamgaInProcess(["container", "extract", file, "--to", out])
        XCTAssertEqual(extracted, .success, extractErr)
        XCTAssertEqual(try String(contentsOfFile: out + "/leping ö.txt", encoding: .utf8), "the signed text\n")

        for words in [
            [
                "sign", file, "--with", "key:\(TestEnvironment.pki("rsa-2048.key.pem"))", "--cert",
                TestEnvironment.pki("rsa-2048.cert.pem"),
            ],
            ["container", "add", file, source], ["container", "remove", file, "leping ö.txt"],
        ] {
            let (code, _, err) = await runTamgaInProcess(words)
            XCTAssertEqual(code, .inputRejected, "\(words)")
            XCTAssertTrue(err.contains("read-only") && err.contains("container timestamp"), "\(words): \(err)")
        }
        XCTAssertEqual(try TestEnvironment.bytes(file), before, "the DDOC is untouched")

        // What the refusal suggests works: the whole DDOC time-stamped in an ASiC-S.
        let wrapped = path("archive.asics")
        let (stamped, _, stampErr) = await runTamgaInProcess([
            "container", "timestamp", file, wrapped, "--tsa", services.url("tsa").absoluteString,
        ])
        XCTAssertEqual(stamped, .success, stampErr)
        let (verified, verifiedText, _) = await runTamgaInProcess(["verify", wrapped] + trust)
        XCTAssertEqual(verified, .success, verifiedText)
    }

    func testAHashcodeDDOCVerifiesButHasNothingToExtract() async throws {
        let full = try ddoc()
        let hashcode = path("hashcode.ddoc")
        let made = try TestEnvironment.run(
            "/usr/bin/python3", [TestEnvironment.script("make-ddoc.py"), "--hashcode-of", full, "--out", hashcode])
        XCTAssertEqual(made.status, 0, made.error)
        let (code, text, _) = await runTamgaInProcess(["verify", hashcode] + trust)
        XCTAssertEqual(code, .success, text)
        XCTAssertTrue(text.contains("DIGIDOC_XML_1.3_hashcode"), text)
        let (extract, _, err) = await runTamgaInProcess(["container", "extract", hashcode, "--to", path("nothing")])
        XCTAssertEqual(extract, .inputRejected)
        XCTAssertTrue(err.contains("hashcode form"), err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("nothing") + "/test.txt"))
    }
}
