import Foundation
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// `tamga help --completion bash|zsh`, as a shell runs it: the bash script is sourced into a real
/// bash and asked what completes each command line, for every command and every option the
/// command tables hold; the zsh script must parse in a real zsh and name every command.
final class ShellCompletionTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    private func script(_ shell: String) throws -> String {
        let result = try TestEnvironment.run(binary, ["help", "--completion", shell])
        XCTAssertEqual(result.status, 0, result.error)
        return result.output
    }

    /// What bash's completion offers for each line (the words before the cursor, then the one at
    /// it), one line of replies per case, run in `folder`/files.
    private func bashReplies(_ script: String, _ cases: [[String]], in folder: URL) throws -> [[String]] {
        let path = try TestEnvironment.write(script, named: "tamga.bash", in: folder)
        var program = "source \(path)\ncd \(folder.path)/files\n"
        for words in cases {
            let quoted = (["tamga"] + words).map { "'\($0)'" }.joined(separator: " ")
            program +=
                "COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count); COMPREPLY=(); _tamga; echo \"${COMPREPLY[*]}\"\n"
        }
        let result = try TestEnvironment.run("/bin/bash", ["--norc", "-c", program])
        XCTAssertEqual(result.status, 0, result.error)
        return result.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            $0.split(separator: " ").map(String.init).sorted()
        }
    }

    func testBashCompletesEveryCommandAndEveryOptionOfIt() throws {
        let folder = try TestEnvironment.temporaryFolder("completion")
        defer { TestEnvironment.removeFolder(folder) }
        let files = folder.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try TestEnvironment.write("x", named: "root.pem", in: files)
        let bash = try script("bash")
        let commands = TamgaCommandLine.commands
        var cases: [[String]] = [
            [""], ["container", "c"], ["sign", "--rs"], ["verify", "--trust", ""], ["verify", "r"],
            ["help", "--c"], ["nonsense", "-"],
        ]
        var expected: [[String]] = [
            ShellCompletion.firstWords(commands).sorted(), ["create"], ["--rsa-pss"], ["root.pem"], ["root.pem"],
            ["--completion"], [],
        ]
        for command in commands {
            cases.append(command.path + ["-"])
            expected.append(command.flags.union(command.options).union(["--help"]).sorted())
        }
        for (group, subcommands) in ShellCompletion.groups(commands) {
            cases.append([group, ""])
            expected.append(subcommands.sorted())
        }
        let replies = try bashReplies(bash, cases, in: folder)
        XCTAssertEqual(replies.count, cases.count)
        for (index, words) in cases.enumerated() where index < replies.count {
            XCTAssertEqual(replies[index], expected[index], "tamga \(words.joined(separator: " "))<TAB>")
        }
        XCTAssertTrue(expected.contains(["--rsa-pss"]) && ShellCompletion.groups(commands).count >= 6)
    }

    func testZshParsesTheScriptAndItNamesEveryCommand() throws {
        let zsh = try script("zsh")
        XCTAssertTrue(zsh.hasPrefix("#compdef tamga\n"))
        for command in TamgaCommandLine.commands {
            XCTAssertTrue(zsh.contains("'\(command.path.joined(separator: " "))') flags=("), "\(command.path)")
        }
        let folder = try TestEnvironment.temporaryFolder("completion-zsh")
        defer { TestEnvironment.removeFolder(folder) }
        let path = try TestEnvironment.write(zsh, named: "_tamga", in: folder)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") else {
            throw XCTSkip("zsh is not installed (make test installs it)")
        }
        let parsed = try TestEnvironment.run("/usr/bin/zsh", ["-n", path])
        XCTAssertEqual(parsed.status, 0, parsed.error)
    }

    func testAShellTamgaHasNoScriptForIsAUsageError() throws {
        let result = try TestEnvironment.run(binary, ["help", "--completion", "fish"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.error.contains("takes bash or zsh"), result.error)
    }
}
