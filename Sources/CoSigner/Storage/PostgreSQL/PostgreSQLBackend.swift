import FoundationEssentials
import Glibc
import TamgaSupport

/// A PostgreSQL server through libpq: a small pool of connections (the HTTP server runs
/// handlers on several threads), each transaction pinned to one connection for its thread,
/// `SERIALIZABLE` so that a transaction means what SQLite's `BEGIN IMMEDIATE` means. The schema
/// version lives in the one-row table `tamga_schema`; migrations hold an advisory lock, so two
/// instances starting at once migrate once.
final class PostgreSQLBackend: DatabaseBackend, @unchecked Sendable {  // unchecked: `pool` guards `idle` and `open`
    private let uri: String
    private let pool = Condition()
    private var idle: [PGConnection] = []
    /// Connections made and not yet dropped (idle or lent out).
    private var open = 0
    private let limit: Int
    /// Where a thread keeps its transaction's connection, one key per backend so two databases
    /// on one thread do not mix.
    private let pinnedConnection = ThreadLocal<Pinned>()
    /// pg_advisory_lock's key for migrating: "tamga" in ASCII.
    static let migrationLock: Int64 = 0x74_61_6D_67_61
    /// How many times a transaction that collided with another is run in all. SERIALIZABLE
    /// aborts one of two transactions whose reads and writes overlap, and on small tables (where
    /// PostgreSQL scans and locks the whole relation) concurrent enrollments overlap often: with
    /// three tries a few milliseconds apart, eight threads writing disjoint rows that way lost 3-5
    /// of 80 transactions (each a 503). Eight tries with a growing, jittered pause (half a second
    /// in all at the most) ride that out; a transaction that still loses is answered 503 and the
    /// client may try again.
    static let attempts = 8

    /// The pause before try `attempt` (2-based): random, so that the losers do not meet again,
    /// and doubling from up to 4 ms to up to 256 ms.
    static func collisionPause(before attempt: Int) -> UInt32 {
        let ceiling = UInt32(2_000) << UInt32(min(max(attempt - 1, 1), 7))
        return UInt32.random(in: 1_000...ceiling)
    }

    private final class Pinned {
        let connection: PGConnection
        var depth = 0
        init(_ connection: PGConnection) { self.connection = connection }
    }

    init(uri: String, connections: Int = 8) throws {
        self.uri = uri
        limit = connections
        // Connect now: a wrong URI or a server that is down fails at start, not at the first request.
        checkin(try checkout())
    }

    // MARK: The pool

    private func checkout() throws -> PGConnection {
        pool.lock()
        let deadline = Date().addingTimeInterval(10)
        while true {
            // A connection the server closed while it was idle (a restart) is dropped here,
            // so the first request after the server is back does not fail on it.
            while let connection = idle.popLast() {
                if connection.isUsable {
                    pool.unlock()
                    return connection
                }
                open -= 1
            }
            if open < limit { break }
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0, pool.wait(seconds: remaining) else {
                pool.unlock()
                throw DatabaseError(
                    code: 0, message: "all \(limit) PostgreSQL connections stayed busy for 10 s", kind: .unavailable)
            }
        }
        open += 1
        pool.unlock()
        do {
            return try PGConnection(uri: uri)
        } catch {
            pool.lock()
            open -= 1
            pool.signal()
            pool.unlock()
            throw error
        }
    }

    /// Returns a connection; one that is broken or still inside a transaction is closed instead.
    private func checkin(_ connection: PGConnection) {
        pool.lock()
        if connection.isIdle { idle.append(connection) } else { open -= 1 }
        pool.signal()
        pool.unlock()
    }

    private var pinned: Pinned? { pinnedConnection.value }

    /// The thread's transaction connection, or one from the pool for this one statement.
    private func withConnection<T>(_ body: (PGConnection) throws -> T) throws -> T {
        if let pinned { return try body(pinned.connection) }
        let connection = try checkout()
        defer { checkin(connection) }
        return try body(connection)
    }

    // MARK: DatabaseBackend

