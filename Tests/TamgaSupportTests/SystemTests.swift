import Foundation
import TamgaSupport
import XCTest

/// The process, file and thread helpers against what Foundation (loaded here, in the tests
/// only) and the C library answer.
final class SystemTests: XCTestCase {
    func testTheEnvironmentIsWhatFoundationReads() {
        XCTAssertEqual(ProcessEnvironment.current(), ProcessInfo.processInfo.environment)
        setenv("TAMGA_SUPPORT_TEST", "a=b=c", 1)
        defer { unsetenv("TAMGA_SUPPORT_TEST") }
        XCTAssertEqual(ProcessEnvironment.current()["TAMGA_SUPPORT_TEST"], "a=b=c", "only the first = separates")
    }

    func testTheHomeFolderComesFromThePasswordDatabase() throws {
        let entry = try XCTUnwrap(getpwuid(getuid()))
        XCTAssertEqual(UserAccount.homeFolder(), String(cString: entry.pointee.pw_dir))
    }

    func testFileBytesReadsRegularFilesOnlyAndAtMostTheLimit() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("file-bytes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("data").path
        try Data("0123456789".utf8).write(to: URL(fileURLWithPath: file))
        XCTAssertEqual(FileBytes.read(file, limit: 4), Array("0123".utf8))
        XCTAssertEqual(FileBytes.read(file, limit: 100), Array("0123456789".utf8))
        XCTAssertTrue(FileBytes.isRegularFile(file))
        XCTAssertNil(FileBytes.read(folder.path, limit: 10), "a folder is not read")
        XCTAssertFalse(FileBytes.isRegularFile(folder.path))
        XCTAssertNil(FileBytes.read(folder.appendingPathComponent("missing").path, limit: 10))
        // A FIFO with no writer would block a plain open: it is refused at once.
        let fifo = folder.appendingPathComponent("fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertNil(FileBytes.read(fifo, limit: 10))
    }

    func testConditionWaitsTimesOutAndIsSignalled() throws {
        let condition = Condition()
        condition.lock()
        let started = Date()
        XCTAssertFalse(condition.wait(seconds: 0.05), "nobody signals: the wait times out")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.04)
        condition.unlock()

        final class Flag: @unchecked Sendable { var set = false }
        let flag = Flag()
        try DetachedThread.start(name: "support-test") {
            DetachedThread.sleep(seconds: 0.02)
            condition.lock()
            flag.set = true
            condition.signal()
            condition.unlock()
        }
        condition.lock()
        while !flag.set { XCTAssertTrue(condition.wait(seconds: 5), "the thread signals") }
        condition.unlock()
    }

    func testEachThreadSeesItsOwnValue() throws {
        final class Box {
            let value: Int
            init(_ value: Int) { self.value = value }
        }
        let local = ThreadLocal<Box>()
        local.value = Box(1)
        let done = Condition()
        final class Seen: @unchecked Sendable { var value: Int?? = .none }
        let seen = Seen()
        try DetachedThread.start(name: "support-local") {
            let before = local.value?.value
            local.value = Box(2)
            done.lock()
            seen.value = .some(before)
            done.signal()
            done.unlock()
            local.value = nil
        }
        done.lock()
        while seen.value == nil { _ = done.wait(seconds: 5) }
        done.unlock()
        XCTAssertEqual(seen.value, .some(nil), "a new thread starts with no value")
        XCTAssertEqual(local.value?.value, 1, "the other thread's value is its own")
        let lock = Lock(recursive: true)
        XCTAssertEqual(lock.withLock { lock.withLock { 7 } }, 7, "a recursive lock is taken twice by its thread")
    }
}
