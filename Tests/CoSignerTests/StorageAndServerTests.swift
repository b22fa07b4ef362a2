import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

@testable import CoSigner
@testable import HTTPService

final class DatabaseTests: XCTestCase {
    var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("db") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    let migrations = [
        "CREATE TABLE keys (id TEXT PRIMARY KEY, share BLOB NOT NULL);",
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, key_id TEXT NOT NULL REFERENCES keys(id), state TEXT NOT NULL);",
    ]

    func testMigrationsApplyOnceInOrderAndTheFileIsWALAndPrivate() throws {
        let path = folder.appendingPathComponent("cosigner.db").path
        do {
            let database = try Database(path: path, migrations: Array(migrations.prefix(1)))
            XCTAssertEqual(database.schemaVersion, 1)
            try database.execute("INSERT INTO keys VALUES (?, ?)", [.text("k1"), .blob([1, 2, 3])])
        }
        let database = try Database(path: path, migrations: migrations)
        XCTAssertEqual(database.schemaVersion, 2)
        XCTAssertEqual(
            try database.query("SELECT share FROM keys WHERE id = ?", [.text("k1")]).first?.first, .blob([1, 2, 3]))
        XCTAssertEqual(try database.query("PRAGMA journal_mode").first?.first?.text, "wal")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, 0o600)
        XCTAssertThrowsError(
            try Database(path: path, migrations: Array(migrations.prefix(1))), "a newer schema is refused")
        XCTAssertThrowsError(
            try database.execute("INSERT INTO sessions VALUES ('s', 'no-such-key', 'COMMITTED')"),
            "foreign keys are enforced")
    }

    /// Two connections opening one new file at the same moment (two instances starting on an
    /// empty database) both open it: the switch to WAL, which SQLite does not pass through the
    /// busy handler, is tried again while the other holds its lock. Without that, a connection
    /// was lost to "database is locked" in some rounds here (and one co-signer start in three).
    func testTwoConnectionsOpeningANewFileTogetherBothOpenIt() throws {
        let migrations = self.migrations
        for round in 0..<100 {
            let path = folder.appendingPathComponent("race-\(round).db").path
            // unchecked: each thread writes its own slot
            final class Results: @unchecked Sendable { var failures: [String?] = [nil, nil] }
            let results = Results()
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                do {
                    let database = try Database(path: path, migrations: migrations)
                    if database.schemaVersion != 2 {
                        results.failures[index] = "schema version \(database.schemaVersion)"
                    }
                } catch {
                    results.failures[index] = "\(error)"
                }
            }
            XCTAssertEqual(results.failures.compactMap { $0 }, [], "round \(round)")
            XCTAssertEqual(
                try Database(path: path, migrations: migrations).query("PRAGMA journal_mode").first?.first?.text, "wal")
        }
    }

    /// The retry gives up after its time and says what SQLite said.
    func testTheWALSwitchGivesUpWhenTheDatabaseStaysBusy() {
        var tries = 0
        XCTAssertThrowsError(
            try SQLiteBackend.switchingToWAL(timeout: 0.05) { () -> Int in
                tries += 1
                throw DatabaseError(code: 5, message: "database is locked")
            }
        ) { XCTAssertEqual(($0 as? DatabaseError)?.message, "database is locked") }
        XCTAssertGreaterThan(tries, 2)
        XCTAssertThrowsError(
            try SQLiteBackend.switchingToWAL { () -> Int in throw DatabaseError(code: 1, message: "other") })
    }

    func testATransactionThatThrowsLeavesNothingBehind() throws {
        let database = try Database(path: folder.appendingPathComponent("t.db").path, migrations: migrations)
        struct Abort: Error {}
        XCTAssertThrowsError(
            try database.transaction {
                try database.execute("INSERT INTO keys VALUES ('a', x'00')")
                throw Abort()
            })
        XCTAssertEqual(try database.query("SELECT count(*) FROM keys").first?.first, .integer(0))
        try database.transaction { _ = try database.execute("INSERT INTO keys VALUES ('b', x'01')") }
        XCTAssertEqual(try database.query("SELECT count(*) FROM keys").first?.first, .integer(1))
    }

    /// A store method's own transaction inside a larger one (enrollment: code, key and device
    /// together) is a savepoint: the outer one stays all-or-nothing.
    func testNestedTransactionsAreSavepointsOfTheOuterOne() throws {
        let database = try Database(path: folder.appendingPathComponent("n.db").path, migrations: migrations)
        struct Abort: Error {}
        // Inner succeeds, outer fails afterwards: nothing stays.
        XCTAssertThrowsError(
            try database.transaction {
                try database.transaction { _ = try database.execute("INSERT INTO keys VALUES ('inner', x'00')") }
                try database.execute("INSERT INTO keys VALUES ('outer', x'00')")
                throw Abort()
            })
        XCTAssertEqual(try database.query("SELECT count(*) FROM keys").first?.first, .integer(0))
        // Inner fails and the outer carries on: only the outer's row stays.
        try database.transaction {
            XCTAssertThrowsError(
                try database.transaction {
                    try database.execute("INSERT INTO keys VALUES ('inner', x'00')")
                    throw Abort()
                })
            try database.execute("INSERT INTO keys VALUES ('outer', x'00')")
        }
        XCTAssertEqual(try database.query("SELECT id FROM keys").map { $0[0].text ?? "" }, ["outer"])
    }
}

