import Foundation
import TamgaTestSupport
import XCTest

@testable import CoSigner

/// The migration that moves session state into the database, on a database an older co-signer
/// left with sessions open (their k2 lived in its memory; several of one key could be open when
/// it had restarted): it applies, COMMITTED ones end (EXPIRED), the newest PROVED one of a key
/// stays open (it can still finish), and from then on the index allows one open session a key.
final class SessionStateMigrationTests: XCTestCase {
    func testAnOlderDatabaseWithOpenSessionsMigratesAndThenAllowsOneOpenSessionPerKey() throws {
        let folder = try TestEnvironment.temporaryFolder("state-migration")
        defer { TestEnvironment.removeFolder(folder) }
        let path = folder.appendingPathComponent("cosigner.db").path
        let migration = try XCTUnwrap(
            CoSignerStore.migrations.firstIndex { $0.sqlite.contains("sessions_one_open_per_key") })
        do {
            let old = try Database(path: path, migrations: Array(CoSignerStore.migrations.prefix(migration)))
            try old.execute(
                "INSERT INTO keys (key_id, document_number, role, share, public_key, created_at) VALUES ('k', 'd', 'sign', x'00', x'00', 1)"
            )
            for (id, state, created) in [
                ("c1", "COMMITTED", 1), ("c2", "COMMITTED", 2), ("p1", "PROVED", 3), ("p2", "PROVED", 4),
                ("done", "COMPLETE", 5), ("wait", "PENDING", 6),
            ] {
                try old.execute(
                    """
                    INSERT INTO sessions (id, key_id, kind, digest, rp_name, display_text, state, created_at, expires_at)
                    VALUES (?, 'k', 'SIGN', x'01', 'rp', 'text', ?, ?, 100)
                    """, [.text(id), .text(state), .integer(Int64(created))])
            }
        }
        let store = try CoSignerStore(path: path, serverKey: [UInt8](repeating: 1, count: 32))
        let states = Dictionary(
            uniqueKeysWithValues: try store.database.query("SELECT id, state FROM sessions").map {
                ($0[0].text ?? "", $0[1].text ?? "")
            })
        XCTAssertEqual(
            states,
            ["c1": "EXPIRED", "c2": "EXPIRED", "p1": "EXPIRED", "p2": "PROVED", "done": "COMPLETE", "wait": "PENDING"])
        // A second open session of the key is refused by the database itself (as on PostgreSQL,
        // where two instances' commits can pass the NOT EXISTS at the same moment).
        XCTAssertThrowsError(try store.database.execute("UPDATE sessions SET state = 'COMMITTED' WHERE id = 'wait'")) {
            error in
            XCTAssertTrue((error as? DatabaseError)?.isConstraintViolation ?? false, "\(error)")
        }
        XCTAssertEqual(try store.database.execute("UPDATE sessions SET state = 'COMPLETE' WHERE id = 'p2'"), 1)
        XCTAssertEqual(try store.database.execute("UPDATE sessions SET state = 'COMMITTED' WHERE id = 'wait'"), 1)
        XCTAssertEqual(try store.database.query("PRAGMA integrity_check").first?.first?.text, "ok")
    }
}
