/// Options every data-printing command accepts.
struct GlobalOptions {
    /// Print machine-readable JSON on stdout instead of text (schemas in docs/cli.md).
    var json = false
    /// No progress output.
    var quiet = false

    static let flags: Set<String> = ["--json", "--quiet", "-q"]

    init(_ arguments: ParsedArguments) {
        json = arguments.has("--json")
        quiet = arguments.has("--quiet") || arguments.has("-q")
    }
}
