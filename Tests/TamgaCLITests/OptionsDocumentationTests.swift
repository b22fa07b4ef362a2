import Foundation
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// Every option a command accepts (its `flags` and `options`, the table `ParsedArguments`
/// parses against) is in the command's built-in help and in docs/cli.md's "Options by
/// command", and those name no option the command refuses.
final class OptionsDocumentationTests: XCTestCase {
    /// The options a command accepts, `--help`/`-h` aside (every command takes them).
    static func accepted(_ command: any Command.Type) -> Set<String> { command.flags.union(command.options) }

    /// True when `text` holds `option` as a whole word (`--to` is not found in `--tool`).
    static func mentions(_ text: String, _ option: String) -> Bool {
        var rest = text[...]
        while let range = rest.range(of: option) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            let boundary: (Character?) -> Bool = { $0 == nil || !($0!.isLetter || $0!.isNumber || $0! == "-") }
            if boundary(before) && boundary(after) { return true }
            rest = text[range.upperBound...]
        }
        return false
    }

    func testTheBuiltInHelpNamesEveryOption() {
        for command in TamgaCommandLine.commands {
            let missing = Self.accepted(command).filter { !Self.mentions(command.helpText, $0) }.sorted()
            XCTAssertEqual(missing, [], "tamga \(command.path.joined(separator: " ")) --help does not name \(missing)")
        }
    }

    /// `- \`tamga PATH\`: \`--a\`, \`--b\`` lines of docs/cli.md's "Options by command".
    static func documented() throws -> [String: Set<String>] {
        let text = try String(
            contentsOf: TestEnvironment.repository.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        guard let start = text.range(of: "\n## Options by command\n") else { return [:] }
        let section = text[start.upperBound...].components(separatedBy: "\n## ").first ?? ""
        var table: [String: Set<String>] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("- `tamga ") {
            let parts = line.dropFirst(3).components(separatedBy: "`:")
            guard parts.count == 2 else { continue }
            let path = String(parts[0].dropFirst("tamga ".count))
            let options = parts[1].components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(
                \.element)
            table[path] = Set(options.filter { $0.hasPrefix("-") })
        }
        return table
    }

    func testDocsListEveryOptionOfEveryCommand() throws {
        let documented = try Self.documented()
        var expected: [String] = []
        for command in TamgaCommandLine.commands {
            let path = command.path.joined(separator: " ")
            let accepted = Self.accepted(command)
            expected.append("- `tamga \(path)`: " + accepted.sorted().map { "`\($0)`" }.joined(separator: ", "))
            XCTAssertEqual(documented[path], accepted, "docs/cli.md, Options by command: tamga \(path)")
        }
        XCTAssertEqual(
            Set(documented.keys), Set(TamgaCommandLine.commands.map { $0.path.joined(separator: " ") }),
            "commands listed that do not exist")
        if documented.isEmpty || testRun?.failureCount ?? 0 > 0 {
            print("expected lines:\n" + expected.joined(separator: "\n"))
        }
    }
}
