import Foundation
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// `$XDG_CONFIG_HOME/tamga/config.json`: what people set once (TSA, trust, PKCS#11 module,
/// co-signer), used when no option says otherwise; a file that cannot be used names itself and
/// the key.
final class ConfigurationTests: XCTestCase {
    private var folder: URL!
    private var environment: [String: String] {
        ["XDG_CONFIG_HOME": folder.appendingPathComponent("config").path, "HOME": folder.path]
    }
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("config") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    private func configure(_ json: String) throws {
        let directory = folder.appendingPathComponent("config/tamga")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: directory.appendingPathComponent("config.json"))
    }

    private func tamga(_ words: [String]) async -> (ExitCode, String, String) {
        await runTamgaInProcess(words, environment: environment)
    }

    private func signedContainer(profile: String = "B", extra: [String] = []) async throws -> (ExitCode, String, String)
    {
        let data = try TestEnvironment.write("x\n", named: "x.txt", in: folder)
        let pin = try TestEnvironment.write("test1234\n", named: "pin", in: folder)
        return await tamga(
            [
                "sign", folder.appendingPathComponent("c.asice").path, data, "--force", "--with",
                "key:\(TestEnvironment.pki("ec-p256.p12"))",
                "--pin-file", pin, "--profile", profile,
            ] + extra)
    }

    func testTheTSAComesFromTheFileAndTheOptionWins() async throws {
        let services = try TestServices()
        defer { services.stop() }
        try configure(#"{ "tsa": "\#(services.url("tsa").absoluteString)" }"#)
        let (code, out, err) = try await signedContainer(profile: "T")
        XCTAssertEqual(code, .success, err)
        XCTAssertTrue(out.contains("profile T"), out)
        // --tsa wins over the file: a TSA that refuses fails the signature.
        let (refused, _, refusedErr) = try await signedContainer(
            profile: "T", extra: ["--tsa", services.url("tsa/unavailable").absoluteString])
        XCTAssertEqual(refused, .serviceFailed, refusedErr)
    }

    func testTrustAnchorsFromTheFileRelativeToIt() async throws {
        let (signed, _, signErr) = try await signedContainer()
        XCTAssertEqual(signed, .success, signErr)
        let container = folder.appendingPathComponent("c.asice").path
        let (unconfigured, _, _) = await tamga(["verify", container, "--min-profile", "B"])
        XCTAssertEqual(unconfigured, .trustNotEstablished)
        // Anchor files named relative to the configuration's folder.
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("config/tamga"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: TestEnvironment.pki("root.cert.pem"),
            toPath: folder.appendingPathComponent("config/tamga/root.pem").path)
        try configure(
            #"{ "trust": { "anchors": ["root.pem"], "intermediates": ["\#(TestEnvironment.pki("issuing-ca.cert.pem"))"] } }"#
        )
        let (configured, out, _) = await tamga(["verify", container, "--min-profile", "B"])
        XCTAssertEqual(configured, .success, out)
        // --trust wins: another anchor, and the signature is no longer trusted.
        let (overridden, _, _) = await tamga([
            "verify", container, "--min-profile", "B", "--trust", TestEnvironment.pki("tsa.cert.pem"),
        ])
        XCTAssertEqual(overridden, .trustNotEstablished)
        try configure(#"{ "trust": "cache" }"#)
        let (cache, _, cacheErr) = await tamga(["verify", container, "--min-profile", "B"])
        XCTAssertEqual(cache, .trustNotEstablished)
        XCTAssertTrue(cacheErr.contains("no trust configured"), cacheErr)
    }

    func testTheCoSignerAndTheModuleComeFromTheFile() async throws {
        let (none, _, noneErr) = await tamga(["threshold", "enroll", "--code", "X", "--account", "me"])
        XCTAssertEqual(none, .usage, noneErr)
        XCTAssertTrue(noneErr.contains("config.json"), noneErr)
        try configure(#"{ "cosigner": "http://127.0.0.1:9", "pkcs11Module": "/nonexistent/libmissing-pkcs11.so" }"#)
        var withPIN = environment
        withPIN["TAMGA_PIN"] = "24680"
        let (enroll, _, enrollErr) = await runTamgaInProcess(
            ["threshold", "enroll", "--code", "X", "--account", "me"], environment: withPIN)
        XCTAssertEqual(enroll, .serviceFailed, enrollErr)
        XCTAssertTrue(enrollErr.contains("127.0.0.1:9"), enrollErr)
        let (tokens, _, tokensErr) = await tamga(["tokens"])
        XCTAssertEqual(tokens, .inputRejected, tokensErr)
        XCTAssertTrue(tokensErr.contains("/nonexistent/libmissing-pkcs11.so"), tokensErr)
    }

    func testAFileThatCannotBeUsedNamesTheFileAndTheKey() async throws {
        let file = folder.appendingPathComponent("config/tamga/config.json").path
        for (json, key) in [
            ("{ not json", nil), (#"{ "tsaa": "http://x" }"#, "tsaa"), (#"{ "tsa": 5 }"#, "tsa"),
            (#"{ "trust": { "anchor": ["a.pem"] } }"#, "trust.anchor"), (#"{ "trust": "everything" }"#, "trust"),
            (#"{ "mobileID": [] }"#, "mobileID"),
        ] as [(String, String?)] {
            try configure(json)
            let (code, out, err) = await tamga(["verify", "/nonexistent.asice", "--json"])
            XCTAssertEqual(code, .inputRejected, json)
            XCTAssertTrue(err.contains("The configuration file \(file)"), err)
            if let key { XCTAssertTrue(err.contains("\"\(key)\""), "\(json): \(err)") }
            XCTAssertTrue(out.contains("\"code\" : \"config-malformed\""), out)
        }
        // Commands that need nothing from it are not stopped by it.
        let (listed, _, _) = await tamga([
            "container", "create", folder.appendingPathComponent("d.asice").path,
            try TestEnvironment.write("y", named: "y.txt", in: folder),
        ])
        XCTAssertEqual(listed, .success)
    }
}
