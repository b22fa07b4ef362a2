import ASiC
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// The hostile-input probe's smaller findings, at the command line: names from a container
/// printed escaped (exact in JSON), help for command groups, a FIFO refused, colliding names
/// refused, and the documented exit codes checked against the code.
final class HostileNameCommandTests: XCTestCase {
    private var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("cli-names") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    private func tamga(_ words: [String]) async -> (ExitCode, String, String) { await runTamgaInProcess(words) }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// A right-to-left override (U+202E) and a C1 control (NEL, U+0085) in data-file names
    /// (C0 controls and DEL are refused in names when a container is opened or made).
    static let rlo = "invoice\u{202E}fdp.exe"
    static let c1 = "next\u{85}line.txt"

    private func assertNoRawUnsafe(_ text: String, _ what: String, line: UInt = #line) {
        let bad = text.unicodeScalars.filter { TerminalText.isUnsafe($0) && $0 != "\n" }
        XCTAssertTrue(
            bad.isEmpty, "\(what) prints raw U+\(bad.map { String($0.value, radix: 16) }): \(text)", line: line)
    }

    private func hostileContainer() async throws -> String {
        let files = try [Self.rlo, Self.c1].map { try TestEnvironment.write("data\n", named: $0, in: folder) }
        let container = path("names.asice")
        let (code, out, err) = await tamga(["container", "create", container] + files + ["-q"])
        XCTAssertEqual(code, .success, err)
        assertNoRawUnsafe(out, "container create")
        return container
    }

    func testContainerNamesAreEscapedInTextAndExactInJSON() async throws {
        let container = try await hostileContainer()

        let (lsCode, ls, _) = await tamga(["container", "ls", container])
        XCTAssertEqual(lsCode, .success)
        assertNoRawUnsafe(ls, "container ls")
        XCTAssertTrue(ls.contains("invoice\\u{202E}fdp.exe"), ls)
        XCTAssertTrue(ls.contains("next\\u{0085}line.txt"), ls)

        // JSON: the same strings once decoded, with the unsafe ones written as \uXXXX escapes.
        let (_, json, _) = await tamga(["container", "ls", container, "--json"])
        assertNoRawUnsafe(json, "container ls --json")
        XCTAssertTrue(json.contains("\\u202E"), json)
        let listing = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let names = (listing["dataFiles"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
        XCTAssertEqual(names.map { Array($0.unicodeScalars) }, [Self.rlo, Self.c1].map { Array($0.unicodeScalars) })

        let out = path("out")
        let (extractCode, extracted, _) = await tamga(["container", "extract", container, "--to", out])
        XCTAssertEqual(extractCode, .success)
        assertNoRawUnsafe(extracted, "container extract")
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: out + "/" + Self.rlo), "the file itself keeps its exact name")

        let (_, verify, _) = await tamga(["verify", container])
        assertNoRawUnsafe(verify, "verify")
        XCTAssertTrue(verify.contains("invoice\\u{202E}fdp.exe"), verify)

        // An error that quotes a name: escaped on stderr, exact in JSON.
        let (missingCode, _, missing) = await tamga([
            "container", "extract", container, "gone\u{202E}.txt", "--to", out,
        ])
        XCTAssertEqual(missingCode, .inputRejected)
        assertNoRawUnsafe(missing, "an error message")
        XCTAssertTrue(missing.contains("gone\\u{202E}.txt"), missing)
    }

    func testSignMessagesAreEscaped() async throws {
        let container = try await hostileContainer()
        let renamed = path("signed\u{202E}.asice")
        try FileManager.default.moveItem(atPath: container, toPath: renamed)
        let (code, out, err) = await tamga([
            "sign", renamed, "--with", "key:\(TestEnvironment.pki("rsa-2048.key.pem"))",
            "--cert", TestEnvironment.pki("rsa-2048.cert.pem"), "--profile", "B",
        ])
        XCTAssertEqual(code, .success, err)
        assertNoRawUnsafe(out, "sign")
        XCTAssertTrue(out.contains("signed\\u{202E}.asice"), out)
        let (_, verify, _) = await tamga(["verify", renamed, "--min-profile", "B"])
        assertNoRawUnsafe(verify, "verify of a signed container")
    }

    func testHelpForEveryCommandGroupListsItsSubcommands() async {
        let groups = Dictionary(grouping: TamgaCommandLine.commands.filter { $0.path.count > 1 }, by: { $0.path[0] })
        XCTAssertTrue(
            Set(groups.keys).isSuperset(of: ["container", "threshold", "cosigner", "card", "mobileid"]),
            "\(groups.keys)")
        for (group, members) in groups {
            for words in [["help", group], [group, "--help"], ["--help", group], [group, "-h"]] {
                let (code, out, err) = await tamga(words)
                XCTAssertEqual(code, .success, "\(words): \(err)")
                XCTAssertTrue(out.hasPrefix("Usage: tamga \(group) SUBCOMMAND"), "\(words): \(out)")
                for member in members {
                    XCTAssertTrue(
                        out.contains("  \(member.path.dropFirst().joined(separator: " "))  "),
                        "\(words) omits \(member.path): \(out)")
                    XCTAssertTrue(out.contains(member.abstract), "\(words) omits what \(member.path) does")
                }
            }
            // Without a subcommand, or with a wrong one: a usage error that shows the list.
            for words in [[group], [group, "frobnicate"], ["help", group, "frobnicate"]] {
                let (code, _, err) = await tamga(words)
                XCTAssertEqual(code, .usage, "\(words)")
                XCTAssertTrue(err.contains("Subcommands:"), "\(words): \(err)")
            }
        }
        let (code, _, _) = await tamga(["help", "frobnicate"])
        XCTAssertEqual(code, .usage)
    }

