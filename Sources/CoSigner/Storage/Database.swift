internal import CSQLite
import Foundation

/// A value in or out of SQLite.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])

    public var integer: Int64? { if case .integer(let v) = self { v } else { nil } }
    public var text: String? { if case .text(let v) = self { v } else { nil } }
    public var blob: [UInt8]? { if case .blob(let v) = self { v } else { nil } }
}

/// What went wrong with the database, with SQLite's own message.
public struct DatabaseError: Error, CustomStringConvertible, Equatable {
    public let code: Int32
    public let message: String
    public var description: String { "database error \(code): \(message)" }
}

/// One SQLite file in WAL mode with `synchronous=FULL` (a committed transaction survives a
/// crash or `kill -9`), foreign keys on, a busy timeout, and a versioned schema migrated in
/// order (`PRAGMA user_version`). One connection, serialised by a lock: the co-signer's
/// transactions are short.
public final class Database: @unchecked Sendable {   // unchecked: `lock` guards the connection
    private let connection: OpaquePointer
    private let lock = NSRecursiveLock()
    /// How many `transaction` calls are open on this thread's turn of the lock.
    private var depth = 0
    public let path: String

    /// Opens (creating) `path` and applies the migrations not yet applied, each in its own
    /// transaction; migration `i` brings the schema to version `i + 1`.
    public init(path: String, migrations: [String]) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            throw DatabaseError(code: status, message: "\(path): \(message)")
        }
        connection = handle
        self.path = path
        sqlite3_busy_timeout(handle, 5000)
        chmod(path, 0o600)
        let mode = try query("PRAGMA journal_mode=WAL").first?.first?.text
        guard mode == "wal" else { throw DatabaseError(code: 0, message: "WAL mode refused (\(mode ?? "?"))") }
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA foreign_keys=ON")
        let version = Int(try query("PRAGMA user_version").first?.first?.integer ?? 0)
        guard version <= migrations.count else {
            throw DatabaseError(code: 0, message: "the database has schema version \(version), newer than this program's \(migrations.count)")
        }
        for (index, migration) in migrations.enumerated().dropFirst(version) {
            try transaction {
                // Read again under the write lock: another instance starting on the same new
                // database at the same moment may have applied this migration meanwhile.
                guard Int(try query("PRAGMA user_version").first?.first?.integer ?? 0) == index else { return }
                try executeScript(migration)
                try execute("PRAGMA user_version = \(index + 1)")
            }
        }
    }

    deinit { sqlite3_close_v2(connection) }

    public var schemaVersion: Int { Int(((try? query("PRAGMA user_version"))?.first?.first?.integer) ?? 0) }

    private func failure(_ status: Int32) -> DatabaseError {
        DatabaseError(code: status, message: String(cString: sqlite3_errmsg(connection)))
    }

    /// Several statements without parameters (a migration).
    public func executeScript(_ sql: String) throws {
        try lock.withLock {
            var message: UnsafeMutablePointer<CChar>?
            let status = sqlite3_exec(connection, sql, nil, nil, &message)
            if status != SQLITE_OK {
                let text = message.map { String(cString: $0) } ?? "failed"
                sqlite3_free(message)
                throw DatabaseError(code: status, message: text)
            }
        }
    }

    /// Runs one statement; returns the number of rows it changed.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [SQLValue] = []) throws -> Int {
        try lock.withLock {
            _ = try run(sql, parameters)
            return Int(sqlite3_changes(connection))
        }
    }

    /// Runs one statement and returns its rows.
    public func query(_ sql: String, _ parameters: [SQLValue] = []) throws -> [[SQLValue]] {
        try lock.withLock { try run(sql, parameters) }
    }

    private func run(_ sql: String, _ parameters: [SQLValue]) throws -> [[SQLValue]] {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
        defer { sqlite3_finalize(statement) }
        for (offset, value) in parameters.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let v): status = sqlite3_bind_int64(statement, index, v)
            case .text(let v): status = csqlite_bind_text(statement, index, v, -1)
            case .blob(let v): status = v.withUnsafeBytes { csqlite_bind_blob(statement, index, $0.baseAddress, Int32($0.count)) }
            }
            guard status == SQLITE_OK else { throw failure(status) }
        }
        var rows: [[SQLValue]] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw failure(step) }
            rows.append((0..<sqlite3_column_count(statement)).map { column in
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
                case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, column)))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob([]) }
                    return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
                default: return .null
                }
            })
        }
        return rows
    }

    /// `BEGIN IMMEDIATE` … `COMMIT`, rolled back if `body` throws: the state transitions of the
    /// co-signer are made atomic this way.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock {
            // Nested calls (a store method inside a larger transaction) become savepoints, so
            // the outer transaction stays all-or-nothing.
            let savepoint = "nested\(depth)"
            try execute(depth == 0 ? "BEGIN IMMEDIATE" : "SAVEPOINT \(savepoint)")
            depth += 1
            defer { depth -= 1 }
            do {
                let result = try body()
                try execute(depth == 1 ? "COMMIT" : "RELEASE \(savepoint)")
                return result
            } catch {
                _ = try? execute(depth == 1 ? "ROLLBACK" : "ROLLBACK TO \(savepoint)")
                if depth > 1 { _ = try? execute("RELEASE \(savepoint)") }
                throw error
            }
        }
    }
}

extension DatabaseError {
    /// A UNIQUE, CHECK or foreign-key constraint refused the statement (SQLITE_CONSTRAINT):
    /// for a compare-and-set, another writer got there first.
    public var isConstraintViolation: Bool { code == 19 }
}

extension Database {
    /// Runs `body`'s statements with `synchronous=NORMAL`: their commits survive the process being
    /// killed (they are in the WAL, in the system's cache) but not a power cut, and cost no disk
    /// sync. Only for records whose loss in a power cut is harmless (used attestation nonces);
    /// everything else keeps `synchronous=FULL`. Under the connection's lock, so no other
    /// statement commits meanwhile; inside a transaction, that transaction's commit decides.
    public func withoutSync<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock {
            guard depth == 0 else { return try body() }
            try execute("PRAGMA synchronous=NORMAL")
            let result = Result { try body() }
            try execute("PRAGMA synchronous=FULL")
            return try result.get()
        }
    }
}
