import Foundation
import TamgaTestSupport
import XCTest

@testable import CoSigner
@testable import TamgaCLI

/// The co-signer's commands with `--db postgresql://…`: `migrate` brings the schema up to date
/// and says so, `issue-code` and `serve` work on the same database, a password in the URI is
/// never printed, and a database newer than the program is refused with its own code.
final class CoSignerPostgreSQLCommandTests: XCTestCase {
    func testMigrateIssueCodeAndServeOnAPostgreSQLURI() async throws {
        let rig = try PostgreSQLRig.shared
        let url = try rig.newDatabase()
        let name = try XCTUnwrap(URL(string: url)?.path.dropFirst()).description
        // Trust authentication on the test socket ignores the password; the program must not show it.
        let secretURL = "postgresql://postgres:s3cret-pw@/\(name)?host=\(rig.socketDirectory)"
        let folder = try TestEnvironment.temporaryFolder("cosigner-pg-cli")
        defer { TestEnvironment.removeFolder(folder) }
        let key = folder.appendingPathComponent("server.key").path
        let count = CoSignerStore.migrations.count

        let (migrated, out, err) = await runTamgaInProcess(["cosigner", "migrate", "--db", secretURL])
        XCTAssertEqual(migrated, .success, err)
        XCTAssertTrue(
            out.contains("schema version \(count) (\(count) migrations applied): postgresql://postgres:***@/\(name)"),
            out)
        let (_, again, _) = await runTamgaInProcess(["cosigner", "migrate", "--db", secretURL, "--json"])
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(again.utf8)) as? [String: Any], again)
        XCTAssertEqual(json["schemaVersion"] as? Int, count)
        XCTAssertEqual(json["applied"] as? Int, 0)
        XCTAssertFalse((out + err + again).contains("s3cret-pw"))

        // Every instance needs the same key: with a URI it is not guessed.
        let (noKey, _, noKeyError) = await runTamgaInProcess([
            "cosigner", "issue-code", "38001085718", "--db", secretURL,
        ])
        XCTAssertEqual(noKey, .usage)
        XCTAssertTrue(noKeyError.contains("give --key FILE") && !noKeyError.contains("s3cret-pw"), noKeyError)
        let (issued, code, issuedError) = await runTamgaInProcess([
            "cosigner", "issue-code", "38001085718", "--db", secretURL, "--key", key, "--create",
        ])
        XCTAssertEqual(issued, .success, issuedError)
        XCTAssertEqual(code.trimmingCharacters(in: .whitespacesAndNewlines).count, 12, code)
        XCTAssertFalse(issuedError.contains("s3cret-pw"), issuedError)
        XCTAssertEqual(try rig.psql(name, "SELECT COUNT(*) FROM enrollment_codes"), "1")

        // serve on the same database and key: it starts, and answers a relying party registered by add-rp.
        let (added, apiKey, _) = await runTamgaInProcess([
            "cosigner", "add-rp", "Test Bank", "--db", secretURL, "--key", key,
        ])
        XCTAssertEqual(added, .success)
        let binary = TestEnvironment.productsDirectory.appendingPathComponent("tamga").path
        let (server, base) = try TestEnvironment.startListening(
            executable: binary, ["cosigner", "serve", "--db", secretURL, "--key", key])
        defer { TestEnvironment.terminate(server) }
        let answer = try TestEnvironment.run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-H",
                "Authorization: Bearer \(apiKey.trimmingCharacters(in: .whitespacesAndNewlines))",
                base.appendingPathComponent("v3/rp/session/unknown").absoluteString,
            ])
        XCTAssertEqual(answer.output, "404")

        // A schema from a newer tamga: refused, named, and left as it is.
        try rig.psql(name, "UPDATE tamga_schema SET version = 99")
        let (newer, newerOutput, newerError) = await runTamgaInProcess([
            "cosigner", "migrate", "--db", secretURL, "--json",
        ])
        XCTAssertEqual(newer, .inputRejected)
        XCTAssertTrue(newerOutput.contains("\"database-schema-newer\""), newerOutput + newerError)
        let refused = try TestEnvironment.run(binary, ["cosigner", "serve", "--db", secretURL, "--key", key])
        XCTAssertEqual(refused.status, ExitCode.inputRejected.rawValue, refused.error)
        XCTAssertTrue(refused.error.contains("schema version 99, newer than this program's \(count)"), refused.error)
        XCTAssertEqual(try rig.psql(name, "SELECT version FROM tamga_schema"), "99")

        // An unreachable database: a service failure that says so, without the password.
        let (unreachable, unreachableOutput, unreachableError) = await runTamgaInProcess([
            "cosigner", "migrate", "--db",
            "postgresql://postgres:s3cret-pw@/no_such_db?host=\(rig.socketDirectory)", "--json",
        ])
        XCTAssertEqual(unreachable, .serviceFailed)
        XCTAssertTrue(unreachableOutput.contains("\"database-unavailable\""), unreachableOutput)
        XCTAssertFalse((unreachableOutput + unreachableError).contains("s3cret-pw"), unreachableError)
    }
}