    func testAFIFOIsRefusedWithExitThree() async throws {
        let fifo = path("pipe.asice")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let (code, out, err) = await tamga(["container", "ls", fifo, "--json"])
        XCTAssertEqual(code, .inputRejected, err)
        XCTAssertTrue(out.contains("unreadable-input"), out)
        XCTAssertTrue(err.contains("named pipe (FIFO)"), err)
    }

    func testCollidingNamesAreRefusedAtTheCommandLine() async throws {
        let files = try ["-x.txt", "_-x.txt"].map { try TestEnvironment.write($0, named: $0, in: folder) }
        let container = path("clash.asice")
        let created = await tamga(["container", "create", container] + files + ["-q"])
        XCTAssertEqual(created.0, .success, created.2)
        let out = path("out")
        let (code, json, err) = await tamga(["container", "extract", container, "--to", out, "--json"])
        XCTAssertEqual(code, .inputRejected)
        XCTAssertTrue(json.contains("extraction-collision"), json)
        XCTAssertTrue(err.contains("\"-x.txt\"") && err.contains("\"_-x.txt\""), err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    // MARK: docs/cli.md says what the code does

    private static let everyContainerError: [ContainerError] = [
        .fileNotFound("f"), .unreadableInput(path: "p", reason: "r"), .ioFailure(path: "p", reason: "r"),
        .malformedZip("z"),
        .unsupportedZip("z"), .ambiguousZip("z"), .unsafeEntryName("n"), .duplicateEntry("n"), .mimetypeMissing,
        .mimetypeNotFirst, .mimetypeWrong("m"),
        .manifestMissing, .malformedManifest("m"), .manifestMismatch("m"), .malformedXML(file: "f", reason: "r"),
        .corruptEntry("e"),
        .entryTooLarge(name: "n", limit: 1), .containerSigned, .dataFileExists("n"), .dataFileNotFound("n"),
        .invalidDataFileName("n"),
        .emptyDataFile("p"), .noDataFiles, .wouldOverwrite("p"),
        .extractionCollision(first: "a", second: "b", path: "p"),
        .dataDescriptorMismatch("d"), .noPendingSignature, .signatureValueRejected("s"),
        .signingCertificateUnsuitable("s"),
        .alreadyExists("p"), .invalidMediaType("t"), .invalidSignatureProperty("v"), .asicsMimetypeWrong("m"),
        .asicsDataObjectCount([]),
        .asicsDataObjectInFolder("n"), .asicsSignatureConflict("s"), .unsupportedSignatureFormat("f"), .asicsReadOnly,
        .malformedDDOC("d"), .ddocReadOnly, .ddocContentNotInDocument("n"), .contentNotGiven("n"),
        .digestAlgorithmNotGiven(file: "n", given: "g", needed: "d"),
    ]

    /// The codes of docs/cli.md's "Error codes" table with their exit codes.
    private func documentedErrorExits() throws -> [String: Set<Int32>] { try ErrorCodeTests.documented() }

    func testTheDocumentedExitCodeOfEveryContainerErrorIsTheOneGiven() throws {
        let documented = try documentedErrorExits()
        for error in Self.everyContainerError {
            let (code, exit) = TamgaCommandLine.classify(error)
            XCTAssertEqual(code, error.code)
            XCTAssertEqual(
                documented[code], [exit.rawValue],
                "docs/cli.md gives \(code) exit \(documented[code].map { "\($0.sorted())" } ?? "nothing"), the code gives \(exit.rawValue)"
            )
        }
        // Every exit code the document names is one that ExitCode has.
        let docs = try String(
            contentsOf: TestEnvironment.repository.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let mentioned = try NSRegularExpression(
            pattern: "(?:\\(exit|exits?|exit code) ([0-9]+)|^\\| ([0-9]+) \\|", options: .anchorsMatchLines)
        var seen = Set<Int32>()
        for match in mentioned.matches(in: docs, range: NSRange(docs.startIndex..., in: docs)) {
            for group in [1, 2] {
                if let range = Range(match.range(at: group), in: docs), let number = Int32(docs[range]) {
                    seen.insert(number)
                }
            }
        }
        for number in seen {
            XCTAssertNotNil(
                ExitCode(rawValue: number), "docs/cli.md names exit \(number), which ExitCode does not have")
        }
        XCTAssertEqual(
            seen.filter { ExitCode(rawValue: $0) != nil }.count, ExitCode.allCases.count,
            "the table lists every exit code: \(seen.sorted())")
    }
}