final class HTTPServerTests: XCTestCase {
    func testRequestsReachTheHandlerAndOversizedBodiesDoNot() async throws {
        let calls = Counter()
        let server = try HTTPServer(maximumBody: 1024) { request in
            calls.increment()
            if request.path == "/echo" {
                return HTTPResponse(
                    status: 200, headers: ["Content-Type": "application/octet-stream"], body: request.body)
            }
            if request.path == "/token" {
                return .json(["token": request.headers["x-device-token"] ?? "none"])
            }
            return .error(404, code: "not-found", message: "no route \(request.method) \(request.path)")
        }
        defer { server.stop() }
        XCTAssertNotEqual(server.port, 0)
        let base = "http://127.0.0.1:\(server.port)"
        let transport = HTTPTransport(timeout: 5)
        let echoed = try await transport.post(
            Data([1, 2, 3, 0, 255]), to: URL(string: base + "/echo")!, contentType: "application/octet-stream",
            accept: "*/*", service: "test")
        XCTAssertEqual(Array(echoed), [1, 2, 3, 0, 255])
        do {
            _ = try await transport.post(
                Data(count: 4096), to: URL(string: base + "/echo")!, contentType: "application/octet-stream",
                accept: "*/*", service: "test")
            XCTFail("an oversized body was accepted")
        } catch CoreError.serviceHTTPStatus(_, _, let status) {
            XCTAssertEqual(status, 413)
        }
        do {
            _ = try await transport.get(URL(string: base + "/nowhere")!, service: "test")
            XCTFail("404 expected")
        } catch CoreError.serviceHTTPStatus(_, _, let status) {
            XCTAssertEqual(status, 404)
        }
        XCTAssertEqual(calls.value, 2, "the oversized request never reached the handler")
    }
}

final class Counter: @unchecked Sendable {  // unchecked: `lock` guards `count`
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

final class CoSignerStoreTests: XCTestCase {
    var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("cosigner-store") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    func testEnrollmentCodesAreSingleUsePerRoleAndExpire() throws {
        let store = try CoSignerStore(
            path: folder.appendingPathComponent("c.db").path, serverKey: [UInt8](repeating: 7, count: 32))
        let code = try store.issueEnrollmentCode(documentNumber: "38001085718")
        XCTAssertEqual(code.count, 12)
        XCTAssertEqual(try store.consumeEnrollmentCode(code, role: .sign), "38001085718")
        XCTAssertNil(try store.consumeEnrollmentCode(code, role: .sign), "used once for signing")
        XCTAssertEqual(try store.enrollmentCode(code, allows: .auth), "38001085718", "still good for the auth key")
        XCTAssertEqual(try store.consumeEnrollmentCode(code, role: .auth), "38001085718")
        XCTAssertNil(try store.consumeEnrollmentCode(code, role: .auth), "spent")
        XCTAssertNotNil(
            try store.database.query("SELECT used_at FROM enrollment_codes").first?.first?.integer, "marked used")
        XCTAssertNil(try store.consumeEnrollmentCode("NOSUCHCODE12", role: .sign))
        let expired = try store.issueEnrollmentCode(documentNumber: "x", lifetime: -1)
        XCTAssertNil(try store.consumeEnrollmentCode(expired, role: .sign), "expired")
        XCTAssertEqual(
            try store.database.query("SELECT count(*) FROM enrollment_codes WHERE code_hash = ?", [.text(code)]).first?
                .first, .integer(0),
            "only the hash is stored")
    }

