import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

@testable import CoSigner
@testable import HTTPService

/// The PostgreSQL side of `Database` against a real server (`PostgreSQLRig`): migrations and
/// the schema version, values in and out, transactions, several threads and several instances.
final class PostgreSQLDatabaseTests: XCTestCase {
    let migrations = [
        Migration(
            sqlite: "CREATE TABLE items (id TEXT PRIMARY KEY, n INTEGER, data BLOB);",
            postgresql: "CREATE TABLE items (id TEXT PRIMARY KEY, n BIGINT, data BYTEA);"),
        "CREATE TABLE counters (id TEXT PRIMARY KEY, value BIGINT NOT NULL);",
    ]

    func testMigrationsApplyOnceInOrderAndANewerSchemaIsRefused() throws {
        let url = try PostgreSQLRig.shared.newDatabase()
        let first = try Database(url: url, migrations: Array(migrations.prefix(1)))
        XCTAssertTrue(first.isPostgreSQL)
        XCTAssertEqual(first.schemaVersion, 1)
        XCTAssertEqual(first.appliedMigrations, 1)
        let second = try Database(url: url, migrations: migrations)
        XCTAssertEqual(second.appliedMigrations, 1, "only the new one")
        XCTAssertEqual(second.schemaVersion, 2)
        XCTAssertEqual(try second.query("SELECT version FROM tamga_schema").first?.first, .integer(2))
        XCTAssertEqual(try Database(url: url, migrations: migrations).appliedMigrations, 0)
        XCTAssertThrowsError(try Database(url: url, migrations: Array(migrations.prefix(1)))) { error in
            XCTAssertEqual((error as? DatabaseError)?.kind, .schemaNewer)
        }
    }

    func testValuesComeBackAsTheyWentIn() throws {
        let database = try Database(url: PostgreSQLRig.shared.newDatabase(), migrations: migrations)
        let values: [(String, SQLValue, SQLValue)] = [
            ("min", .integer(.min), .blob([])), ("max", .integer(.max), .blob([0, 1, 255])),
            ("neg", .integer(-1), .null), ("ünïcode ' ? \"x\"", .null, .blob(Array(repeating: 7, count: 5000))),
        ]
        for (id, n, data) in values {
            try database.execute("INSERT INTO items (id, n, data) VALUES (?, ?, ?)", [.text(id), n, data])
        }
        for (id, n, data) in values {
            XCTAssertEqual(
                try database.query("SELECT id, n, data FROM items WHERE id = ?", [.text(id)]).first,
                [.text(id), n, data])
        }
        XCTAssertEqual(try database.query("SELECT COUNT(*) FROM items").first?.first, .integer(4))
        // A ? inside a literal is text; the placeholders around it are numbered past it.
        XCTAssertEqual(
            try database.query("SELECT ?, '?', ? /* ? */ -- ?\n", [.integer(1), .text("b")]).first,
            [.integer(1), .text("?"), .text("b")])
        XCTAssertEqual(
            try database.execute("UPDATE items SET n = 0 WHERE n IS NULL OR n < ?", [.integer(0)]), 3, "rows changed")
        // A NUL cannot be stored in PostgreSQL text: refused, never cut short.
        XCTAssertThrowsError(try database.execute("INSERT INTO items (id) VALUES (?)", [.text("a\u{0}b")]))
        XCTAssertEqual(try database.query("SELECT COUNT(*) FROM items WHERE id LIKE 'a%'").first?.first, .integer(0))
    }

    func testTransactionsAreAllOrNothingAndNestedOnesAreSavepoints() throws {
        let database = try Database(url: PostgreSQLRig.shared.newDatabase(), migrations: migrations)
        struct Abort: Error {}
        XCTAssertThrowsError(
            try database.transaction {
                try database.transaction { _ = try database.execute("INSERT INTO items (id) VALUES ('inner')") }
                try database.execute("INSERT INTO items (id) VALUES ('outer')")
                throw Abort()
            })
        XCTAssertEqual(try database.query("SELECT COUNT(*) FROM items").first?.first, .integer(0))
        try database.transaction {
            XCTAssertThrowsError(
                try database.transaction {
                    try database.execute("INSERT INTO items (id) VALUES ('inner')")
                    throw Abort()
                })
            try database.execute("INSERT INTO items (id) VALUES ('outer')")
        }
        XCTAssertEqual(try database.query("SELECT id FROM items").map { $0[0].text ?? "" }, ["outer"])
    }

