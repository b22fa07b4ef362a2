import ASiC
import FoundationEssentials
import Glibc
import TamgaSupport

/// What a command needs from the process: output streams and the environment.
public struct CommandContext: Sendable {
    public let terminal: Terminal
    private let variables: EnvironmentVariables
    /// The environment variables the command sees.
    public var environment: [String: String] { variables.value }

    public init(terminal: Terminal, environment: [String: String]) {
        self.terminal = terminal
        variables = EnvironmentVariables(environment)
    }

    /// The process's own environment, read when a command first asks for it: `readers` and
    /// `--version` never do, and building the dictionary is a tenth of their start-up.
    public init(processEnvironmentFor terminal: Terminal) {
        self.terminal = terminal
        variables = EnvironmentVariables(nil)
    }

    /// A fixed dictionary, or the process's read once on first use.
    private final class EnvironmentVariables: @unchecked Sendable {  // unchecked: `cached` behind `lock`
        private let lock = Lock()
        private var cached: [String: String]?
        init(_ fixed: [String: String]?) { cached = fixed }
        var value: [String: String] {
            lock.withLock {
                if let cached { return cached }
                let read = ProcessEnvironment.current()
                cached = read
                return read
            }
        }
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
    /// The same without Swift concurrency, for what answers at once (`readers`' listing); nil
    /// (the default) when the command needs `run`. Answering here saves the start of Swift
    /// concurrency's threads, a good part of such a command's time.
    func runWithoutConcurrency(_ context: CommandContext) throws -> ExitCode?
}

extension Command {
    func runWithoutConcurrency(_ context: CommandContext) throws -> ExitCode? { nil }
}

extension Command {
    static var helpText: String {
        "Usage: tamga \(path.joined(separator: " ")) \(usage)\n\n\(abstract)\n\n\(help)\n\n\(optionTable)"
    }

    /// Every option the command accepts, from the very sets it is parsed with, so that the help
    /// cannot leave one out (docs/cli.md's "Options by command" is checked against the same).
    static var optionTable: String {
        let entries =
            flags.union(options).sorted {
                $0.trimming(where: { $0 == "-" }).lowercased() < $1.trimming(where: { $0 == "-" }).lowercased()
            }
            .map { options.contains($0) ? "\($0) VALUE" : $0 } + ["--help"]
        var lines: [String] = []
        var line = "All options:"
        for entry in entries {
            if line.count + entry.count + 2 > 96 {
                lines.append(line + ",")
                line = "  " + entry
            } else {
                line += (line.hasSuffix(":") ? " " : ", ") + entry
            }
        }
        return (lines + [line]).joined(separator: "\n")
    }
}
