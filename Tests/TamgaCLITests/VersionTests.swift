import Foundation
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// `tamga --version`: the commit the binary was built from and the C libraries' versions, as
/// text and as JSON; and the script that embeds the commit, for trees with and without git.
final class VersionTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    func testVersionShowsTheCommitAndTheLibraryVersions() throws {
        let text = try TestEnvironment.run(binary, ["--version"])
        XCTAssertEqual(text.status, 0, text.error)
        let lines = text.output.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, text.output)
        // Built from this repository: the commit is what the embedding script says of this tree now
        // (its HEAD, or "unknown" where git cannot read the tree), "-dirty" aside: the tree may have
        // changed between the build and this test.
        let head = try Self.embeddedCommit(of: TestEnvironment.repository)
        func clean(_ commit: String) -> String { commit.hasSuffix("-dirty") ? String(commit.dropLast(6)) : commit }
        XCTAssertTrue(lines[0].hasPrefix("tamga \(TamgaCommandLine.version) (commit "), lines[0])
        XCTAssertEqual(
            clean(String(lines[0].dropFirst("tamga \(TamgaCommandLine.version) (commit ".count).dropLast())),
            clean(head), lines[0])
        // The versions built against: what pkg-config says of the installed headers.
        func modversion(_ package: String) throws -> String {
            try TestEnvironment.run("/usr/bin/pkg-config", ["--modversion", package]).output.trimmingCharacters(
                in: .whitespacesAndNewlines)
        }
        let opensslHeaders = try modversion("openssl"), xml = try modversion("libxml-2.0"),
            pcsc = try modversion("libpcsclite")
        XCTAssertTrue(
            lines[1].hasPrefix("OpenSSL \(opensslHeaders) ") && lines[1].hasSuffix(" (built against)"), lines[1])
        XCTAssertEqual(lines[2], "libxml2 \(xml) (built against)")
        XCTAssertEqual(lines[3], "pcsc-lite \(pcsc) (built against)")

        // --libraries: the libraries as the system has them, loaded, with their files: what
        // `openssl version` says ("X (Library: Y)" when its own build differs: Y is the library).
        let openssl = try TestEnvironment.run("/usr/bin/openssl", ["version"]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let library =
            openssl.components(separatedBy: "(Library: ").last.map { $0.hasSuffix(")") ? String($0.dropLast()) : $0 }
            ?? openssl
        let loaded = try TestEnvironment.run(binary, ["--version", "--libraries"])
        XCTAssertEqual(loaded.status, 0, loaded.error)
        let loadedLines = loaded.output.split(separator: "\n").map(String.init)
        XCTAssertEqual(loadedLines.count, 7, loaded.output)
        XCTAssertEqual(Array(loadedLines.prefix(4)), lines)
        XCTAssertTrue(
            loadedLines[4].hasPrefix("\(library) (in use: /") && loadedLines[4].hasSuffix("/libcrypto.so.3)"),
            loadedLines[4])
        XCTAssertTrue(
            loadedLines[5].hasPrefix("libxml2 \(xml) (in use: /") && loadedLines[5].hasSuffix("/libxml2.so.2)"),
            loadedLines[5])
        XCTAssertTrue(loadedLines[6].hasPrefix("SQLite \(try modversion("sqlite3")) (in use: /"), loadedLines[6])

        let json = try TestEnvironment.run(binary, ["--version", "--json"])
        XCTAssertEqual(json.status, 0, json.error)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: String])
        XCTAssertEqual(object["version"], TamgaCommandLine.version)
        XCTAssertEqual(object["openssl"], String(lines[1].dropLast(" (built against)".count)))
        XCTAssertEqual(object["libxml2"], xml)
        XCTAssertEqual(object["pcscLite"], pcsc)
        XCTAssertEqual(object["commit"].map(clean), clean(head), json.output)
        let withLibraries = try TestEnvironment.run(binary, ["--version", "--libraries", "--json"])
        let entries = try XCTUnwrap(
            (JSONSerialization.jsonObject(with: Data(withLibraries.output.utf8)) as? [String: Any])?["libraries"]
                as? [[String: String]])
        XCTAssertEqual(entries.map { $0["name"] }, ["OpenSSL", "libxml2", "SQLite"])
        XCTAssertEqual(entries[0]["version"], library)
        XCTAssertEqual(entries[1]["version"], xml)
        XCTAssertTrue(
            entries.allSatisfy { $0["file"]?.hasPrefix("/") == true && $0["error"] == nil }, withLibraries.output)
        XCTAssertEqual(try TestEnvironment.run(binary, ["--version", "--bogus"]).status, 2)
    }

    /// The commit `scripts/build-commit.sh` embeds for `tree` now.
    static func embeddedCommit(of tree: URL) throws -> String {
        let out = try TestEnvironment.temporaryFolder("commit")
        defer { TestEnvironment.removeFolder(out) }
        _ = try TestEnvironment.run("/bin/sh", [TestEnvironment.script("build-commit.sh"), tree.path, out.path])
        let source = try String(contentsOf: out.appendingPathComponent("BuildCommit.swift"), encoding: .utf8)
        return source.components(separatedBy: "static let value = \"").last?.components(separatedBy: "\"").first ?? ""
    }

    /// A tree without `.git` (a tarball) builds: "unknown", or the commit `git archive` wrote
    /// into `.tamga-commit`; a plain copy's unexpanded placeholder is not taken for a commit.
    func testTheCommitScriptWorksWithoutGit() throws {
        let tree = try TestEnvironment.temporaryFolder("tarball")
        defer { TestEnvironment.removeFolder(tree) }
        let out = tree.appendingPathComponent("out")
        func embedded() throws -> String {
            let run = try TestEnvironment.run(
                "/bin/sh", [TestEnvironment.script("build-commit.sh"), tree.path, out.path])
            XCTAssertEqual(run.status, 0, run.error)
            let source = try String(contentsOf: out.appendingPathComponent("BuildCommit.swift"), encoding: .utf8)
            return source.components(separatedBy: "static let value = \"").last?.components(separatedBy: "\"").first
                ?? ""
        }
        XCTAssertEqual(try embedded(), "unknown")
        try Data("$Format:%h$\n".utf8).write(to: tree.appendingPathComponent(".tamga-commit"))
        XCTAssertEqual(try embedded(), "unknown")
        try Data("0ce9f62\n".utf8).write(to: tree.appendingPathComponent(".tamga-commit"))
        XCTAssertEqual(try embedded(), "0ce9f62")
        // What goes into Swift source is only [0-9A-Za-z._-]: a hostile file cannot inject code.
        try Data("ab\"; fatalError(); \"\n".utf8).write(to: tree.appendingPathComponent(".tamga-commit"))
        XCTAssertEqual(try embedded(), "abfatalError")
    }
}
