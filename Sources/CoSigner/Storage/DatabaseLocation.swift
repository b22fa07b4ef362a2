/// What `--db` names: a SQLite file, or a PostgreSQL server as a libpq connection URI
/// (`postgresql://user:password@host:port/dbname?…` or `postgres://…`). A URI's password is
/// never printed: `redacted` is what errors, logs and `--json` show.
public enum DatabaseLocation {
    public static func isPostgreSQL(_ location: String) -> Bool {
        let lower = location.lowercased()
        return lower.hasPrefix("postgresql://") || lower.hasPrefix("postgres://")
    }

    /// The location with any password replaced by `***`: the one in the user part
    /// (`user:secret@`) and any `password=` parameter. A file path is returned as it is.
    public static func redacted(_ location: String) -> String {
        guard isPostgreSQL(location), let scheme = location.range(of: "://") else { return location }
        let rest = location[scheme.upperBound...]
        // The authority ends at the first "/" or "?"; its user part at its last "@".
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            authority = String(authority[..<colon]) + ":***" + String(authority[at...])
        }
        var tail = String(rest[authorityEnd...])
        if let question = tail.firstIndex(of: "?") {
            let parameters = tail[tail.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { parameter in
                parameter.lowercased().hasPrefix("password=") ? "password=***" : String(parameter)
            }
            tail = String(tail[..<question]) + "?" + parameters.joined(separator: "&")
        }
        return String(location[..<scheme.upperBound]) + authority + tail
    }
}
