import FoundationEssentials
import Glibc

/// The co-signer's database: one SQLite file (the embedded default) or a PostgreSQL server
/// (several co-signer instances sharing it), picked by what `url` names. The same calls, `?`
/// placeholders and `SQLValue`s for both; a versioned schema migrated in order on open.
public final class Database: Sendable {
    private let backend: any DatabaseBackend
    /// The file, or the PostgreSQL URI without its password (safe to print).
    public let path: String
    public let isPostgreSQL: Bool
    /// How many migrations this open applied (0 when the schema was current).
    public let appliedMigrations: Int

    /// Opens `url` — a file path (SQLite, created if missing) or `postgresql://…` /
    /// `postgres://…` (a libpq connection URI) — and applies the migrations not yet applied;
    /// migration `i` brings the schema to version `i + 1`. A schema newer than `migrations` is
    /// refused (`DatabaseError.Kind.schemaNewer`).
    public init(url: String, migrations: [Migration]) throws {
        if DatabaseLocation.isPostgreSQL(url) {
            backend = try PostgreSQLBackend(uri: url)
            isPostgreSQL = true
        } else {
            backend = try SQLiteBackend(path: url)
            isPostgreSQL = false
        }
        path = DatabaseLocation.redacted(url)
        appliedMigrations = try backend.migrate(migrations)
    }

    public convenience init(path: String, migrations: [Migration]) throws {
        try self.init(url: path, migrations: migrations)
    }

    /// Migrations that are the same SQL for both backends.
    public convenience init(path: String, migrations: [String]) throws {
        try self.init(url: path, migrations: migrations.map { Migration($0) })
    }

    public var schemaVersion: Int { (try? backend.schemaVersion()) ?? 0 }

    /// Several statements without parameters (a migration).
    public func executeScript(_ sql: String) throws { try backend.executeScript(sql) }

    /// Runs one statement; returns the number of rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [SQLValue] = []) throws -> Int {
        try backend.execute(sql, parameters)
    }

    /// Runs one statement and returns its rows.
    public func query(_ sql: String, _ parameters: [SQLValue] = []) throws -> [[SQLValue]] {
        try backend.query(sql, parameters)
    }

    /// All of `body`'s statements or none: the co-signer's state transitions are made atomic
    /// this way. Nested calls become savepoints, so the outer transaction stays all-or-nothing.
    /// On PostgreSQL (serializable) a transaction that collides with another is run again, up
    /// to three times in all, before failing `unavailable`: keep `body` to database work.
    public func transaction<T>(_ body: () throws -> T) throws -> T { try backend.transaction(body) }

    /// Runs `body`'s statements with a commit that waits for no disk sync: it survives the
    /// process being killed but not a power cut. Only for records whose loss in a power cut is
    /// harmless (used attestation nonces); everything else is committed durably. SQLite:
    /// `synchronous=NORMAL` for those statements, under the connection's lock. PostgreSQL: one
    /// transaction with `SET LOCAL synchronous_commit = off`.
    public func withoutSync<T>(_ body: () throws -> T) throws -> T { try backend.withoutSync(body) }
}

extension DatabaseError {
    /// A UNIQUE, CHECK or foreign-key constraint refused the statement (SQLITE_CONSTRAINT,
    /// PostgreSQL's class 23): for a compare-and-set, another writer got there first.
    public var isConstraintViolation: Bool { code == 19 || sqlState?.hasPrefix("23") == true }
}
