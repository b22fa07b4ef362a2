import Foundation
import TamgaTestSupport
import XCTest

/// The virtual ID cards answer the APDU traces of docs/design/smartcard.md §1.3–1.4 (the commands
/// libelectronic-id sends, the answers of its recorded card scripts), checked from outside: pyscard sends the APDUs, the `cryptography` package verifies the
/// signature against the certificate read from the card.
final class VirtualCardTraceTests: XCTestCase {
    private func trace(_ card: String, profile: String, extra: [String] = []) throws -> [String: Any] {
        let rig = try PCSCRig(readers: [.init(name: "Trace Reader", cards: [card, nil])])
        defer { rig.stop() }
        let result = try TestEnvironment.run(
            "/usr/bin/python3", [TestEnvironment.script("vcard-trace-check.py"), "Trace Reader", profile] + extra,
            environment: rig.environment)
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        XCTAssertEqual(result.status, 0, result.output + result.error)
        return try XCTUnwrap(object, result.output + result.error)
    }

    func testIDEMIATraceSignsWithPIN2AndCountsAWrongTry() throws {
        let result = try trace("idemia", profile: "idemia", extra: ["--wrong-pin"])
        XCTAssertEqual(result["signatureVerified"] as? Bool, true)
        XCTAssertEqual(result["signatureLength"] as? Int, 96)
        XCTAssertEqual(result["pin2TriesBefore"] as? Int, 3)
        XCTAssertEqual(result["wrongPinAnswer"] as? String, "63C2")
        XCTAssertEqual(result["pin2TriesAfter"] as? Int, 3, "a correct PIN resets the counter")
        XCTAssertEqual(result["secondSignatureWithoutPIN"] as? String, "6982")
        XCTAssertTrue((result["subject"] as? String ?? "").contains("TESTCARD IDEMIA"))
    }

    func testIDEMIATraceOverT0() throws {
        let result = try trace("idemia+t0", profile: "idemia")
        XCTAssertEqual(result["signatureVerified"] as? Bool, true)
    }

    func testThalesTraceWithPSOHash() throws {
        let result = try trace("thales", profile: "thales", extra: ["--wrong-pin"])
        XCTAssertEqual(result["signatureVerified"] as? Bool, true)
        XCTAssertEqual(result["wrongPinAnswer"] as? String, "63C2")
        XCTAssertEqual(result["secondSignatureWithoutPIN"] as? String, "6982")
    }

    func testFinEIDTraceWithP256Key() throws {
        let result = try trace("fineid", profile: "fineid")
        XCTAssertEqual(result["signatureVerified"] as? Bool, true)
        XCTAssertEqual(result["signatureLength"] as? Int, 64)
        XCTAssertEqual(result["pin2TriesBefore"] as? Int, 5)
    }

    func testThalesCardFreshFromIssuanceRefusesPIN2UntilChanged() throws {
        let rig = try PCSCRig(readers: [.init(name: "Trace Reader", cards: ["thales+pin2-inactive", nil])])
        defer { rig.stop() }
        let result = try TestEnvironment.run(
            "/usr/bin/python3", [TestEnvironment.script("vcard-trace-check.py"), "Trace Reader", "thales"],
            environment: rig.environment)
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.output.contains("6984"), result.output)
    }
}
