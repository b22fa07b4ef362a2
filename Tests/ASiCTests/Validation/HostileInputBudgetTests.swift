import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// The hostile-input budget, measured: every hostile container of the kinds the probe found
/// (namespaces, attributes, elements, depth, references, SignedProperties references, archive
/// time-stamps, OCSP values, signatures) finishes `tamga verify` and `tamga container ls` in
/// under a second of CPU per MB of input and under 256 MB of RSS. The containers come from
/// scripts/make-costly-containers.py, small; each command runs as a child process and is judged by
/// its own rusage (wait4), so a loaded machine makes it wait longer but not fail: CPU time,
/// not wall time.
final class HostileInputBudgetTests: LongTermTestCase {
    /// CPU seconds allowed per MB of the container file.
    static let secondsPerMB = 1.0
    /// Absorbs start-up (loading the binary, the trust file) and noise on a loaded CI machine,
    /// and the one cost that does not follow the compressed size: a container at the XML size
    /// limits (four 16 MB members of text, 67 KB compressed) inflates and parses 64 MB, about
    /// 0.3–0.4 s of CPU in a debug build, nearly all of it in zlib and libxml2.
    static let floorSeconds = 0.75
    /// The budget is the release build's (what a service checking uploads runs). A debug build —
    /// what `swift test` runs — does the same work several times slower (1,000 signature files:
    /// 0.92 s of CPU against 0.82 s allowed), so its budget is this many times larger: still far
    /// below what a super-linear blow-up costs (the probe's cases took 4–2,000 times their budget).
    static let debugFactor = 3.0
    static var isDebugBuild: Bool { TestEnvironment.productsDirectory.lastPathComponent == "debug" }
    static let maximumRSSBytes = 256 << 20
    /// A child still running after this much wall time is killed and fails the test.
    static let wallLimitSeconds = 120.0

    struct Usage {
        let status: Int32
        let cpuSeconds: Double
        let maxRSSBytes: Int
    }

    /// Runs `arguments` with output to /dev/null and returns the child's own resource use.
    private func measure(_ executable: String, _ arguments: [String]) throws -> Usage {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        var status: Int32 = 0
        var usage = rusage()
        let deadline = Date().addingTimeInterval(Self.wallLimitSeconds)
        while true {
            let reaped = wait4(pid, &status, WNOHANG, &usage)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { throw POSIXError(.ECHILD) }
            if Date() > deadline {
                kill(pid, SIGKILL)
                _ = wait4(pid, &status, 0, &usage)
                break
            }
            usleep(5_000)
        }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
        return Usage(
            status: status, cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
            maxRSSBytes: Int(usage.ru_maxrss) * 1024)  // Linux reports kilobytes
    }

    func testEveryHostileContainerStaysWithinTheWorkBudget() async throws {
        let base = try await ltContainer(profile: .LTA, name: "base.asice")
        let out = folder.appendingPathComponent("hostile").path
        let generated = try TestEnvironment.run(
            "/usr/bin/python3", [TestEnvironment.script("make-costly-containers.py"), base.path, out])
        XCTAssertEqual(generated.status, 0, generated.error)
        let names = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".asice") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 17, "\(names)")
        let tamga = TestEnvironment.productsDirectory.appendingPathComponent("tamga").path
        let trust = TestEnvironment.pki("chain.pem")
        var table: [String] = []
        for name in names {
            let path = "\(out)/\(name)"
            let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
            let budget =
                max(Self.floorSeconds, Self.secondsPerMB * Double(size) / 1_000_000)
                * (Self.isDebugBuild ? Self.debugFactor : 1)
            for command in [["verify", path, "--trust", trust], ["container", "ls", path]] {
                let usage = try measure(tamga, command)
                let label = "\(command[0] == "verify" ? "verify" : "ls") \(name) (\(size) bytes)"
                table.append(
                    String(
                        format: "%@: %.2f s CPU (budget %.2f s), %d MB RSS", label, usage.cpuSeconds, budget,
                        usage.maxRSSBytes >> 20))
                XCTAssertLessThanOrEqual(usage.cpuSeconds, budget, "\(label): CPU time")
                XCTAssertLessThan(usage.maxRSSBytes, Self.maximumRSSBytes, "\(label): max RSS")
                // It ended by itself with a verdict or a refusal (exit 0, 1 or 3), not a signal.
                let signal = usage.status & 0x7f, code = (usage.status >> 8) & 0xff
                XCTAssertTrue(signal == 0 && [0, 1, 3].contains(code), "\(label): wait status \(usage.status)")
            }
        }
        print(table.joined(separator: "\n"))
    }
}