    /// A statement that fails inside a transaction and is caught there aborts the whole
    /// PostgreSQL transaction, whose COMMIT then only rolls back: the transaction must throw,
    /// not report writes that did not happen. And the nonce writes of `withoutSync` each commit
    /// by themselves, outside any SERIALIZABLE transaction.
    func testATransactionWhoseStatementFailedThrowsInsteadOfCommittingNothing() throws {
        let database = try Database(url: PostgreSQLRig.shared.newDatabase(), migrations: migrations)
        try database.execute("INSERT INTO items (id) VALUES ('taken')")
        XCTAssertThrowsError(
            try database.transaction {
                try database.execute("INSERT INTO items (id) VALUES ('written')")
                XCTAssertThrowsError(try database.execute("INSERT INTO items (id) VALUES ('taken')")) { error in
                    XCTAssertTrue((error as? DatabaseError)?.isConstraintViolation ?? false, "\(error)")
                }
            }
        ) { error in
            XCTAssertTrue("\(error)".contains("none of it was written"), "\(error)")
        }
        XCTAssertEqual(try database.query("SELECT id FROM items ORDER BY id").map { $0[0].text ?? "" }, ["taken"])
        let inserted = try database.withoutSync {
            try database.execute("INSERT INTO items (id) VALUES ('fast') ON CONFLICT DO NOTHING")
        }
        XCTAssertEqual(inserted, 1)
        XCTAssertEqual(
            try database.withoutSync {
                try database.execute("INSERT INTO items (id) VALUES ('fast') ON CONFLICT DO NOTHING")
            }, 0)
        XCTAssertEqual(try database.query("SELECT count(*) FROM items").first?.first, .integer(2))
    }

    /// Read-then-write transactions on one row from eight threads: none is lost (serializable,
    /// a collision retried or reported `unavailable`, never half-applied).
    func testConcurrentReadModifyWriteTransactionsLoseNoUpdate() throws {
        let database = try Database(url: PostgreSQLRig.shared.newDatabase(), migrations: migrations)
        try database.execute("INSERT INTO counters (id, value) VALUES ('c', 0)")
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<15 {
                do {
                    try database.transaction {
                        let value =
                            try database.query("SELECT value FROM counters WHERE id = 'c'").first?.first?.integer
                            ?? -1000
                        usleep(500)  // widen the window between the read and the write
                        try database.execute("UPDATE counters SET value = ? WHERE id = 'c'", [.integer(value + 1)])
                    }
                    outcomes.add(success: true)
                } catch let error as DatabaseError where error.isUnavailable && error.isCollision {
                    outcomes.add(success: false)
                } catch {
                    XCTFail("unexpected \(error)")
                }
            }
        }
        XCTAssertGreaterThan(outcomes.successes, 0)
        XCTAssertEqual(
            try database.query("SELECT value FROM counters WHERE id = 'c'").first?.first,
            .integer(Int64(outcomes.successes)),
            "every committed increment counted, and only those (\(outcomes.failures) reported unavailable)")
    }

    /// Eight threads each reading its own rows of a small table and then adding one, as eight
    /// enrollments at once do with `keys` and `devices`: the rows are disjoint, but on a table this
    /// small PostgreSQL scans (and SERIALIZABLE locks) the whole relation, so the transactions
    /// collide all the time. Each collision is run again with a growing, random pause, and every
    /// one of the 80 transactions commits: none reaches the caller as `unavailable` (a 503).
    func testCollidingTransactionsOnDisjointRowsAllCommit() throws {
        let database = try Database(url: PostgreSQLRig.shared.newDatabase(), migrations: migrations)
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for row in 0..<10 {
                do {
                    try database.transaction {
                        _ = try database.query("SELECT id FROM items WHERE n = ?", [.integer(Int64(thread))])
                        usleep(500)  // widen the window between the read and the write
                        try database.execute(
                            "INSERT INTO items (id, n, data) VALUES (?, ?, NULL)",
                            [.text("\(thread)-\(row)"), .integer(Int64(thread))])
                    }
                    outcomes.add(success: true)
                } catch let error as DatabaseError where error.isUnavailable {
                    outcomes.add(success: false)
                } catch {
                    XCTFail("unexpected \(error)")
                }
            }
        }
        XCTAssertEqual(outcomes.failures, 0, "transactions that lost every try")
        XCTAssertEqual(try database.query("SELECT count(*) FROM items").first?.first, .integer(80))
    }

    /// Two co-signer instances starting at once on a new database: the advisory lock lets one
    /// migrate while the other waits, then finds the schema current.
    func testInstancesStartingAtOnceMigrateOnce() throws {
        let url = try PostgreSQLRig.shared.newDatabase()
        let results = Outcomes()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let database = try Database(url: url, migrations: CoSignerStore.migrations)
                results.add(
                    success: database.schemaVersion == CoSignerStore.migrations.count,
                    applied: database.appliedMigrations)
            } catch {
                XCTFail("an instance failed to start: \(error)")
            }
        }
        XCTAssertEqual(results.successes, 4)
        XCTAssertEqual(results.applied.sorted(), [0, 0, 0, CoSignerStore.migrations.count])
    }

    final class Outcomes: @unchecked Sendable {  // unchecked: `lock` guards the counts
        private let lock = NSLock()
        private var counts = (successes: 0, failures: 0)
        private var appliedCounts: [Int] = []
        func add(success: Bool, applied: Int? = nil) {
            lock.withLock {
                if success { counts.successes += 1 } else { counts.failures += 1 }
                if let applied { appliedCounts.append(applied) }
            }
        }
        var successes: Int { lock.withLock { counts.successes } }
        var failures: Int { lock.withLock { counts.failures } }
        var applied: [Int] { lock.withLock { appliedCounts } }
    }
}

