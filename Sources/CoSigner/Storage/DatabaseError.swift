/// What went wrong with the database, with the database's own message. `kind` says what the
/// caller can do: `unavailable` is worth retrying (the HTTP API answers 503
/// `database-unavailable`), `schemaNewer` needs a newer program.
public struct DatabaseError: Error, CustomStringConvertible, Equatable {
    public enum Kind: String, Sendable {
        /// A statement failed (a constraint, a defect).
        case failed
        /// The database cannot be reached, the connection was lost, or the transaction collided
        /// with another one (serialization failure, deadlock): nothing was written; try again.
        case unavailable
        /// The database's schema was made by a newer version of tamga.
        case schemaNewer
    }
    /// SQLite's result code (0 for PostgreSQL, whose SQLSTATE is in the message).
    public let code: Int32
    public let message: String
    public let kind: Kind
    /// PostgreSQL's SQLSTATE (`40001` a serialization failure, …), nil for SQLite.
    public let sqlState: String?

    public init(code: Int32, message: String, kind: Kind = .failed, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.kind = kind
        self.sqlState = sqlState
    }

    public var description: String {
        switch kind {
        case .failed: "database error \(code): \(message)"
        case .unavailable:
            "the database is unavailable: \(message); check that it is running and reachable, then try again"
        case .schemaNewer:
            "\(message): run the tamga version that made it (or a newer one), or restore a backup made for this version"
        }
    }

    /// Whether this failure leaves nothing written and may pass if tried again.
    public var isUnavailable: Bool { kind == .unavailable }

    /// A PostgreSQL transaction that lost to a concurrent one (serialization failure or
    /// deadlock): rolled back whole, so it may run again.
    public var isCollision: Bool { sqlState == "40001" || sqlState == "40P01" }
}
