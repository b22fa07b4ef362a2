import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

/// What the co-signer sends is shown on a person's screen. `add-rp` and session creation refuse
/// control and bidirectional characters, but a co-signer's database can be edited (or the
/// co-signer be someone else's), so the device must not trust that: these tests write hostile
/// text straight into a real co-signer's SQLite rows, bypassing every check at the door, and
/// read what `tamga threshold …` prints.
final class HostileCoSignerTextTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    /// SQL for text carrying a right-to-left override (U+202E), ESC sequences (clear screen, set
    /// the window title with OSC … BEL) and C1 controls (U+009B CSI, U+0085 NEL).
    private static let hostileName = "'Evil ' || char(8238) || 'knaB' || char(27) || '[2J' || char(155) || '31m'"
    private static let hostileText = "'Pay 10' || char(27) || '[1K' || char(8238) || '000' || char(133) || 'ok'"
    private static let hostileDetail = "detail || char(27) || ']0;owned' || char(7) || char(8238)"

    /// Each printed line holds no character `TerminalText.isUnsafe` names (the newline between
    /// lines is the terminal's own), and the escaped form of `expected` is there.
    private func assertEscaped(
        _ output: String, contains expected: [String], _ what: String, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        for printed in output.split(separator: "\n") {
            let raw = printed.unicodeScalars.filter(TerminalText.isUnsafe).map { String($0.value, radix: 16) }
            XCTAssertEqual(
                raw, [], "\(what) printed raw control or bidirectional characters: \(printed.debugDescription)",
                file: file, line: line)
        }
        for text in expected {
            XCTAssertTrue(
                output.contains(text), "\(what) should show \(text): \(output.debugDescription)", file: file, line: line
            )
        }
    }

    private func sql(_ database: String, _ statement: String) throws {
        let result = try TestEnvironment.run("/usr/bin/sqlite3", [database, statement])
        XCTAssertEqual(result.status, 0, "sqlite3: \(result.error)")
    }

    func testPendingInfoActivityAndApprovePrintEditedRowsEscaped() throws {
        let folder = try TestEnvironment.temporaryFolder("hostile-cosigner-text")
        defer { TestEnvironment.removeFolder(folder) }
        let fixture = try CoSignerFixture(folder: folder)
        defer { fixture.stop() }
        let database = fixture.database
        let (server, url) = try TestEnvironment.startListening(executable: binary, fixture.serveArguments)
        defer { TestEnvironment.terminate(server) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("xdg").path
        environment["TAMGA_PIN"] = "24680"

        let code = try TestEnvironment.run(binary, ["cosigner", "issue-code", "38001085718", "--db", database]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let enrolled = try TestEnvironment.run(
            binary, ["threshold", "enroll", "--server", url.absoluteString, "--code", code, "--account", "a"],
            environment: environment)
        XCTAssertEqual(enrolled.status, 0, enrolled.error)
        let keyID = try XCTUnwrap(
            try Data(contentsOf: folder.appendingPathComponent("xdg/tamga/threshold/a/sign.public"))
                .withUnsafeBytes { try JSONSerialization.jsonObject(with: Data($0)) as? [String: String] }?["keyID"])
        let rpKey = try TestEnvironment.run(binary, ["cosigner", "add-rp", "Test Bank", "--db", database]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // The relying party's registered name, renamed behind add-rp's back: the session and
        // the activity log's "session-created … by NAME" carry it.
        try sql(database, "UPDATE relying_parties SET name = \(Self.hostileName) WHERE name = 'Test Bank'")
        let digest = Digest.compute(.sha256, over: Data("rp document".utf8)).hex
        let created = try TestEnvironment.run(
            "/usr/bin/curl",
            [
                "-s", "-X", "POST", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(rpKey)",
                "-d",
                "{\"keyID\":\"\(keyID)\",\"digest\":\"\(digest)\",\"displayText\":\"Open an account\"}",
                url.absoluteString + "/v3/rp/session",
            ])
        let sessionID = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(created.output.utf8)) as? [String: String])?["sessionID"],
            created.output)
        try sql(database, "UPDATE sessions SET display_text = \(Self.hostileText) WHERE id = '\(sessionID)'")
        try sql(database, "UPDATE activity SET detail = \(Self.hostileDetail)")

        let name = "Evil \\u{202E}knaB\\u{001B}[2J\\u{009B}31m", text = "Pay 10\\u{001B}[1K\\u{202E}000\\u{0085}ok"
        let pending = try TestEnvironment.run(
            binary, ["threshold", "pending", "--account", "a"], environment: environment)
        XCTAssertEqual(pending.status, 0, pending.error)
        assertEscaped(pending.output, contains: ["\(name): \(text)"], "threshold pending")
        let info = try TestEnvironment.run(
            binary, ["threshold", "info", sessionID, "--account", "a"], environment: environment)
        XCTAssertEqual(info.status, 0, info.error)
        assertEscaped(info.output, contains: ["relying party \(name)", "text          \(text)"], "threshold info")
        let activity = try TestEnvironment.run(
            binary, ["threshold", "activity", "--account", "a"], environment: environment)
        XCTAssertEqual(activity.status, 0, activity.error)
        assertEscaped(
            activity.output, contains: ["by \(name)\\u{001B}]0;owned\\u{0007}\\u{202E}"], "threshold activity")
        // --json keeps the exact text (as \u escapes, which decode to the same string).
        let activityJSON = try TestEnvironment.run(
            binary, ["threshold", "activity", "--account", "a", "--json"], environment: environment)
        assertEscaped(activityJSON.output, contains: [], "threshold activity --json")
        let entries = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(activityJSON.output.utf8)) as? [String: [[String: String]]])?[
                "activity"], activityJSON.output)
        XCTAssertTrue(
            entries.contains {
                $0["detail"]?.hasSuffix("by Evil \u{202E}knaB\u{1B}[2J\u{9B}31m\u{1B}]0;owned\u{7}\u{202E}") == true
            }, "\(entries)")

        // The certificate the co-signer's CA gave at enrollment, as a hostile CA could have made
        // it (the same key, a subject with an override and controls): approve prints its
        // subject. (Our co-signer cannot issue one: the document number is a PrintableString.)
        let stored = folder.appendingPathComponent("xdg/tamga/threshold/a/sign.cert.der")
        let original = try Certificate(der: Data(contentsOf: stored))
        let authority = try CertificateAuthority(
            certificatePEM: Data(contentsOf: fixture.pki.appendingPathComponent("issuing-ca.cert.pem")),
            keyPEM: Data(contentsOf: fixture.pki.appendingPathComponent("issuing-ca.key.pem")))
        let hostile = try authority.issue(
            subjectPublicKeyInfo: try XCTUnwrap(original.publicKey.subjectPublicKeyInfo),
            subject: [("C", "EE"), ("CN", "Evil \u{202E}knaB\u{1B}[2J\u{9B}31m")], profile: .signing)
        try hostile.der.write(to: stored)
        let approved = try TestEnvironment.run(
            binary, ["threshold", "approve", sessionID, "--account", "a"], environment: environment)
        XCTAssertEqual(approved.status, 0, approved.error)
        assertEscaped(approved.error, contains: ["\(name) asks (SIGN): \(text)"], "threshold approve's prompt")
        // OpenSSL's RFC 2253 printing writes ESC as \1B itself (a name's own escape, kept as it
        // is) but leaves the override and the C1 control raw, which are escaped.
        assertEscaped(
            approved.output, contains: ["signed as CN=Evil \\u{202E}knaB\\1B[2J\\u{009B}31m,C=EE"], "threshold approve")
    }
}
