import Foundation
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// `sign`, `container ls` and `verify` name a signer as a person reads it; `-v` and `--json`
/// keep the full RFC 4514 subject.
final class SignerNameCommandTests: XCTestCase {
    func testSignersAreShownAsPeopleReadTheirNames() async throws {
        let folder = try TestEnvironment.temporaryFolder("names")
        defer { TestEnvironment.removeFolder(folder) }
        let data = try TestEnvironment.write("text\n", named: "a.txt", in: folder)
        let container = folder.appendingPathComponent("c.asice").path
        let card = TestEnvironment.fixture("card/idemia")
        let subject =
            #"CN=TESTCARD IDEMIA\,JAAK-KRISTJAN\,38001085718,SN=TESTCARD IDEMIA,GN=JAAK-KRISTJAN,serialNumber=PNOEE-38001085718,C=EE"#
        let readable = "JAAK-KRISTJAN TESTCARD IDEMIA, 38001085718"

        let (signed, signOut, signErr) = await runTamgaInProcess([
            "sign", container, data, "--with", "key:\(card)/sign.key.pem",
            "--cert", "\(card)/sign.cert.pem", "--profile", "B",
        ])
        XCTAssertEqual(signed, .success, signErr)
        XCTAssertTrue(signOut.contains("as \(readable)\n"), signOut)

        let (_, listed, _) = await runTamgaInProcess(["container", "ls", container])
        XCTAssertTrue(listed.contains(": \(readable), "), listed)
        XCTAssertFalse(listed.contains("CN="), listed)
        let (_, verbose, _) = await runTamgaInProcess(["container", "ls", container, "-v"])
        XCTAssertTrue(verbose.contains("subject: \(subject)"), verbose)
        let (_, json, _) = await runTamgaInProcess(["container", "ls", container, "--json"])
        let signature = try XCTUnwrap(
            (JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["signatures"] as? [[String: Any]]
        ).first
        XCTAssertEqual(signature?["signer"] as? String, subject)
        XCTAssertEqual(signature?["signerName"] as? String, readable)

        let (_, report, _) = await runTamgaInProcess(["verify", container, "--min-profile", "B"])
        XCTAssertTrue(report.contains("    signer: \(readable)\n"), report)
        XCTAssertFalse(report.contains("CN=TESTCARD"), report)
        let (_, verboseReport, _) = await runTamgaInProcess(["verify", container, "--min-profile", "B", "--verbose"])
        XCTAssertTrue(verboseReport.contains("      subject: \(subject), serial "), verboseReport)
        let (_, jsonReport, _) = await runTamgaInProcess(["verify", container, "--min-profile", "B", "--json"])
        let result = try XCTUnwrap(
            (JSONSerialization.jsonObject(with: Data(jsonReport.utf8)) as? [String: Any])?["signatures"]
                as? [[String: Any]]
        ).first
        XCTAssertEqual(result?["signer"] as? String, subject)
        XCTAssertEqual(result?["signerName"] as? String, readable)
    }
}
