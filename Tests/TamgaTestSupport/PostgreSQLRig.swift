import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private PostgreSQL 15 server for a test: `initdb` into a temporary folder (owned by the
/// `postgres` user: the server refuses root), the server on a Unix socket only
/// (`listen_addresses=''`) in that folder, stopped by PID (SIGINT, a fast shutdown) at `stop()`,
/// when the rig is released, and at the test process's exit. `shared` is one server for the
/// whole test process; each test makes its own database in it (`newDatabase()`).
public final class PostgreSQLRig: @unchecked Sendable {  // unchecked: `lock` guards `process` and `counter`
    public static let binaries = "/usr/lib/postgresql/15/bin"
    public let folder: URL
    public var dataDirectory: String { folder.appendingPathComponent("data").path }
    /// The folder holding the server's socket (`.s.PGSQL.5432`).
    public var socketDirectory: String { folder.path }
    private var process: Process?
    private var counter = 0
    private let lock = NSLock()

    public init() throws {
        folder = try TestEnvironment.temporaryFolder("pg-rig")
        guard let user = getpwnam("postgres") else {
            throw Self.failure("there is no postgres user (apt-get install postgresql)")
        }
        guard chown(folder.path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
            throw Self.failure("cannot give \(folder.path) to postgres")
        }
        // Trust on the socket (the folder is the test's own), no fsync (a test server), C locale.
        let initdb = try TestEnvironment.run(
            "/usr/sbin/runuser",
            [
                "-u", "postgres", "--", Self.binaries + "/initdb", "-D", dataDirectory,
                "-U", "postgres", "--auth=trust", "--no-sync", "--no-locale", "-E", "UTF8",
            ])
        guard initdb.status == 0 else { throw Self.failure("initdb failed: \(initdb.error)") }
        try start()
    }

    /// Starts the server (again, after `stop()`), and waits until it accepts connections.
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            TestEnvironment.script("postgres-launch.py"), "postgres", "--", Self.binaries + "/postgres",
            "-D", dataDirectory, "-k", socketDirectory, "-c", "listen_addresses=", "-c", "fsync=off",
            "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=100",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try ServerLauncher.shared.run { try process.run() }
        lock.withLock { self.process = process }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            guard process.isRunning else {
                throw Self.failure("the server exited while starting (status \(process.terminationStatus))")
            }
            let ready = try TestEnvironment.run(
                Self.binaries + "/pg_isready", ["-q", "-h", socketDirectory, "-U", "postgres"])
            if ready.status == 0 { return }
            usleep(50_000)
        }
        stop()
        throw Self.failure("the server did not accept connections within 30 s")
    }

    /// Stops the server by its PID: SIGINT (fast shutdown: open connections are ended), then
    /// SIGKILL if it is still there after 10 s. The data stays; `start()` starts it again.
    public func stop() {
        guard
            let process = lock.withLock({ () -> Process? in
                defer { self.process = nil }
                return self.process
            }), process.isRunning
        else { return }
        let pid = process.processIdentifier
        kill(pid, SIGINT)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno == ECHILD) { return }
            usleep(20_000)
        }
        kill(pid, SIGKILL)
    }

    /// A connection URI for `database` on the socket, as the `postgres` user.
    public func url(database: String) -> String {
        "postgresql:///\(database)?host=\(socketDirectory)&user=postgres"
    }

    /// A new, empty database; returns its URI.
    public func newDatabase() throws -> String {
        let name = lock.withLock { () -> String in
            counter += 1
            return "tamga_\(getpid())_\(counter)"
        }
        let created = try TestEnvironment.run(
            Self.binaries + "/createdb", ["-h", socketDirectory, "-U", "postgres", name])
        guard created.status == 0 else { throw Self.failure("createdb failed: \(created.error)") }
        return url(database: name)
    }

    /// Runs SQL with psql (for a test's own look at the database).
    @discardableResult
    public func psql(_ database: String, _ sql: String) throws -> String {
        let result = try TestEnvironment.run(
            Self.binaries + "/psql",
            ["-h", socketDirectory, "-U", "postgres", "-d", database, "-At", "-v", "ON_ERROR_STOP=1", "-c", sql])
        guard result.status == 0 else { throw Self.failure("psql: \(result.error)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        stop()
        TestEnvironment.removeFolder(folder)
    }

    /// One server for the whole test process, started on first use and stopped at exit.
    public static var shared: PostgreSQLRig {
        get throws {
            try sharedLock.withLock {
                if let sharedRig { return sharedRig }
                let rig = try PostgreSQLRig()
                sharedRig = rig
                atexit {
                    PostgreSQLRig.sharedLock.withLock { PostgreSQLRig.sharedRig }?.stop()
                    PostgreSQLRig.sharedLock.withLock {
                        PostgreSQLRig.sharedRig.map { TestEnvironment.removeFolder($0.folder) }
                    }
                }
                return rig
            }
        }
    }
    private static let sharedLock = NSLock()
    nonisolated(unsafe) private static var sharedRig: PostgreSQLRig?

    /// postgres-launch.py asks the kernel to stop the server when the thread that started it
    /// ends (PR_SET_PDEATHSIG follows the parent thread, not the process), so that a test runner
    /// killed mid-test leaves no server behind. A Swift concurrency or Dispatch worker thread
    /// can end while the test process runs on — and took the shared server with it, between two
    /// suites. Every server is therefore started from this one thread, which lives as long as
    /// the test process.
    private final class ServerLauncher: @unchecked Sendable {  // unchecked: `condition` guards `jobs`
        static let shared = ServerLauncher()
        private let condition = NSCondition()
        private var jobs: [() -> Void] = []

        private init() {
            let thread = Thread { [self] in
                while true {
                    condition.lock()
                    while jobs.isEmpty { condition.wait() }
                    let job = jobs.removeFirst()
                    condition.unlock()
                    job()
                }
            }
            thread.name = "PostgreSQLRig launcher"
            thread.start()
        }

        /// Runs `body` on the launcher thread and waits for it.
        func run(_ body: @escaping () throws -> Void) throws {
            let done = DispatchSemaphore(value: 0)
            var failure: Error?
            condition.lock()
            jobs.append {
                do { try body() } catch { failure = error }
                done.signal()
            }
            condition.signal()
            condition.unlock()
            done.wait()
            if let failure { throw failure }
        }
    }

    private static func failure(_ message: String) -> Error {
        NSError(domain: "PostgreSQLRig", code: 1, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