    func migrate(_ migrations: [Migration]) throws -> Int {
        let connection = try checkout()
        defer { checkin(connection) }
        _ = try connection.run("SELECT pg_advisory_lock($1)", [.integer(Self.migrationLock)])
        defer { _ = try? connection.run("SELECT pg_advisory_unlock($1)", [.integer(Self.migrationLock)]) }
        try connection.runScript(
            """
            CREATE TABLE IF NOT EXISTS tamga_schema (id INTEGER PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL);
            INSERT INTO tamga_schema (id, version) VALUES (1, 0) ON CONFLICT DO NOTHING;
            """)
        let version = try Self.version(on: connection)
        guard version <= migrations.count else {
            throw DatabaseError(
                code: 0,
                message: "the database has schema version \(version), newer than this program's \(migrations.count)",
                kind: .schemaNewer)
        }
        for (index, migration) in migrations.enumerated().dropFirst(version) {
            try connection.runScript("BEGIN")
            do {
                try connection.runScript(migration.postgresql)
                _ = try connection.run(
                    "UPDATE tamga_schema SET version = $1 WHERE id = 1", [.integer(Int64(index + 1))])
                try connection.runScript("COMMIT")
            } catch {
                _ = try? connection.runScript("ROLLBACK")
                throw error
            }
        }
        return migrations.count - version
    }

    func schemaVersion() throws -> Int { try withConnection { try Self.version(on: $0) } }

    private static func version(on connection: PGConnection) throws -> Int {
        Int(try connection.run("SELECT version FROM tamga_schema WHERE id = 1", []).rows.first?.first?.integer ?? 0)
    }

    func executeScript(_ sql: String) throws { try withConnection { try $0.runScript(sql) } }

    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int {
        let statement = PostgreSQLPlaceholders.rewrite(sql)
        return try withConnection { try $0.run(statement, parameters).changed }
    }

    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [[SQLValue]] {
        let statement = PostgreSQLPlaceholders.rewrite(sql)
        return try withConnection { try $0.run(statement, parameters).rows }
    }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        if let pinned {
            // Nested: a savepoint, so the outer transaction stays all-or-nothing.
            let savepoint = "nested\(pinned.depth)"
            try pinned.connection.runScript("SAVEPOINT \(savepoint)")
            pinned.depth += 1
            defer { pinned.depth -= 1 }
            do {
                let result = try body()
                try pinned.connection.runScript("RELEASE SAVEPOINT \(savepoint)")
                return result
            } catch {
                _ = try? pinned.connection.runScript("ROLLBACK TO SAVEPOINT \(savepoint)")
                _ = try? pinned.connection.runScript("RELEASE SAVEPOINT \(savepoint)")
                throw error
            }
        }
        var attempt = 1
        while true {
            do {
                return try once(body)
            } catch let error as DatabaseError where error.isCollision && attempt < Self.attempts {
                // Rolled back whole: nothing of it was written, so it may run again.
                attempt += 1
                usleep(Self.collisionPause(before: attempt))
            }
        }
    }

    /// `body`'s statements each committed by itself (READ COMMITTED, not one SERIALIZABLE
    /// transaction: a nonce insert must not collide with its neighbours), on one connection
    /// with `synchronous_commit = off`. Inside a transaction, that transaction decides.
    func withoutSync<T>(_ body: () throws -> T) throws -> T {
        if pinned != nil { return try body() }
        return try pinningConnection { connection in
            try connection.runScript("SET synchronous_commit = off")
            defer { _ = try? connection.runScript("RESET synchronous_commit") }
            return try body()
        }
    }

    /// A connection from the pool that every statement on this thread uses until `body` returns.
    private func pinningConnection<T>(_ body: (PGConnection) throws -> T) throws -> T {
        let connection = try checkout()
        pinnedConnection.value = Pinned(connection)
        defer {
            pinnedConnection.value = nil
            checkin(connection)
        }
        return try body(connection)
    }

    private func once<T>(_ body: () throws -> T) throws -> T {
        try pinningConnection { connection in try transaction(on: connection, body) }
    }

    private func transaction<T>(on connection: PGConnection, _ body: () throws -> T) throws -> T {
        try connection.runScript("BEGIN ISOLATION LEVEL SERIALIZABLE")
        do {
            let result = try body()
            // A statement that failed and was caught inside `body` aborted the transaction:
            // PostgreSQL answers its COMMIT with a ROLLBACK, not an error. Say so instead of
            // reporting success for writes that did not happen.
            guard !connection.inFailedTransaction else {
                throw DatabaseError(
                    code: 0, message: "a statement of the transaction failed, so none of it was written")
            }
            try connection.runScript("COMMIT")
            return result
        } catch {
            // A lost connection cannot roll back; the server ends its transaction, and the
            // connection is dropped at checkin.
            _ = try? connection.runScript("ROLLBACK")
            throw error
        }
    }
}
