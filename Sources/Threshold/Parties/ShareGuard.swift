import FoundationEssentials
import Glibc
import TamgaSupport

/// Terminal abort (`docs/design/threshold-ecdsa.md` §3.1): once the server's ciphertext has arrived, any
/// failure locks the device's share for good — a malicious server learns at most one bit per
/// failed signature, and it gets no second one. The state is on disk before the ciphertext is
/// touched, so a crash in between also counts as a failure. Transitions are compare-and-set:
/// only `ready → in-flight → ready` and `* → locked`; nothing leaves `locked` except storing a
/// newly enrolled share (`reset`). So two sessions started while ready cannot undo a lock,
/// and only one c3 is ever being handled at a time.
public protocol ShareGuard: Sendable {
    /// True when the share must not sign (locked, an unfinished signature found, or the state
    /// cannot be read: the guard fails closed).
    func isLocked() throws -> Bool
    /// `ready → in-flight`, before c3 is processed; throws `shareLocked` from any other state.
    func markInFlight() throws
    /// `in-flight → ready`, when the signature verified; a locked share stays locked.
    func clearInFlight() throws
    /// `* → locked`, on any failure after c3.
    func lock() throws
    /// `* → ready`: only when a freshly enrolled share replaces the old one.
    func reset() throws
}

/// The guard's state in one small file written atomically (temporary file, fsync, rename),
/// every transition under an exclusive `flock` on a companion lock file: `ready`, `in-flight`
/// or `locked`. A missing file means `ready`; an unreadable or unknown one means locked.
public struct ShareStateFile: ShareGuard {
    public let path: String

    public init(path: String) { self.path = path }

    enum State: String { case ready, inFlight = "in-flight", locked }

    /// The current state; nil when it cannot be known (fail closed).
    private func read() -> State? {
        guard let data = FileManager.default.contents(atPath: path) else {
            return FileManager.default.fileExists(atPath: path) ? nil : .ready
        }
        return State(rawValue: String(decoding: data, as: UTF8.self).trimmed())
    }

    /// Runs `body` holding an exclusive lock on `path.lock`.
    private func exclusively<T>(_ body: () throws -> T) throws -> T {
        let fd = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ThresholdError.keyStore("cannot lock \(path)") }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { throw ThresholdError.keyStore("cannot lock \(path)") }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    private func write(_ state: State) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ThresholdError.keyStore("cannot write \(path)") }
        let bytes = Array((state.rawValue + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ThresholdError.keyStore("cannot write \(path)")
        }
        let folder = open(path.parentPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    public func isLocked() throws -> Bool { try exclusively { read() != .ready } }

    public func markInFlight() throws {
        try exclusively {
            guard read() == .ready else { throw ThresholdError.shareLocked }
            try write(.inFlight)
        }
    }

    public func clearInFlight() throws {
        try exclusively {
            guard read() == .inFlight else { throw ThresholdError.shareLocked }
            try write(.ready)
        }
    }

    public func lock() throws { try exclusively { try write(.locked) } }
    public func reset() throws { try exclusively { try write(.ready) } }
}
