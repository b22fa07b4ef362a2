import CoSigner
import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

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
        XCTAssertEqual(try database.query("SELECT share FROM keys WHERE id = ?", [.text("k1")]).first?.first, .blob([1, 2, 3]))
        XCTAssertEqual(try database.query("PRAGMA journal_mode").first?.first?.text, "wal")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, 0o600)
        XCTAssertThrowsError(try Database(path: path, migrations: Array(migrations.prefix(1))), "a newer schema is refused")
        XCTAssertThrowsError(try database.execute("INSERT INTO sessions VALUES ('s', 'no-such-key', 'COMMITTED')"), "foreign keys are enforced")
    }

    func testATransactionThatThrowsLeavesNothingBehind() throws {
        let database = try Database(path: folder.appendingPathComponent("t.db").path, migrations: migrations)
        struct Abort: Error {}
        XCTAssertThrowsError(try database.transaction {
            try database.execute("INSERT INTO keys VALUES ('a', x'00')")
            throw Abort()
        })
        XCTAssertEqual(try database.query("SELECT count(*) FROM keys").first?.first, .integer(0))
        try database.transaction { try database.execute("INSERT INTO keys VALUES ('b', x'01')") }
        XCTAssertEqual(try database.query("SELECT count(*) FROM keys").first?.first, .integer(1))
    }
}

final class HTTPServerTests: XCTestCase {
    func testRequestsReachTheHandlerAndOversizedBodiesDoNot() async throws {
        let calls = Counter()
        let server = try HTTPServer(maximumBody: 1024) { request in
            calls.increment()
            if request.path == "/echo" {
                return HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: request.body)
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
        let echoed = try await transport.post(Data([1, 2, 3, 0, 255]), to: URL(string: base + "/echo")!, contentType: "application/octet-stream",
                                              accept: "*/*", service: "test")
        XCTAssertEqual(Array(echoed), [1, 2, 3, 0, 255])
        do {
            _ = try await transport.post(Data(count: 4096), to: URL(string: base + "/echo")!, contentType: "application/octet-stream", accept: "*/*", service: "test")
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

final class Counter: @unchecked Sendable {   // unchecked: `lock` guards `count`
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
