/// Options every data-printing command accepts.
struct GlobalOptions {
    /// Print machine-readable JSON on stdout instead of text (schemas in docs/cli.md).
    var json = false
    /// No progress output (and, for `verify`, one line per container).
    var quiet = false
    /// `-qq`: nothing but the exit code, for the commands that accept it (`verify`).
    var silent = false

    static let flags: Set<String> = ["--json", "--quiet", "-q"]

    init(_ arguments: ParsedArguments) {
        json = arguments.has("--json")
        silent = arguments.has("-qq")
        quiet = arguments.has("--quiet") || arguments.has("-q") || silent
    }
}
