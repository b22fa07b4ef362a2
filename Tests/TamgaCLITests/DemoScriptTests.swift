import Foundation
import TamgaTestSupport
import XCTest

/// `make demo` (scripts/demo.sh) as a new user meets it: run with its output going to a log file,
/// it must write no terminal escape codes, show each command as the user would type it (`tamga …`
/// with paths relative to the demo's folder, not the build path), and end with a table of what
/// was signed, by what, at which profile, and what each independent checker said. The demo runs
/// whole against the test build, with its own pcscd, SoftHSM token, co-signer and TSA/OCSP.
final class DemoScriptTests: XCTestCase {
    private var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("demo-script") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    private var script: String { TestEnvironment.repository.appendingPathComponent("scripts/demo.sh").path }
    private var tamga: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    func testTheDemoLogIsPlainShowsCommandsAsTypedAndEndsWithItsTable() throws {
        let out = folder.appendingPathComponent("demo").path
        var environment = ProcessInfo.processInfo.environment
        environment["DEMO_OUT"] = out
        environment.removeValue(forKey: "NO_COLOR")
        let result = try TestEnvironment.run("/bin/bash", [script, tamga], environment: environment)
        XCTAssertEqual(result.status, 0, String(result.output.suffix(3000)) + String(result.error.suffix(2000)))
        XCTAssertFalse(result.output.contains("\u{1B}"), "escape codes in a log file")

        let commands = result.output.split(separator: "\n").filter { $0.hasPrefix("$ ") }
        XCTAssertGreaterThan(commands.count, 20)
        for command in commands {
            XCTAssertFalse(command.contains(tamga), "the build path is shown: \(command)")
            XCTAssertFalse(command.contains(out + "/"), "the demo's folder is shown whole: \(command)")
        }
        // As typed in the demo's folder: the environment first, names with spaces quoted.
        XCTAssertTrue(
            commands.contains {
                $0.hasPrefix("$ tamga container create demo.asice 'files/agreement ö #1.txt' files/invoice.json")
            },
            commands.joined(separator: "\n"))
        XCTAssertTrue(
            commands.contains {
                $0.hasPrefix("$ TAMGA_PIN=12345 tamga sign demo.asice --with card --ocsp http://127.0.0.1:")
            })
        XCTAssertTrue(
            commands.contains { $0.hasPrefix("$ TAMGA_PIN=24680 tamga sign demo.asice --with threshold:38001085718") })

        // The closing table: one row per signature, in signing order, each VALID and OK for all three checkers.
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try XCTUnwrap(
            lines.firstIndex { $0.hasPrefix("#  signed with") }, result.output.suffix(3000).description)
        XCTAssertTrue(
            lines[header].contains("profile") && lines[header].hasSuffix("tamga  xmlsec1  pyasice  openssl"),
            lines[header])
        let rows = Array(lines[(header + 1)...].prefix { !$0.isEmpty })
        XCTAssertEqual(rows.count, 5, rows.joined(separator: "\n"))
        let kinds = [
            "key file (PKCS#12, EC P-256)", "key file (PEM, RSA-2048)", "ID card (virtual EstEID IDEMIA, PIN2)",
            "PKCS#11 token (SoftHSM, EC P-256)", "split key (this device + the co-signer)",
        ]
        for (index, row) in rows.enumerated() {
            XCTAssertTrue(row.hasPrefix("\(index + 1)  \(kinds[index])"), row)
            let cells = row.split(separator: " ").map(String.init)
            XCTAssertEqual(Array(cells.suffix(5)), ["LTA", "VALID", "OK", "OK", "OK"], row)
        }
        XCTAssertTrue(rows[2].contains("JAAK-KRISTJAN TESTCARD IDEMIA, 38001085718"), rows[2])
        XCTAssertTrue(
            result.output.contains("Container: demo.asice, VALID for tamga; 5 signatures, 5 signed as the demo said."))
        XCTAssertFalse(lines.contains { $0.hasPrefix("== Done") })
    }

    /// `make demo` installs what the demo runs and builds what it runs, no more: not the tests'
    /// browser, database server, HAProxy or lintian, not tamga-bench (`make -n`: nothing is run).
    func testMakeDemoInstallsAndBuildsOnlyWhatTheDemoRuns() throws {
        let result = try TestEnvironment.run("/usr/bin/make", ["-n", "-C", TestEnvironment.repository.path, "demo"])
        XCTAssertEqual(result.status, 0, result.error)
        let lines = result.output.split(separator: "\n").map(String.init)
        let installs = lines.filter { $0.hasPrefix("scripts/ensure-packages.sh ") }.flatMap {
            $0.split(separator: " ").dropFirst().map(String.init)
        }
        for needed in [
            "pcscd", "vsmartcard-vpcd", "softhsm2", "opensc", "xmlsec1", "python3-cryptography", "libpcsclite-dev",
        ] {
            XCTAssertTrue(installs.contains(needed), "\(needed) is installed: \(installs)")
        }
        for testsOnly in ["chromium", "lintian", "haproxy", "postgresql", "faketime", "gnutls-bin", "man-db"] {
            XCTAssertFalse(installs.contains(testsOnly), "\(testsOnly) is for the tests, not the demo")
        }
        let builds = lines.filter {
            $0.contains(" build ") && !$0.contains("--show-bin-path") && !$0.hasPrefix("scripts/demo.sh")
        }
        XCTAssertEqual(
            builds.map { $0.components(separatedBy: " --product ").last ?? "" }, ["tamga", "tamga-vcard"],
            builds.joined(separator: "\n"))
        XCTAssertFalse(result.output.contains("setup-xmlsec13.sh"), "xmlsec 1.3 is for the RSA-PSS tests")
    }

    /// On a terminal (a pseudo-terminal from util-linux's `script`) the headings are bold, unless
    /// NO_COLOR is set. A tamga that does not exist stops the demo after its first headings.
    func testHeadingsAreBoldOnlyOnATerminalWithoutNoColor() throws {
        for noColor in [false, true] {
            let out = folder.appendingPathComponent(noColor ? "no-color" : "color").path
            var environment = ProcessInfo.processInfo.environment
            environment["DEMO_OUT"] = out
            environment["TERM"] = "xterm"
            if noColor { environment["NO_COLOR"] = "1" } else { environment.removeValue(forKey: "NO_COLOR") }
            let command = "/bin/bash \(script) \(folder.path)/no-such-tamga"
            let result = try TestEnvironment.run(
                "/usr/bin/script", ["-qec", command, "/dev/null"], environment: environment)
            XCTAssertNotEqual(result.status, 0)
            XCTAssertTrue(result.output.contains("== Start a local time-stamping authority"), result.output)
            XCTAssertEqual(
                result.output.contains("\u{1B}[1m== "), !noColor, "NO_COLOR=\(noColor): \(result.output.prefix(400))")
        }
    }
}
