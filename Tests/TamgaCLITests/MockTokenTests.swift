import Foundation
import TamgaTestSupport
import XCTest

/// What no real token here can do — a PIN pad, a locked PIN, a final try, a Rutoken identity
/// with GOST mechanisms — through `Fixtures/mock/mock-token-pkcs11.c`, a MOCK PKCS#11 module
/// that forwards to SoftHSM2 and changes only what the MOCK_* variables ask for. Each case runs
/// the tamga binary in its own process, so the mock is the only module loaded there.
final class MockTokenTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    private var token: SoftHSMToken!
    private var folder: URL!
    private var mockModule: String!

    override func setUpWithError() throws {
        token = try SoftHSMToken.shared.get()
        folder = try TestEnvironment.temporaryFolder("mock-token")
        mockModule = folder.appendingPathComponent("mock-token.so").path
        let compilers = ["/opt/swift/usr/bin/clang", "/usr/bin/clang", "/usr/bin/gcc", "/usr/bin/cc"].filter {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        let compiler = try XCTUnwrap(compilers.first, "a C compiler (the Swift toolchain's clang)")
        let built = try TestEnvironment.run(
            compiler,
            [
                "-shared", "-fPIC", "-I/usr/include/p11-kit-1", "-o", mockModule,
                TestEnvironment.fixture("mock/mock-token-pkcs11.c"), "-ldl",
            ])
        XCTAssertEqual(built.status, 0, built.error)
    }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    private func tamga(
        _ arguments: [String], _ mock: [String: String], pin: String? = nil
    ) throws -> TestEnvironment.ProcessResult {
        var environment = ProcessInfo.processInfo.environment
        environment["SOFTHSM2_CONF"] = token.configuration
        environment["TAMGA_PIN"] = pin
        for (name, value) in mock { environment[name] = value }
        return try TestEnvironment.run(binary, arguments, environment: environment)
    }

    private func sign(_ mock: [String: String], pin: String? = nil) throws -> TestEnvironment.ProcessResult {
        let document = try TestEnvironment.write("mock\n", named: "m.txt", in: folder)
        return try tamga(
            [
                "sign", folder.appendingPathComponent("m-\(UUID().uuidString).asice").path, document,
                "--with", "pkcs11:\(SoftHSMToken.label):01", "--module", mockModule, "--profile", "B",
            ], mock, pin: pin)
    }

    func testAPINPadTakesThePinAndTamgaAsksNothing() throws {
        // No TAMGA_PIN and no terminal: had tamga asked for a PIN it would fail with exit 4.
        let result = try sign(["MOCK_PINPAD_PIN": SoftHSMToken.pin])
        XCTAssertEqual(result.status, 0, result.error)
    }

    func testCancelOnThePINPadExits130() throws {
        let result = try sign(["MOCK_PINPAD_CANCEL": "1"])
        XCTAssertEqual(result.status, 130, result.error)
        XCTAssertTrue(result.error.contains("Cancelled"), result.error)
    }

    func testALockedPINIsReportedWithoutAskingForIt() throws {
        let result = try sign(["MOCK_PIN_LOCKED": "1"])
        XCTAssertEqual(result.status, 9, result.error)
        XCTAssertTrue(result.error.contains("PIN is locked"), result.error)
    }

    func testTheFinalTryIsAnnouncedBeforeAskingAndAfterAWrongPIN() throws {
        let result = try sign(["MOCK_PIN_FINAL_TRY": "1"], pin: "000000")
        XCTAssertEqual(result.status, 9, result.error)
        XCTAssertTrue(result.error.contains("Warning: the token reports one try left"), result.error)
        XCTAssertTrue(result.error.contains("One try is left"), result.error)
    }

    func testARutokenShowsItsMediaNameAndGOSTMechanisms() throws {
        let result = try tamga(
            ["tokens", "--module", mockModule, "--token", SoftHSMToken.label, "--json"], ["MOCK_RUTOKEN": "1"])
        XCTAssertEqual(result.status, 0, result.error)
        let listing = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let token = try XCTUnwrap(
            ((listing["modules"] as? [[String: Any]])?.first?["tokens"] as? [[String: Any]])?.first)
        XCTAssertEqual(
            token["mediaName"] as? String, "rutoken_ecp_499602d2", "serial 1234567890 (decimal) = 0x499602D2")
        XCTAssertEqual(
            token["gostMechanisms"] as? [String],
            [
                "GOSTR3410-KEY-PAIR-GEN", "GOSTR3410", "GOSTR3410-WITH-GOSTR3411",
                "GOSTR3410-512", "GOSTR3410-WITH-GOSTR3411-2012-256",
            ])
    }

    func testReadersShowTheFullMediaNameOfARutokenFromItsPKCS11Token() throws {
        let rig = try PCSCRig(readers: [.init(name: "Aktiv Rutoken ECP", cards: ["rutoken-ecp", nil])])
        defer { rig.stop() }
        var mock = ["MOCK_RUTOKEN": "1", "MOCK_SLOT_DESCRIPTION": "Aktiv Rutoken ECP 00 00"]
        mock["PCSCLITE_CSOCK_NAME"] = rig.environment["PCSCLITE_CSOCK_NAME"]
        let text = try tamga(["readers", "--media", "--module", mockModule], mock)
        XCTAssertEqual(text.status, 0, text.error)
        XCTAssertTrue(
            text.output.contains(
                "Aktiv Rutoken ECP 00 00: present, ATR 3B8B015275746F6B656E20445320C1, Rutoken ECP, media rutoken_ecp_499602d2"
            ), text.output)
        XCTAssertTrue(text.output.contains("Aktiv Rutoken ECP 00 01: empty"), text.output)
        let json = try tamga(["readers", "--json", "--media", "--module", mockModule], mock)
        XCTAssertTrue(json.output.contains("\"mediaName\" : \"rutoken_ecp_499602d2\""), json.output)
        let plain = try tamga(["readers"], mock)
        XCTAssertTrue(plain.output.contains("media rutoken_ecp_…"), "without --media only the family: \(plain.output)")
    }
}