/// PostgreSQL stopped between two requests: the co-signer answers 503 `database-unavailable`
/// (JSON, like every error) while it is down, and its pool reconnects once it is back.
final class PostgreSQLOutageTests: XCTestCase {
    func testAStoppedDatabaseAnswers503AndThePoolReconnects() async throws {
        let rig = try PostgreSQLRig()
        defer { rig.stop() }
        let folder = try TestEnvironment.temporaryFolder("pg-outage")
        defer { TestEnvironment.removeFolder(folder) }
        let store = try CoSignerStore(url: rig.newDatabase(), serverKey: [UInt8](repeating: 4, count: 32))
        let rpKey = try store.addRelyingParty(name: "Test Bank")
        let logged = LockedLines()
        let service = CoSignerService(
            store: store,
            party: try ServerParty(
                pid: Transcript.taggedHash("outage", [[1]]), ringPedersen: CoSignerStoreTests.ringPedersen),
            errorLog: { logged.append($0) })
        let server = try HTTPServer { service.handle($0) }
        defer { server.stop() }
        // A relying party's lookup of an unknown session: one database read, answered 404.
        func ask() throws -> (status: Int, body: [String: Any], retryAfter: Bool) {
            let result = try TestEnvironment.run(
                "/usr/bin/curl",
                [
                    "-s", "-i", "-H", "Authorization: Bearer \(rpKey)",
                    "http://127.0.0.1:\(server.port)/v3/rp/session/no-such-session",
                ])
            let parts = result.output.components(separatedBy: "\r\n\r\n")
            let status = Int(parts[0].split(separator: " ").dropFirst().first ?? "") ?? 0
            let body = (try? JSONSerialization.jsonObject(with: Data((parts.last ?? "").utf8))) as? [String: Any] ?? [:]
            return (status, body, parts[0].lowercased().contains("retry-after: 2"))
        }
        XCTAssertEqual(try ask().status, 404)
        rig.stop()
        let down = try ask()
        XCTAssertEqual(down.status, 503)
        XCTAssertTrue(down.retryAfter)
        let error = try XCTUnwrap(down.body["error"] as? [String: Any])
        XCTAssertEqual(error["code"] as? String, "database-unavailable")
        XCTAssertEqual(try ask().status, 503, "still down: still 503, not 500")
        XCTAssertTrue(
            logged.all.contains { $0.contains("database is unavailable") }, "the operator sees why: \(logged.all)")
        try rig.start()
        XCTAssertEqual(try ask().status, 404, "the pool reconnected by itself")
        // A restart between two requests: the idle connection the restart closed is noticed
        // and replaced before it is used, so the next request does not fail at all.
        rig.stop()
        try rig.start()
        XCTAssertEqual(try ask().status, 404, "the first request after a restart")
        // And writes work again: a new code stored through the same store.
        XCTAssertNoThrow(try store.issueEnrollmentCode(documentNumber: "38001085718"))
    }
}

