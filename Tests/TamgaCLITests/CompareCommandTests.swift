import Foundation
import TamgaTestSupport
import XCTest

/// `tamga compare` with the three kinds of hardware-ish signer, all real parts: the virtual ID
/// card behind a private pcscd, a SoftHSM token through p11-kit, and the split key with a
/// `tamga cosigner serve` process; TSA and OCSP on loopback.
final class CompareCommandTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    func testCardTokenAndSplitKeySideBySideEachVerifiedAndOneCombinedContainer() throws {
        let folder = try TestEnvironment.temporaryFolder("compare")
        defer { TestEnvironment.removeFolder(folder) }
        let token = try SoftHSMToken.shared.get()
        let fixture = try CoSignerFixture(folder: folder)
        defer { fixture.stop() }
        let (services, database) = (fixture.services, fixture.database)
        let rig = try PCSCRig(readers: [.init(name: "Card Reader", cards: ["idemia", nil])])
        defer { rig.stop() }
        let (server, url) = try TestEnvironment.startListening(executable: binary, fixture.serveArguments)
        defer { TestEnvironment.terminate(server) }

        var environment = rig.environment
        environment["SOFTHSM2_CONF"] = token.configuration
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("xdg").path
        environment["TAMGA_PIN"] = "24680"
        let code = try TestEnvironment.run(binary, ["cosigner", "issue-code", "38001085718", "--db", database]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let enrolled = try TestEnvironment.run(
            binary,
            ["threshold", "enroll", "--server", url.absoluteString, "--code", code, "--account", "38001085718"],
            environment: environment)
        XCTAssertEqual(enrolled.status, 0, enrolled.error)
        environment["TAMGA_PIN"] = nil
        environment["TAMGA_CARD_PIN"] = "12345"
        environment["TAMGA_PKCS11_PIN"] = SoftHSMToken.pin
        environment["TAMGA_THRESHOLD_PIN"] = "24680"

        let container = folder.appendingPathComponent("contract.asice").path
        let document = try TestEnvironment.write("one contract, three signers\n", named: "contract.txt", in: folder)
        XCTAssertEqual(try TestEnvironment.run(binary, ["container", "create", container, document]).status, 0)
        let before = try TestEnvironment.bytes(container)
        let combined = folder.appendingPathComponent("all.asice").path
        let arguments = [
            "compare", container, "--with", "card", "--with", "threshold:38001085718", "--with",
            "pkcs11:\(SoftHSMToken.label):01",
            "--module", SoftHSMToken.module, "--runs", "2", "--combined", combined,
            "--tsa", services.url("tsa").absoluteString, "--ocsp", services.url("ocsp").absoluteString,
            "--certs", TestEnvironment.pki("issuing-ca.cert.pem"), "--trust", TestEnvironment.pki("root.cert.pem"),
        ]
        let reportPath = folder.appendingPathComponent("compare.html").path
        let compared = try TestEnvironment.run(
            binary, arguments + ["--json", "--report", reportPath], environment: environment)
        XCTAssertEqual(compared.status, 0, compared.output + compared.error)
        let report = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(compared.output.utf8)) as? [String: Any], compared.output)
        try JSONOutputSchemaTests.conform(compared.output, to: "compare")
        let signers = try XCTUnwrap(report["signers"] as? [[String: Any]])
        XCTAssertEqual(
            signers.map { $0["with"] as? String ?? "" },
            ["card", "threshold:38001085718", "pkcs11:\(SoftHSMToken.label):01"])
        for signer in signers {
            XCTAssertNil(signer["error"], "\(signer)")
            XCTAssertEqual(signer["validation"] as? String, "VALID (LT)", "\(signer)")
            // r‖s: the IDEMIA card's key is P-384, the others P-256.
            XCTAssertEqual(
                signer["signatureValueBytes"] as? Int, signer["with"] as? String == "card" ? 96 : 64, "\(signer)")
            let phases = try XCTUnwrap(signer["phases"] as? [String: [String: Double]])
            XCTAssertEqual(Set(phases.keys), ["prepare", "unlock", "sign", "timeStamp", "ocsp", "write", "total"])
            for (name, statistic) in phases { XCTAssertLessThanOrEqual(statistic["median"]!, statistic["p95"]!, name) }
            XCTAssertGreaterThan(phases["sign"]?["median"] ?? 0, 0)
            XCTAssertGreaterThan(phases["timeStamp"]?["median"] ?? 0, 0)
            // Each output container is checked by pyasice too, not only by tamga.
            let output = try XCTUnwrap(signer["output"] as? String)
            let check = try TestEnvironment.run(
                TestEnvironment.pyasicePython,
                [TestEnvironment.script("pyasice-check.py"), "--require-raw-ecdsa", output])
            XCTAssertEqual(check.status, 0, check.output + check.error)
        }
        XCTAssertTrue((signers[0]["location"] as? String ?? "").contains("ID card"), "\(signers[0])")
        XCTAssertTrue(
            (signers[1]["location"] as? String ?? "").contains("co-signer \(url.absoluteString)"), "\(signers[1])")
        XCTAssertTrue(
            (signers[2]["location"] as? String ?? "").contains("token \"\(SoftHSMToken.label)\""), "\(signers[2])")
        XCTAssertGreaterThan(
            (signers[1]["phases"] as? [String: [String: Double]])?["unlock"]?["median"] ?? 0, 0.01,
            "the share's PBKDF2 unlock")
        let all = try XCTUnwrap(report["combined"] as? [String: Any])
        XCTAssertEqual(all["signatures"] as? Int, 3)
        XCTAssertEqual(all["validation"] as? String, "VALID")
        XCTAssertEqual(try TestEnvironment.bytes(container), before, "the input container is never touched")

        // What decides a choice, read from each signer after its last run.
        let properties = signers.map { $0["properties"] as? [String: Any] ?? [:] }
        XCTAssertEqual(properties[0]["triesBeforeLock"] as? String, "3 tries, 3 left now", "the card's PIN2 counter")
        XCTAssertTrue(
            (properties[1]["triesBeforeLock"] as? String ?? "").hasPrefix("5 at the co-signer"),
            "the co-signer's allowance: \(properties[1])")
        XCTAssertTrue(
            (properties[2]["keyLeaves"] as? String ?? "").hasPrefix("no: sensitive"),
            "the token's key attributes: \(properties[2])")
        XCTAssertEqual(
            (properties[0]["qualification"] as? [String: Any])?["qscd"] as? Bool, true, "the card certificate's QcSSCD")
        for property in properties {  // --trust was given: the row says what it is, not that none was
            let source = (property["qualification"] as? [String: Any])?["source"] as? String ?? ""
            XCTAssertTrue(source.contains("--trust names CAs, not a trusted list"), source)
        }
        XCTAssertEqual(report["command"] as? [String], ["tamga"] + arguments + ["--json", "--report", reportPath])
        XCTAssertEqual(
            (report["machine"] as? [String: Any])?["cores"] as? Int, ProcessInfo.processInfo.activeProcessorCount)

        // The report, opened in a real browser: it loads with no console message, and its bars
        // are the JSON's phases, signer by signer, in order.
        let browser = try Chromium.open(reportPath, screenshot: folder.appendingPathComponent("compare.png").path)
        XCTAssertEqual(browser.consoleMessages, [], "the page logs nothing")
        XCTAssertGreaterThan(browser.screenshotSize.width, 900)
        // The whole page is in the picture, down to the footer (system, kernel, processor, the PIN note).
        XCTAssertGreaterThan(browser.footerBottom, 1000)
        XCTAssertGreaterThanOrEqual(
            browser.screenshotSize.height, browser.footerBottom, "the screenshot cuts the footer")
        // Each bar ends before its label starts, and is as long as the label says (to the label's rounding).
        XCTAssertEqual(browser.bars.count, 3, "\(browser.bars)")
        for bar in browser.bars {
            XCTAssertLessThan(bar.endX, bar.labelX, "a bar runs past its label: \(bar)")
            XCTAssertEqual(
                bar.endMilliseconds, bar.labelMilliseconds, accuracy: max(0.06, bar.labelMilliseconds * 0.005), "\(bar)"
            )
        }
        var expected: [String] = []
        for (index, signer) in signers.enumerated() {
            let phases = signer["phases"] as? [String: [String: Double]] ?? [:]
            for phase in ["prepare", "unlock", "sign", "timeStamp", "ocsp", "write"]
            where (phases[phase]?["median"] ?? 0) > 0 { expected.append("\(index):\(phase)") }
        }
        XCTAssertEqual(expected.count, 18, "three signers, six phases each at LT")
        XCTAssertEqual(browser.segments, expected)
        XCTAssertEqual(browser.runDots, signers.map { ($0["runs"] as? [Any])?.count ?? 0 }, "a dot per run")
        // Printed: A4 pages (595 × 842 points), the three signers' report on at most four.
        let pages = try Chromium.printedPages(reportPath, pdf: folder.appendingPathComponent("compare.pdf").path)
        XCTAssertTrue((1...4).contains(pages.count), "\(pages.count) pages")
        for page in pages {
            XCTAssertEqual(page.count, 4)
            XCTAssertEqual(page.last ?? 0, 842, accuracy: 1)
            XCTAssertEqual(page.dropLast().last ?? 0, 595, accuracy: 1)
        }
        // An existing report is refused before anything is signed; a report must be .html or .svg.
        let refused = try TestEnvironment.run(
            binary, arguments + ["--report", reportPath, "--out", folder.appendingPathComponent("again").path],
            environment: environment)
        XCTAssertEqual(refused.status, 3, refused.error)
        XCTAssertFalse(refused.error.contains("run 1/"), "nothing was signed: \(refused.error)")
        XCTAssertEqual(
            try TestEnvironment.run(binary, ["compare", container, "--with", "card", "--report", "x.pdf"]).status, 2)

        // The table, and a signer that fails in its own column while the others still run.
        environment["TAMGA_CARD_PIN"] = "99999"
        let table = try TestEnvironment.run(
            binary, arguments.filter { $0 != "--combined" && $0 != combined } + ["--runs", "1", "--force"],
            environment: environment)
        XCTAssertEqual(table.status, 1, "one signer failed")
        XCTAssertTrue(table.output.contains("PIN/unlock ms"), table.output)
        XCTAssertTrue(table.output.contains("FAILED: wrong-pin"), table.output)
        XCTAssertTrue(table.output.contains("card failed: Wrong PIN2: 2 tries left"), table.output)
        XCTAssertEqual(
            table.output.components(separatedBy: "VALID (LT)").count - 1, 2,
            "the other two still signed: \(table.output)")
    }
}