    func testServerSharesAreSealedAtRestAndBoundToTheirKeyID() throws {
        let keyFile = folder.appendingPathComponent("server.key").path
        let key = try CoSignerStore.serverKey(file: keyFile)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: keyFile)[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try CoSignerStore.serverKey(file: keyFile), key, "read back, not replaced")
        let path = folder.appendingPathComponent("c.db").path
        let store = try CoSignerStore(path: path, serverKey: key)
        let (_, share) = try Self.enroll()
        try store.saveKey(share, documentNumber: "38001085718", role: .sign)
        let loaded = try XCTUnwrap(store.loadKey(share.keyID))
        XCTAssertEqual(loaded.share.publicKey, share.publicKey)
        XCTAssertEqual(loaded.share.storageBytes, share.storageBytes)
        XCTAssertEqual(loaded.role, .sign)
        // The file does not hold the share in the clear.
        let raw =
            try Data(contentsOf: URL(fileURLWithPath: path))
            + ((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data())
        XCTAssertNil(raw.range(of: Data(share.storageBytes[64..<96])), "x2 is not stored in the clear")
        // Another server key cannot open it; a sealed share moved to another key id does not open.
        XCTAssertThrowsError(
            try CoSignerStore(path: path, serverKey: [UInt8](repeating: 1, count: 32)).loadKey(share.keyID))
        let sealed = try XCTUnwrap(store.database.query("SELECT share FROM keys").first?.first)
        try store.database.execute(
            "INSERT INTO keys (key_id, document_number, role, share, public_key, created_at) VALUES (?, 'x', 'sign', ?, x'00', 0)",
            [.text(String(repeating: "ab", count: 32)), sealed])
        XCTAssertThrowsError(try store.loadKey([UInt8](repeating: 0xAB, count: 32)))
        try store.lockKey(share.keyID, reason: "test")
        XCTAssertEqual(try store.loadKey(share.keyID)?.locked, true)
        XCTAssertEqual(try store.activity(documentNumber: "38001085718").map(\.event), ["key-locked", "key-enrolled"])
    }

    static func enroll() throws -> (ThresholdMessage.EnrollCompleteResponse, ServerKeyShare) {
        let random = SystemRandom()
        let pid = Transcript.taggedHash("store", [[1]])
        let server = try ServerParty(pid: Transcript.taggedHash("store", [[2]]), ringPedersen: Self.ringPedersen)
        let client = try ClientEnrollment(pid: pid, random: random)
        let complete = try client.complete(server.enrollInit(client.initRequest))
        return try server.enrollComplete(clientNonce: client.initRequest.clientNonce, complete)
    }

    static let ringPedersen: RingPedersenSecret = try! RingPedersenSecret.generate(random: SystemRandom())
}

/// The attestation nonces: one use each across every instance on the database, bound to their
/// device and to the server key, and issuing them stores nothing.
final class AttestationNoncesTests: XCTestCase {
    func testSingleUseDeviceBoundAcrossInstancesAndStateless() throws {
        let folder = try TestEnvironment.temporaryFolder("nonces")
        defer { TestEnvironment.removeFolder(folder) }
        let store = try CoSignerStore(
            path: folder.appendingPathComponent("cosigner.db").path, serverKey: [UInt8](repeating: 5, count: 32))
        // Two instances on one database with one server key.
        let nonces = AttestationNonces(
            serverKey: [UInt8](repeating: 5, count: 32), database: store.database, random: SystemRandom(), lifetime: 60)
        let other = AttestationNonces(
            serverKey: [UInt8](repeating: 5, count: 32), database: store.database, random: SystemRandom(), lifetime: 60)
        let forDevice = try nonces.issue(for: "device-a")
        let open = try nonces.issue(for: nil)
        XCTAssertFalse(try other.consume(forDevice, device: "device-b"), "another device")
        XCTAssertTrue(try other.consume(forDevice, device: "device-a"), "issued by one instance, used on the other")
        XCTAssertFalse(try nonces.consume(forDevice, device: "device-a"), "used once, across instances")
        XCTAssertTrue(try nonces.consume(open, device: "anyone"))
        // Uses are written without a disk sync; everything else still syncs (FULL = 2).
        XCTAssertEqual(try store.database.query("PRAGMA synchronous").first?.first, .integer(2))
        // Issuing writes nothing: a flood of challenges neither grows the database nor pushes
        // out a device's nonce.
        let kept = try nonces.issue(for: "device-a")
        let flood = try (0..<100).map { _ in try nonces.issue(for: nil) }
        XCTAssertEqual(try store.database.query("SELECT COUNT(*) FROM used_nonces").first?.first, .integer(2))
        XCTAssertTrue(try nonces.consume(flood[0], device: nil))
        XCTAssertTrue(try nonces.consume(kept, device: "device-a"))
        // Forged: any byte changed, or made under another server key.
        var changed = try nonces.issue(for: nil)
        changed[3] ^= 1
        XCTAssertFalse(try nonces.consume(changed, device: nil), "a changed expiry")
        let stranger = AttestationNonces(
            serverKey: [UInt8](repeating: 6, count: 32), database: store.database, random: SystemRandom(), lifetime: 60)
        XCTAssertFalse(try nonces.consume(try stranger.issue(for: nil), device: nil), "another server key")
        XCTAssertFalse(try nonces.consume(Array(try nonces.issue(for: nil).prefix(31)), device: nil), "short")
        let expired = AttestationNonces(
            serverKey: [UInt8](repeating: 5, count: 32), database: store.database, random: SystemRandom(), lifetime: -1)
        XCTAssertFalse(try expired.consume(try expired.issue(for: nil), device: nil), "expired")
    }
}