/// The pieces that need no server: placeholders, passwords in URIs, the binary value decoder.
final class PostgreSQLPiecesTests: XCTestCase {
    func testPlaceholdersAreNumberedOutsideLiteralsAndComments() {
        XCTAssertEqual(
            PostgreSQLPlaceholders.rewrite("SELECT a FROM t WHERE b = ? AND c IN (?, ?)"),
            "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)")
        XCTAssertEqual(
            PostgreSQLPlaceholders.rewrite("SELECT '?', 'it''s ?', \"?\", ? -- ?\n, ? /* ? */ , ?"),
            "SELECT '?', 'it''s ?', \"?\", $1 -- ?\n, $2 /* ? */ , $3")
        XCTAssertEqual(PostgreSQLPlaceholders.rewrite("/*/ ? */ ?"), "/*/ ? */ $1")
    }

    func testPasswordsInURIsAreNeverShown() {
        XCTAssertEqual(
            DatabaseLocation.redacted("postgresql://tamga:s3cret@db.example:5432/cosigner?sslmode=require"),
            "postgresql://tamga:***@db.example:5432/cosigner?sslmode=require")
        XCTAssertEqual(
            DatabaseLocation.redacted("postgres://u:p@ss:w@h/db?password=x&application_name=a"),
            "postgres://u:***@h/db?password=***&application_name=a")
        XCTAssertEqual(
            DatabaseLocation.redacted("postgresql:///db?host=/run/postgresql&user=tamga"),
            "postgresql:///db?host=/run/postgresql&user=tamga")
        XCTAssertEqual(DatabaseLocation.redacted("/var/lib/tamga/cosigner.db"), "/var/lib/tamga/cosigner.db")
        // A combining mark after the ":" (one grapheme with it) must not hide the password (found by FuzzDatabaseRows).
        XCTAssertEqual(DatabaseLocation.redacted("postgresql://u:\u{0308}secret@h/db"), "postgresql://u:***@h/db")
        XCTAssertEqual(DatabaseLocation.passwords(in: "postgresql://u:p@ss@h/db?password=two&x=1"), ["p@ss", "two"])
        XCTAssertEqual(DatabaseLocation.redacted("postgresql://\u{1DF7}::@"), "postgresql://\u{1DF7}:***@")
        XCTAssertEqual(DatabaseLocation.passwords(in: "postgresql://u@h/db"), [])
        XCTAssertTrue(DatabaseLocation.isPostgreSQL("PostgreSQL://h/db"))
        XCTAssertFalse(DatabaseLocation.isPostgreSQL("postgresql.db"))
    }

    /// libpq quotes the part of a URI it cannot parse, which can be the password.
    func testAURIThatDoesNotParseDoesNotShowItsPassword() {
        XCTAssertThrowsError(try Database(url: "postgresql://tamga:%zzs3cret@/db?host=/nonexistent", migrations: [])) {
            error in
            let text = String(describing: error)
            XCTAssertTrue(text.contains("percent-encoded"), text)
            XCTAssertFalse(text.contains("s3cret"), text)
            XCTAssertEqual((error as? DatabaseError)?.kind, .unavailable)
        }
    }

    func testTheValueDecoderRefusesWhatItCannotRead() throws {
        XCTAssertEqual(
            try PostgreSQLValues.decode(type: 20, bytes: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]), .integer(-2)
        )
        XCTAssertEqual(try PostgreSQLValues.decode(type: 23, bytes: [0x80, 0, 0, 0]), .integer(Int64(Int32.min)))
        XCTAssertEqual(try PostgreSQLValues.decode(type: 21, bytes: [0, 7]), .integer(7))
        XCTAssertThrowsError(try PostgreSQLValues.decode(type: 20, bytes: [1, 2, 3]), "an int8 of 3 bytes")
        XCTAssertThrowsError(try PostgreSQLValues.decode(type: 20, bytes: []))
        XCTAssertThrowsError(try PostgreSQLValues.decode(type: 25, bytes: [0xC3]), "not UTF-8")
        XCTAssertThrowsError(try PostgreSQLValues.decode(type: 1700, bytes: [0, 0]), "numeric is not read")
        for value in [SQLValue.integer(.min), .integer(0), .integer(.max), .text("ü"), .blob([1, 2])] {
            let encoded = PostgreSQLValues.encode(value)
            XCTAssertEqual(try PostgreSQLValues.decode(type: encoded.type, bytes: encoded.bytes ?? []), value)
        }
    }
}
