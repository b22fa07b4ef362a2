import Foundation
@testable import TamgaCLI
import TamgaTestSupport
import XCTest

/// Every command example of README.md and docs/*.md — a ```sh or ```console block that runs
/// tamga — is run here against the test services, in document order in one folder, or is marked
/// `<!-- not run: REASON -->` on the line before its fence (a card reader, the demo's token, a
/// network service the tests cannot have). A `sh` block must run without an error; a `console`
/// block's `$ COMMAND` lines are run and what each printed (stdout and stderr) is compared with
/// the lines the document shows under it, after masking times and the folder's path. In shown
/// output, `…` stands for any text within a line and a line `...` for any number of lines.
final class DocumentationExamplesTests: XCTestCase {
    struct Example {
        let file: String
        let line: Int
        let language: String
        let lines: [String]
        /// Why it is not run (the marker), nil when it is.
        let notRun: String?
        var place: String { "\(file):\(line)" }
    }

    static let documents = ["README.md"] + ((try? FileManager.default.contentsOfDirectory(
        atPath: TestEnvironment.repository.appendingPathComponent("docs").path)) ?? []).filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }

    /// The fenced sh/console blocks of `file` that invoke tamga.
    static func examples(in file: String) throws -> [Example] {
        let text = try String(contentsOf: TestEnvironment.repository.appendingPathComponent(file), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        var examples: [Example] = []
        var index = 0
        while index < lines.count {
            let fence = lines[index]
            guard fence.hasPrefix("```") else { index += 1; continue }
            let language = String(fence.dropFirst(3)).trimmingCharacters(in: .whitespaces)
            let start = index
            var body: [String] = []
            index += 1
            while index < lines.count, !lines[index].hasPrefix("```") { body.append(lines[index]); index += 1 }
            index += 1
            guard ["sh", "console", "shell", "bash"].contains(language),
                  body.contains(where: { $0.range(of: #"(^|\$ |[ =])tamga "#, options: .regularExpression) != nil }) else { continue }
            var reason: String? = nil
            if start > 0, let match = lines[start - 1].range(of: #"^<!-- not run: (.+) -->$"#, options: .regularExpression) {
                reason = String(lines[start - 1][match]).dropFirst("<!-- not run: ".count).dropLast(" -->".count).trimmingCharacters(in: .whitespaces)
            }
            examples.append(Example(file: file, line: start + 1, language: language, lines: body, notRun: reason))
        }
        return examples
    }

    func testEveryExampleIsRunOrSaysWhyNot() throws {
        var count = 0
        for file in Self.documents {
            for example in try Self.examples(in: file) {
                count += 1
                XCTAssertTrue(["sh", "console"].contains(example.language), "\(example.place): use ```sh (commands) or ```console ($ commands and output)")
                if let reason = example.notRun { XCTAssertFalse(reason.isEmpty, "\(example.place): say why it is not run") }
            }
        }
        XCTAssertGreaterThan(count, 5)
    }

    // MARK: Running them

    private var folder: URL!
    private var services: TestServices!
    override func tearDown() {
        services?.stop()
        if let folder { TestEnvironment.removeFolder(folder) }
    }

    /// The files the examples name, made from the test PKI; the TSA URLs they show are the test
    /// TSA's, and the certificates' AIA OCSP URL (port 8788) is the test responder.
    private func sandbox() throws -> [String: String] {
        folder = try TestEnvironment.temporaryFolder("docs-examples")
        services = try TestServices(port: 8788)
        for (name, text) in [("contract.pdf", "%PDF-1.4 a contract\n"), ("annex.xlsx", "PK annex"), ("photo.jpg", "\u{FF}\u{D8} a photo"),
                             ("report.pdf", "%PDF-1.4 a report\n"), ("data.csv", "a,b\n1,2\n"), ("pin.txt", "test1234\n")] {
            try TestEnvironment.write(text, named: name, in: folder)
        }
        for (name, fixture) in [("signer.p12", "ec-p256.p12"), ("key.pem", "ec-p256.key.pem"), ("cert.pem", "ec-p256.cert.pem"),
                                ("issuing-ca.pem", "issuing-ca.cert.pem"), ("tsa-root.pem", "root.cert.pem"), ("root.cert.pem", "root.cert.pem")] {
            try FileManager.default.copyItem(atPath: TestEnvironment.pki(fixture), toPath: folder.appendingPathComponent(name).path)
        }
        let home = folder.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        // The password a person would type at the prompt.
        return ["PATH": TestEnvironment.productsDirectory.path + ":/usr/bin:/bin", "HOME": home.path, "TAMGA_PIN": "test1234", "LC_ALL": "C.UTF-8"]
    }

    /// The example's text with the services it names replaced by the test services.
    private func local(_ text: String) -> String {
        let tsa = services.url("tsa").absoluteString
        return text.replacingOccurrences(of: "https://tsa.example/tsa", with: tsa).replacingOccurrences(of: "https://tsa.example/", with: tsa)
    }

    /// Times and the folder's path, which differ from run to run.
    private func masked(_ text: String) -> String {
        text.replacingOccurrences(of: folder.path, with: "<folder>")
            .replacingOccurrences(of: folder.resolvingSymlinksInPath().path, with: "<folder>")
            .replacingOccurrences(of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"#, with: "<time>", options: .regularExpression)
    }

    /// True when `actual` lines match the shown ones (`…` any text, a `...` line any lines).
    static func matches(_ shown: [String], _ actual: [String]) -> Bool {
        guard let first = shown.first else { return actual.isEmpty }
        if first.trimmingCharacters(in: .whitespaces) == "..." {
            return (0...actual.count).contains { matches(Array(shown.dropFirst()), Array(actual.dropFirst($0))) }
        }
        guard let line = actual.first else { return false }
        let pattern = "^" + first.components(separatedBy: "…").map(NSRegularExpression.escapedPattern(for:)).joined(separator: ".*") + "$"
        return line.range(of: pattern, options: .regularExpression) != nil && matches(Array(shown.dropFirst()), Array(actual.dropFirst()))
    }

    private func shell(_ script: String, _ environment: [String: String]) throws -> TestEnvironment.ProcessResult {
        try TestEnvironment.run("/bin/sh", ["-c", "cd \"$0\" && " + script, folder.path], environment: environment)
    }

    func testTheExamplesRunAndPrintWhatTheDocumentsShow() throws {
        let environment = try sandbox()
        var ran = 0
        for file in Self.documents {
            for example in try Self.examples(in: file) where example.notRun == nil {
                ran += 1
                if example.language == "sh" {
                    let result = try shell("set -e\n" + local(example.lines.joined(separator: "\n")), environment)
                    XCTAssertEqual(result.status, 0, "\(example.place) failed:\n\(result.output)\(result.error)")
                    continue
                }
                // console: `$ COMMAND` lines, each followed by what it printed.
                var commands: [(command: String, shown: [String])] = []
                for line in example.lines {
                    if line.hasPrefix("$ ") { commands.append((String(line.dropFirst(2)), [])) } else if !commands.isEmpty { commands[commands.count - 1].shown.append(line) }
                }
                var script = ""
                for (number, entry) in commands.enumerated() {
                    script += "printf '@@%d@@\\n' \(number)\n\(local(entry.command)) 2>&1\n"
                }
                let result = try shell(script, environment)
                // Split at the markers (a command that printed nothing gives an empty part).
                let outputs = masked(result.output).components(separatedBy: "\n")
                    .split(omittingEmptySubsequences: false, whereSeparator: { $0.hasPrefix("@@") && $0.hasSuffix("@@") }).dropFirst().map { Array($0) }
                XCTAssertEqual(outputs.count, commands.count, "\(example.place): \(result.output)")
                for (entry, actual) in zip(commands, outputs) {
                    let shown = masked(local(entry.shown.joined(separator: "\n"))).components(separatedBy: "\n").filter { !$0.isEmpty }
                    let got = actual.filter { !$0.isEmpty }
                    XCTAssertTrue(Self.matches(shown, got), "\(example.place): $ \(entry.command)\nshown:\n\(shown.joined(separator: "\n"))\nprinted:\n\(got.joined(separator: "\n"))")
                }
            }
        }
        XCTAssertGreaterThan(ran, 0)
    }
}
