import ASiC
import Foundation

/// What a command needs from the process: output streams and the environment.
public struct CommandContext: Sendable {
    public let terminal: Terminal
    public let environment: [String: String]
    public init(terminal: Terminal, environment: [String: String]) {
        self.terminal = terminal
        self.environment = environment
    }

    /// Locks `container` for a whole read–change–rename (`ContainerLock`), saying on stderr when
    /// another tamga holds it. Keep the lock alive until the change is renamed into place.
    func lockContainer(_ container: String) throws -> ContainerLock {
        try ContainerLock(containerPath: container) {
            terminal.error("tamga: waiting for another tamga that is changing \(TamgaCommandLine.printable(container))")
        }
    }
}

/// One `tamga` subcommand: its help, the options it takes, and what it does.
protocol Command: Sendable {
    /// The words that select it, e.g. `["container", "create"]`.
    static var path: [String] { get }
    static var abstract: String { get }
    /// The full help text after the usage line.
    static var usage: String { get }
    static var help: String { get }
    static var flags: Set<String> { get }
    static var options: Set<String> { get }
    init(_ arguments: ParsedArguments) throws
    func run(_ context: CommandContext) async throws -> ExitCode
}

extension Command {
    static var helpText: String {
        "Usage: tamga \(path.joined(separator: " ")) \(usage)\n\n\(abstract)\n\n\(help)\n\n\(optionTable)"
    }

    /// Every option the command accepts, from the very sets it is parsed with, so that the help
    /// cannot leave one out (docs/cli.md's "Options by command" is checked against the same).
    static var optionTable: String {
        let entries = flags.union(options).sorted { $0.trimmingCharacters(in: ["-"]).lowercased() < $1.trimmingCharacters(in: ["-"]).lowercased() }
            .map { options.contains($0) ? "\($0) VALUE" : $0 } + ["--help"]
        var lines: [String] = []
        var line = "All options:"
        for entry in entries {
            if line.count + entry.count + 2 > 96 { lines.append(line + ","); line = "  " + entry } else { line += (line.hasSuffix(":") ? " " : ", ") + entry }
        }
        return (lines + [line]).joined(separator: "\n")
    }
}
