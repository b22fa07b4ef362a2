import Foundation
import Glibc
import TamgaTestSupport
import XCTest

/// scripts/ensure-packages.sh, which both README commands start with: another apt holding its
/// lock is waited for and said, and a failure names the packages it needed (not a bare apt
/// error). The lock is a real POSIX lock on a file of the test's (APT_LOCKS), taken by another
/// process as apt takes its own; nothing is installed.
final class SetupScriptTests: XCTestCase {
    private var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("setup-script") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    private var script: String { TestEnvironment.repository.appendingPathComponent("scripts/ensure-packages.sh").path }

    /// Another process holding a POSIX lock on `path` until terminated; returns once it holds it.
    private func holdLock(_ path: String) throws -> Process {
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = [
            "-c",
            "import fcntl, sys, time\nf = open(sys.argv[1], 'w')\nfcntl.lockf(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(60)",
            path,
        ]
        let out = Pipe()
        holder.standardOutput = out
        try holder.run()
        XCTAssertTrue(String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("locked"))
        return holder
    }

    func testAHeldAptLockIsWaitedForAndSaid() throws {
        guard getuid() == 0 else { throw XCTSkip("ensure-packages.sh installs as root only; CI runs as root") }
        let lock = folder.appendingPathComponent("lock").path
        XCTAssertTrue(FileManager.default.createFile(atPath: lock, contents: nil))
        let holder = try holdLock(lock)
        defer { TestEnvironment.terminate(holder) }
        var environment = ProcessInfo.processInfo.environment
        environment["APT_LOCKS"] = lock
        environment["APT_LOCK_WAIT"] = "2"
        let started = Date()
        let result = try TestEnvironment.run(
            "/bin/bash", [script, "tamga-test-no-such-package"], environment: environment)
        XCTAssertEqual(result.status, 1)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 2, "it waited")
        XCTAssertTrue(
            result.output.contains(
                "waiting for another apt or dpkg to finish (process \(holder.processIdentifier), python3, holds \(lock))"
            ), result.output)
        XCTAssertTrue(result.error.contains("still holds \(lock) after 2s"), result.error)
        XCTAssertTrue(result.error.contains("these packages are needed: tamga-test-no-such-package"), result.error)

        // Nothing missing: nothing to wait for, whoever holds the lock.
        let installed = try TestEnvironment.run("/bin/bash", [script, "bash", "coreutils"], environment: environment)
        XCTAssertEqual(installed.status, 0, installed.error)
        XCTAssertEqual(installed.output + installed.error, "")
    }
}
