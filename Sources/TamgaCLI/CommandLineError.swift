/// What the command line itself refuses (beyond a wrong command line, `UsageError`): folders it
/// cannot create, a configuration file it cannot use. Codes are stable (docs/cli.md).
public enum CommandLineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A folder tamga keeps its files in cannot be created or written: `remedy` says what to set.
    case folderNotWritable(path: String, holds: String, reason: String, remedy: String)
    /// `$XDG_CONFIG_HOME/tamga/config.json` (or `--config FILE`) is not what tamga reads.
    case configurationMalformed(file: String, key: String?, problem: String)

    public var code: String {
        switch self {
        case .folderNotWritable: "folder-not-writable"
        case .configurationMalformed: "config-malformed"
        }
    }

    public var description: String {
        switch self {
        case let .folderNotWritable(path, holds, reason, remedy):
            "Cannot create or write \(path) (\(reason)); tamga keeps \(holds) there. \(remedy)"
        case let .configurationMalformed(file, key, problem):
            "The configuration file \(file) cannot be used: \(key.map { "\"\($0)\" " } ?? "")\(problem). Correct or remove it; "
                + "command-line options override it (docs/cli.md, Configuration)."
        }
    }
}
