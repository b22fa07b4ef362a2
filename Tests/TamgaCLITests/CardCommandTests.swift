import Foundation
import TamgaTestSupport
import XCTest

/// `tamga sign --with card` and `tamga card …` against a private pcscd with virtual ID cards.
final class CardCommandTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    private var folder: URL!
    private var rig: PCSCRig?

    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("card-cli") }
    override func tearDown() {
        rig?.stop()
        TestEnvironment.removeFolder(folder)
    }

    private func environment(pin: String? = nil, newPIN: String? = nil) throws -> [String: String] {
        var environment = try XCTUnwrap(rig).environment
        environment["TAMGA_PIN"] = pin
        environment["TAMGA_NEW_PIN"] = newPIN
        return environment
    }

    private func tamga(
        _ arguments: [String], pin: String? = nil, newPIN: String? = nil
    ) throws -> TestEnvironment.ProcessResult {
        try TestEnvironment.run(binary, arguments, environment: environment(pin: pin, newPIN: newPIN))
    }

    func testSignWithTheCardAtLTThenVerify() throws {
        rig = try PCSCRig(readers: [.init(name: "Card Reader", cards: ["idemia", nil])])
        let services = try TestServices()
        defer { services.stop() }
        let container = folder.appendingPathComponent("card.asice").path
        let document = try TestEnvironment.write("a contract\n", named: "contract.txt", in: folder)
        let pinFile = try TestEnvironment.write("12345\n", named: "pin2", in: folder)
        let signed = try tamga([
            "sign", container, document, "--with", "card", "--pin-file", pinFile, "--tsa",
            services.url("tsa").absoluteString,
            "--ocsp", services.url("ocsp").absoluteString, "--certs", TestEnvironment.pki("issuing-ca.cert.pem"),
            "--json",
        ])
        XCTAssertEqual(signed.status, 0, signed.error)
        XCTAssertTrue(signed.output.contains("TESTCARD IDEMIA"), signed.output)
        XCTAssertTrue(signed.output.contains("\"profile\" : \"LT\""), signed.output)
        let verified = try tamga(["verify", container, "--trust", TestEnvironment.pki("root.cert.pem")])
        XCTAssertEqual(verified.status, 0, verified.output + verified.error)
    }

    func testWrongPINExitsNineWithTriesLeftAndLeavesTheContainer() throws {
        rig = try PCSCRig(readers: [.init(name: "Card Reader", cards: ["thales", nil])])
        let container = folder.appendingPathComponent("c.asice").path
        let document = try TestEnvironment.write("x\n", named: "x.txt", in: folder)
        XCTAssertEqual(try tamga(["container", "create", container, document]).status, 0)
        let before = try TestEnvironment.bytes(container)
        let wrong = try tamga(["sign", container, "--with", "card", "--profile", "B"], pin: "99999")
        XCTAssertEqual(wrong.status, 9, wrong.error)
        XCTAssertTrue(wrong.error.contains("Wrong PIN2: 2 tries left"), wrong.error)
        XCTAssertEqual(try TestEnvironment.bytes(container), before)
        let json = try tamga(["sign", container, "--with", "card", "--profile", "B", "--json"], pin: "99999")
        XCTAssertEqual(json.status, 9)
        XCTAssertTrue(json.output.contains("\"code\" : \"wrong-pin\""), json.output)
        let info = try tamga(["card", "info"])
        XCTAssertTrue(info.output.contains("PIN2: 1 tries left"), info.output)
    }

    func testCardInfoAsTextAndJSON() throws {
        rig = try PCSCRig(readers: [.init(name: "Card Reader", cards: ["idemia", nil])])
        let text = try tamga(["card", "info"])
        XCTAssertEqual(text.status, 0, text.error)
        XCTAssertTrue(text.output.contains("EstEID IDEMIA in Card Reader 00 00"), text.output)
        XCTAssertTrue(text.output.contains("document number: AS0012345"), text.output)
        XCTAssertTrue(text.output.contains("PIN2: 3 of 3 tries left"), text.output)
        let json = try tamga(["card", "info", "--json"])
        try JSONOutputSchemaTests.conform(json.output, to: "card-info")
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        XCTAssertEqual(object["documentNumber"] as? String, "AS0012345")
        XCTAssertEqual((object["certificates"] as? [[String: Any]])?.count, 2)
        XCTAssertEqual((object["pins"] as? [[String: Any]])?.map { $0["pin"] as? String }, ["PIN1", "PIN2", "PUK"])
    }

    func testChangePINThenSignWithTheNewOne() throws {
        rig = try PCSCRig(readers: [.init(name: "Card Reader", cards: ["thales+pin2-inactive", nil])])
        let container = folder.appendingPathComponent("c.asice").path
        let document = try TestEnvironment.write("x\n", named: "x.txt", in: folder)
        let refused = try tamga(["sign", container, document, "--with", "card", "--profile", "B"], pin: "12345")
        XCTAssertEqual(refused.status, 9)
        XCTAssertTrue(refused.error.contains("tamga card change-pin --pin2"), refused.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: container), "a failed create+sign writes nothing")
        let pinFile = try TestEnvironment.write("12345\n86420\n", named: "change", in: folder)
        let changed = try tamga(["card", "change-pin", "--pin2", "--pin-file", pinFile, "--json"])
        XCTAssertEqual(changed.status, 0, changed.error)
        try JSONOutputSchemaTests.conform(changed.output, to: "card-pin")
        XCTAssertTrue(changed.output.contains("\"PIN2\""), changed.output)
        let signed = try tamga(["sign", container, document, "--with", "card", "--profile", "B"], pin: "86420")
        XCTAssertEqual(signed.status, 0, signed.error)
    }

    /// A wrong current PIN while changing it speaks of nothing changed: nothing was being signed.
    func testAWrongPINInChangePINSaysNothingWasChanged() throws {
        rig = try PCSCRig(readers: [.init(name: "Card Reader", cards: ["idemia", nil])])
        let wrong = try tamga(["card", "change-pin", "--pin1"], pin: "9999", newPIN: "4321")
        XCTAssertEqual(wrong.status, 9, wrong.error)
        XCTAssertTrue(
            wrong.error.contains("Wrong PIN1: 2 tries left before it is blocked. Nothing was changed"), wrong.error)
        XCTAssertFalse(wrong.error.lowercased().contains("signed"), wrong.error)
        let json = try tamga(["card", "change-pin", "--pin1", "--json"], pin: "9999", newPIN: "4321")
        XCTAssertTrue(json.output.contains("\"code\" : \"wrong-pin\""), json.output)
    }

    func testBlockedPIN2IsUnblockedWithThePUK() throws {
        rig = try PCSCRig(readers: [.init(name: "Card Reader", cards: ["idemia", nil])])
        let container = folder.appendingPathComponent("c.asice").path
        let document = try TestEnvironment.write("x\n", named: "x.txt", in: folder)
        XCTAssertEqual(try tamga(["container", "create", container, document]).status, 0)
        for left in [2, 1] {
            let wrong = try tamga(["sign", container, "--with", "card", "--profile", "B"], pin: "99999")
            XCTAssertTrue(wrong.error.contains("\(left) tr"), wrong.error)
        }
        let blocked = try tamga(["sign", container, "--with", "card", "--profile", "B"], pin: "99999")
        XCTAssertEqual(blocked.status, 9)
        XCTAssertTrue(blocked.error.contains("PIN2 is blocked"), blocked.error)
        let unblocked = try tamga(["card", "unblock", "--pin2", "--json"], pin: "17258403", newPIN: "11223")
        XCTAssertEqual(unblocked.status, 0, unblocked.error)
        try JSONOutputSchemaTests.conform(unblocked.output, to: "card-pin")
        XCTAssertEqual(try tamga(["sign", container, "--with", "card", "--profile", "B"], pin: "11223").status, 0)
    }

    func testSeveralCardsWithoutATerminalNeedTheReaderNamed() throws {
        rig = try PCSCRig(readers: [
            .init(name: "Reader A", cards: ["idemia", nil]), .init(name: "Reader B", cards: ["fineid", nil]),
        ])
        let container = folder.appendingPathComponent("c.asice").path
        let document = try TestEnvironment.write("x\n", named: "x.txt", in: folder)
        // TAMGA_PIN set: tamga asks nothing on a terminal, so it must refuse and say how to choose.
        let ambiguous = try tamga(["sign", container, document, "--with", "card", "--profile", "B"], pin: "123456")
        XCTAssertEqual(ambiguous.status, 10, ambiguous.error)
        XCTAssertTrue(
            ambiguous.error.contains("Reader A 00 00, Reader B 00 00")
                && ambiguous.error.contains("--with card:READER"), ambiguous.error)
        let chosen = try tamga(
            ["sign", container, document, "--with", "card:Reader B 00 00", "--profile", "B", "--json"], pin: "123456")
        XCTAssertEqual(chosen.status, 0, chosen.error)
        XCTAssertTrue(chosen.output.contains("SPECIMEN TESTI"), chosen.output)
    }

    func testNoCardExitsTen() throws {
        rig = try PCSCRig(readers: [.init(name: "Empty Reader", cards: [nil, nil])])
        let result = try tamga(["card", "info"])
        XCTAssertEqual(result.status, 10)
        XCTAssertTrue(result.error.contains("Insert your ID card"), result.error)
    }
}
