internal import CSQLite
import FoundationEssentials
import Glibc
import TamgaSupport

/// One SQLite file in WAL mode with `synchronous=FULL` (a committed transaction survives a
/// crash or `kill -9`), foreign keys on, a busy timeout, and the schema version in
/// `PRAGMA user_version`. One connection, serialised by a lock: the co-signer's transactions
/// are short.
final class SQLiteBackend: DatabaseBackend, @unchecked Sendable {  // unchecked: `lock` guards the connection
    private let connection: OpaquePointer
    private let lock = Lock(recursive: true)
    /// How many `transaction` calls are open on this thread's turn of the lock.
    private var depth = 0

    /// Opens (creating) `path`.
    init(path: String) throws {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            throw DatabaseError(code: status, message: "\(path): \(message)")
        }
        connection = handle
        sqlite3_busy_timeout(handle, 5000)
        chmod(path, 0o600)
        let mode = try Self.switchingToWAL { try query("PRAGMA journal_mode=WAL", []).first?.first?.text }
        guard mode == "wal" else { throw DatabaseError(code: 0, message: "WAL mode refused (\(mode ?? "?"))") }
        _ = try execute("PRAGMA synchronous=FULL", [])
        _ = try execute("PRAGMA foreign_keys=ON", [])
    }

    deinit { sqlite3_close_v2(connection) }

    /// Runs `body` (the journal-mode switch) again while SQLite says the database is busy, for
    /// up to the busy timeout. The switch from a new file's rollback journal to WAL needs an
    /// exclusive lock and fails at once when another connection holds any lock, without
    /// calling the busy handler: two instances starting together on one new database lost
    /// one of them to "database is locked" (about one start in three here).
    static func switchingToWAL<T>(timeout: Double = 5, _ body: () throws -> T) throws -> T {
        var waited = 0.0, pause = 0.002
        while true {
            do {
                return try body()
            } catch let error as DatabaseError where error.code & 0xFF == SQLITE_BUSY && waited < timeout {
                usleep(useconds_t(pause * 1_000_000))
                waited += pause
                pause = min(pause * 2, 0.1)
            }
        }
    }

    func migrate(_ migrations: [Migration]) throws -> Int {
        let version = try schemaVersion()
        guard version <= migrations.count else {
            throw DatabaseError(
                code: 0,
                message: "the database has schema version \(version), newer than this program's \(migrations.count)",
                kind: .schemaNewer)
        }
        var applied = 0
        for (index, migration) in migrations.enumerated().dropFirst(version) {
            try transaction {
                // Read again under the write lock: another instance starting on the same new
                // database at the same moment may have applied this migration meanwhile.
                guard try schemaVersion() == index else { return }
                try executeScript(migration.sqlite)
                _ = try execute("PRAGMA user_version = \(index + 1)", [])
                applied += 1
            }
        }
        return applied
    }

    func schemaVersion() throws -> Int { Int(try query("PRAGMA user_version", []).first?.first?.integer ?? 0) }

    private func failure(_ status: Int32) -> DatabaseError {
        DatabaseError(code: status, message: String(cString: sqlite3_errmsg(connection)))
    }

    func executeScript(_ sql: String) throws {
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

    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        try lock.withLock {
            _ = try run(sql, parameters)
            return Int(sqlite3_changes(connection))
        }
    }

    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [[SQLValue]] {
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
            case .blob(let v):
                status = v.withUnsafeBytes { csqlite_bind_blob(statement, index, $0.baseAddress, Int32($0.count)) }
            }
            guard status == SQLITE_OK else { throw failure(status) }
        }
        var rows: [[SQLValue]] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw failure(step) }
            rows.append(
                (0..<sqlite3_column_count(statement)).map { column in
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

    /// `BEGIN IMMEDIATE` … `COMMIT`, rolled back if `body` throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock {
            // Nested calls (a store method inside a larger transaction) become savepoints, so
            // the outer transaction stays all-or-nothing.
            let savepoint = "nested\(depth)"
            _ = try execute(depth == 0 ? "BEGIN IMMEDIATE" : "SAVEPOINT \(savepoint)", [])
            depth += 1
            defer { depth -= 1 }
            do {
                let result = try body()
                _ = try execute(depth == 1 ? "COMMIT" : "RELEASE \(savepoint)", [])
                return result
            } catch {
                _ = try? execute(depth == 1 ? "ROLLBACK" : "ROLLBACK TO \(savepoint)", [])
                if depth > 1 { _ = try? execute("RELEASE \(savepoint)", []) }
                throw error
            }
        }
    }

    func withoutSync<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock {
            // Inside a transaction, that transaction's commit decides.
            guard depth == 0 else { return try body() }
            _ = try execute("PRAGMA synchronous=NORMAL", [])
            let result = Result { try body() }
            _ = try execute("PRAGMA synchronous=FULL", [])
            return try result.get()
        }
    }
}
