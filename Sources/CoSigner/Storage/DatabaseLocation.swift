/// What `--db` names: a SQLite file, or a PostgreSQL server as a libpq connection URI
/// (`postgresql://user:password@host:port/dbname?…` or `postgres://…`). A URI's password is
/// never printed: `redacted` is what errors, logs and `--json` show.
public enum DatabaseLocation {
    /// Compared by bytes, as libpq does: `hasPrefix` compares Characters, and a combining mark
    /// right after "//" would make "postgresql://…" look like a file name.
    public static func isPostgreSQL(_ location: String) -> Bool {
        let lower = location.lowercased().utf8
        return lower.starts(with: "postgresql://".utf8) || lower.starts(with: "postgres://".utf8)
    }

    /// The location with any password replaced by `***`: the one in the user part
    /// (`user:secret@`) and any `password=` parameter. A file path is returned as it is.
    /// Parsed by Unicode scalars, as libpq parses bytes: a combining mark after ":" or "@"
    /// must not hide the delimiter (Characters would merge the two into one grapheme).
    public static func redacted(_ location: String) -> String {
        guard isPostgreSQL(location) else { return location }
        let scalars = Array(location.unicodeScalars)
        guard
            let schemeEnd = (0..<max(scalars.count - 2, 0)).first(where: {
                scalars[$0] == ":" && scalars[$0 + 1] == "/" && scalars[$0 + 2] == "/"
            })
        else {
            return location
        }
        let start = schemeEnd + 3
        // The authority ends at the first "/" or "?"; its user part at its last "@".
        let authorityEnd = scalars[start...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? scalars.endIndex
        var output = Array(scalars[..<start])
        var authority = Array(scalars[start..<authorityEnd])
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            authority = Array(authority[...colon]) + Array("***".unicodeScalars) + Array(authority[at...])
        }
        output += authority
        var tail = Array(scalars[authorityEnd...])
        if let question = tail.firstIndex(of: "?") {
            var parameters: [[Unicode.Scalar]] = []
            var current: [Unicode.Scalar] = []
            for scalar in tail[(question + 1)...] {
                if scalar == "&" {
                    parameters.append(current)
                    current = []
                } else {
                    current.append(scalar)
                }
            }
            parameters.append(current)
            let cleaned = parameters.map { parameter -> [Unicode.Scalar] in
                String(String.UnicodeScalarView(parameter)).lowercased().hasPrefix("password=")
                    ? Array("password=***".unicodeScalars) : parameter
            }
            tail = Array(tail[...question]) + Array(cleaned.joined(separator: ["&"]))
        }
        output += tail
        return String(String.UnicodeScalarView(output))
    }

    /// The passwords a URI carries (in the user part and as `password=`), to scrub from the
    /// messages of the library that parsed it.
    static func passwords(in location: String) -> [String] {
        guard isPostgreSQL(location), let scheme = location.unicodeScalars.firstRange(of: "://".unicodeScalars) else {
            return []
        }
        let rest = location.unicodeScalars[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var found: [String] = []
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            found.append(String(authority[authority.index(after: colon)..<at]))
        }
        let tail = rest[authorityEnd...]
        if let question = tail.firstIndex(of: "?") {
            for parameter in String(tail[tail.index(after: question)...]).unicodeScalars.split(separator: "&")
            where String(String.UnicodeScalarView(parameter)).lowercased().hasPrefix("password=") {
                found.append(String(String.UnicodeScalarView(parameter.dropFirst("password=".count))))
            }
        }
        return found.filter { !$0.isEmpty }
    }
}
