import Foundation
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// Each `--json` output conforms to its schema in docs/cli.md (the ```json schema NAME blocks,
/// checked with `JSONSchemaSubset`), and every schema there is exercised here.
final class JSONOutputSchemaTests: XCTestCase {
    static func schemas() throws -> [String: [String: Any]] {
        let text = try String(
            contentsOf: TestEnvironment.repository.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        var found: [String: [String: Any]] = [:]
        for part in text.components(separatedBy: "```json schema ").dropFirst() {
            let name = String(part.prefix { $0 != "\n" }).trimmingCharacters(in: .whitespaces)
            let body = part.drop { $0 != "\n" }.components(separatedBy: "```").first ?? ""
            found[name] = try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                "schema \(name) is not a JSON object")
        }
        return found
    }

    private var checked: Set<String> = []

    /// Schemas checked by the tests that have the rigs their commands need (pcscd with virtual
    /// cards, SoftHSM, the trusted-list server, a co-signer): `conform(_:to:)` there.
    static let checkedElsewhere: Set<String> = [
        "readers", "readers-wait", "card-info", "tokens", "trust-update",
        "threshold-enroll", "threshold-approve", "readers-watch",
        "threshold-pending", "threshold-info", "threshold-activity", "compare",
        "mobileid-check", "mobileid-link", "mobileid-decode-m200", "mobileid-decode-m400",
        "threshold-pin", "threshold-delete", "card-pin",
    ]

    /// Asserts that `output` (one JSON object) conforms to docs/cli.md's schema `name`.
    static func conform(_ output: String, to name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let schema = try XCTUnwrap(try schemas()[name], "docs/cli.md has no schema \(name)", file: file, line: line)
        let value = try XCTUnwrap(
            try? JSONSerialization.jsonObject(with: Data(output.utf8)), "not JSON: \(output)", file: file, line: line)
        XCTAssertEqual(
            JSONSchemaSubset.problems(value, against: schema), [], "output against schema \(name)", file: file,
            line: line)
    }

