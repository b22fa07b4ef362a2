/// A wrong command line; the message says what to type instead.
public struct UsageError: Error, CustomStringConvertible, Equatable {
    public let description: String
    init(_ message: String) { description = message }
}

/// The arguments of one subcommand, parsed against the options it declares. Options may
/// come before or after positionals; `--` ends options; `--name=value` and `--name value` both work.
struct ParsedArguments {
    private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// The words as given, for what reports the exact command (`compare --report`).
    let words: [String]

    /// - Parameters:
    ///   - flags: options without a value (`--json`).
    ///   - options: options with a value (`--trust FILE`); each may repeat.
    init(_ arguments: [String], flags allowedFlags: Set<String>, options allowedOptions: Set<String>) throws {
        words = arguments
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inlineValue: String? = nil
            if let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inlineValue = String(argument[argument.index(after: eq)...])
            }
            if allowedFlags.contains(name) {
                guard inlineValue == nil else { throw UsageError("\(name) takes no value") }
                flags.insert(name)
            } else if allowedOptions.contains(name) {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    guard index < arguments.count else { throw UsageError("\(name) needs a value") }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else {
                throw UsageError("unknown option \(name)")
            }
        }
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }
    func value(_ option: String) -> String? { values[option]?.last }
    func all(_ option: String) -> [String] { values[option] ?? [] }
}
