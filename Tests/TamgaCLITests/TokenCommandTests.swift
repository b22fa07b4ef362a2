import Foundation
import TamgaTestSupport
import XCTest

/// `tamga tokens` and `tamga sign --with pkcs11` against the SoftHSM test tokens.
final class TokenCommandTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    private var token: SoftHSMToken!
    private var folder: URL!

    override func setUpWithError() throws {
        token = try SoftHSMToken.shared.get()
        folder = try TestEnvironment.temporaryFolder("token-cli")
    }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    private func tamga(_ arguments: [String], pin: String? = nil) throws -> TestEnvironment.ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["SOFTHSM2_CONF"] = token.configuration
        environment["TAMGA_PIN"] = pin
        return try TestEnvironment.run(binary, arguments, environment: environment)
    }

    func testTokensListsTheRegisteredSoftHSMTokenWithCertificatesAndKeysAfterLogin() throws {
        let plain = try tamga(["tokens", "--json"])
        XCTAssertEqual(plain.status, 0, plain.error)
        try JSONOutputSchemaTests.conform(plain.output, to: "tokens")
        let listing = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(plain.output.utf8)) as? [String: Any])
        let modules = try XCTUnwrap(listing["modules"] as? [[String: Any]])
        let softhsm = try XCTUnwrap(
            modules.first { $0["name"] as? String == "softhsm2" }, "\(modules.map { $0["name"] })")
        let tokens = try XCTUnwrap(softhsm["tokens"] as? [[String: Any]])
        let test = try XCTUnwrap(tokens.first { $0["label"] as? String == SoftHSMToken.label })
        XCTAssertEqual(
            (test["certificates"] as? [[String: Any]])?.compactMap { $0["id"] as? String }.sorted(),
            ["01", "02", "03", "04"])
        XCTAssertTrue((test["mechanisms"] as? [String] ?? []).contains("ECDSA"))
        let loggedIn = try tamga(
            ["tokens", "--module", SoftHSMToken.module, "--token", SoftHSMToken.label, "--login", "--json"],
            pin: SoftHSMToken.pin)
        XCTAssertEqual(loggedIn.status, 0, loggedIn.error)
        try JSONOutputSchemaTests.conform(loggedIn.output, to: "tokens")
        XCTAssertTrue(loggedIn.output.contains("\"alwaysAuthenticate\" : true"), loggedIn.output)
        XCTAssertFalse(loggedIn.output.contains(SoftHSMToken.spareLabel), "--token keeps to one token")
        let text = try tamga(["tokens", "--module", SoftHSMToken.module])
        XCTAssertTrue(text.output.contains("token \"\(SoftHSMToken.label)\""), text.output)
        XCTAssertTrue(text.output.contains("certificate 01 \"ec-p256\": CN=TEST SIGNER EC256"), text.output)
    }

    func testSignWithATokenKeyAtLTAndVerify() throws {
        let services = try TestServices()
        defer { services.stop() }
        let container = folder.appendingPathComponent("token.asice").path
        let document = try TestEnvironment.write("token\n", named: "t.txt", in: folder)
        let signed = try tamga(
            [
                "sign", container, document, "--with", "pkcs11:\(SoftHSMToken.label):03", "--module",
                SoftHSMToken.module,
                "--tsa", services.url("tsa").absoluteString, "--ocsp", services.url("ocsp").absoluteString,
                "--certs", TestEnvironment.pki("issuing-ca.cert.pem"), "--json",
            ], pin: SoftHSMToken.pin)
        XCTAssertEqual(signed.status, 0, signed.error)
        XCTAssertTrue(signed.output.contains("TEST SIGNER EC384"), signed.output)
        let verified = try tamga(["verify", container, "--trust", TestEnvironment.pki("root.cert.pem")])
        XCTAssertEqual(verified.status, 0, verified.output + verified.error)
    }

    func testWrongPINExitsNineAndAmbiguousKeysExitFour() throws {
        let container = folder.appendingPathComponent("c.asice").path
        let document = try TestEnvironment.write("x\n", named: "x.txt", in: folder)
        let wrong = try tamga(
            ["sign", container, document, "--with", "pkcs11:\(SoftHSMToken.spareLabel)", "--profile", "B"],
            pin: "999999")
        XCTAssertEqual(wrong.status, 9, wrong.error)
        XCTAssertTrue(wrong.error.contains("Wrong PIN"), wrong.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: container))
        let ambiguous = try tamga(
            ["sign", container, document, "--with", "pkcs11:\(SoftHSMToken.label)", "--profile", "B"],
            pin: SoftHSMToken.pin)
        XCTAssertEqual(ambiguous.status, 4, ambiguous.error)
        XCTAssertTrue(ambiguous.error.contains("IDs 01, 02, 03, 04"), ambiguous.error)
        let missing = try tamga(
            ["sign", container, document, "--with", "pkcs11:no-such-token", "--profile", "B"], pin: SoftHSMToken.pin)
        XCTAssertEqual(missing.status, 10, missing.error)
        let badModule = try tamga(["tokens", "--module", "/usr/lib/no-such-module.so"])
        XCTAssertEqual(badModule.status, 3)
        XCTAssertTrue(badModule.error.contains("No PKCS#11 module at /usr/lib/no-such-module.so"), badModule.error)
    }
}