    private func check(
        _ name: String, _ words: [String], environment: [String: String] = [:], expect: ExitCode = .success,
        file: StaticString = #filePath, line: UInt = #line
    ) async throws -> [String: Any] {
        let schemas = try Self.schemas()
        let schema = try XCTUnwrap(schemas[name], "docs/cli.md has no schema \(name)", file: file, line: line)
        let (code, out, err) = await runTamgaInProcess(words, environment: environment)
        XCTAssertEqual(code, expect, "\(words): \(err)", file: file, line: line)
        let value = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any], "\(words) printed \(out)", file: file,
            line: line)
        XCTAssertEqual(
            JSONSchemaSubset.problems(value, against: schema), [], "\(words) against schema \(name)", file: file,
            line: line)
        checked.insert(name)
        return value
    }

    func testEveryJSONOutputMatchesItsDocumentedSchema() async throws {
        let folder = try TestEnvironment.temporaryFolder("schemas")
        defer { TestEnvironment.removeFolder(folder) }
        let services = try TestServices()
        defer { services.stop() }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        let a = try TestEnvironment.write("alpha\n", named: "a.txt", in: folder)
        let b = try TestEnvironment.write("beta\n", named: "b.txt", in: folder)
        let pin = try TestEnvironment.write("test1234\n", named: "pin", in: folder)
        let trust = [
            "--trust", TestEnvironment.pki("root.cert.pem"), "--certs", TestEnvironment.pki("issuing-ca.cert.pem"),
        ]

        _ = try await check("container-listing", ["container", "create", path("c.asice"), a, b, "--json"])
        _ = try await check(
            "sign",
            [
                "sign", path("c.asice"), "--with", "key:\(TestEnvironment.pki("ec-p256.p12"))", "--pin-file", pin,
                "--profile", "B", "--role", "Auditor", "--city", "Tartu", "--json",
            ])
        _ = try await check(
            "extend", ["extend", path("c.asice"), "--to", "T", "--tsa", services.url("tsa").absoluteString, "--json"])
        let listed = try await check("container-listing", ["container", "ls", path("c.asice"), "--json"])
        XCTAssertEqual((listed["signatures"] as? [[String: Any]])?.count, 1)
        _ = try await check("verify", ["verify", path("c.asice"), "--min-profile", "B", "--json"] + trust)
        _ = try await check(
            "verify", ["verify", path("c.asice"), "--min-profile", "LT", "--json"] + trust, expect: .verificationFailed)
        _ = try await check(
            "container-extract", ["container", "extract", path("c.asice"), "--to", path("out"), "--json"])
        _ = try await check(
            "container-listing",
            [
                "container", "timestamp", path("c.asice"), path("c.asice.asics"), "--tsa",
                services.url("tsa").absoluteString, "--json",
            ])
        _ = try await check("verify", ["verify", path("c.asice.asics"), "--json"] + trust)
        _ = try await check("container-listing", ["container", "create", path("one.asice"), a, "--json"])
        _ = try await check("container-deleted", ["container", "remove", path("one.asice"), "a.txt", "--json"])
        _ = try await check("error", ["verify", path("missing.asice"), "--json"], expect: .inputRejected)
        _ = try await check("version", ["--version", "--json"])
        let libraries = try await check("version", ["--version", "--libraries", "--json"])
        XCTAssertEqual(
            (libraries["libraries"] as? [[String: Any]])?.compactMap { $0["name"] as? String },
            ["OpenSSL", "libxml2", "SQLite"])
        _ = try await check(
            "trust-show", ["trust", "show", "--json"], environment: ["HOME": folder.path], expect: .trustNotEstablished)
        _ = try await check(
            "cosigner-issue-code",
            ["cosigner", "issue-code", "38001085718", "--db", path("cosigner.db"), "--create", "--json"])
        _ = try await check(
            "cosigner-add-rp", ["cosigner", "add-rp", "Test Bank", "--db", path("cosigner.db"), "--json"])
        _ = try await check("cosigner-migrate", ["cosigner", "migrate", "--db", path("cosigner.db"), "--json"])
        _ = try await check(
            "cosigner-backup", ["cosigner", "backup", path("backup.db"), "--db", path("cosigner.db"), "--json"])
        _ = try await check(
            "cosigner-backup", ["cosigner", "restore", path("backup.db"), "--db", path("restored.db"), "--json"])
        _ = try await check("mobileid-m200", ["mobileid", "m200", "--mode", "indirect", "--json"])

        XCTAssertEqual(
            checked.union(Self.checkedElsewhere), Set(try Self.schemas().keys),
            "every schema in docs/cli.md is checked against real output")
    }

    /// The checker itself: it finds what does not conform.
    func testTheCheckerRefusesWhatDoesNotConform() {
        let schema: [String: Any] = [
            "type": "object", "additionalProperties": false, "required": ["a"],
            "properties": ["a": ["type": "integer"], "b": ["type": "array", "items": ["enum": ["x", "y"]]]],
        ]
        XCTAssertEqual(JSONSchemaSubset.problems(["a": 1, "b": ["x"]], against: schema), [])
        XCTAssertFalse(JSONSchemaSubset.problems(["b": ["x"]], against: schema).isEmpty)  // a missing
        XCTAssertFalse(JSONSchemaSubset.problems(["a": 1, "c": 2], against: schema).isEmpty)  // c unknown
        XCTAssertFalse(JSONSchemaSubset.problems(["a": 1, "b": ["z"]], against: schema).isEmpty)  // z not in enum
        let parsed = try? JSONSerialization.jsonObject(with: Data(#"{"a": true}"#.utf8))
        XCTAssertFalse(JSONSchemaSubset.problems(parsed as Any, against: schema).isEmpty, "a boolean is not an integer")
        let string = try? JSONSerialization.jsonObject(with: Data(#"{"a": "1"}"#.utf8))
        XCTAssertFalse(JSONSchemaSubset.problems(string as Any, against: schema).isEmpty)
    }
}
