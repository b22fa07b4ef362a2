import Glibc

/// The process's environment variables, read from `environ`: what
/// `ProcessInfo.processInfo.environment` answers, without building the rest of `ProcessInfo`
/// (host name, arguments, locale), which took a good part of a short command's start-up.
public enum ProcessEnvironment {
    /// Every `NAME=value` entry; the first of two with one name wins, as getenv answers.
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        // clearenv() leaves environ NULL, which Swift imports as a non-optional pointer.
        var entry = environ
        guard Int(bitPattern: entry) != 0 else { return result }
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
                let name = String(text[..<equals])
                if result[name] == nil { result[name] = String(text[text.index(after: equals)...]) }
            }
            entry += 1
        }
        return result
    }
}
