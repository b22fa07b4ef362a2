import Foundation

/// Terminal abort (`threshold-ecdsa.md` §3.1): once the server's ciphertext has arrived, any
/// failure locks the device's share for good — a malicious server learns at most one bit per
/// failed signature, and it gets no second one. The state is on disk before the ciphertext is
/// touched, so a crash in between also counts as a failure.
public protocol ShareGuard: Sendable {
    /// True when the share must not sign (locked, or an unfinished signature was found).
    func isLocked() throws -> Bool
    /// Written before c3 is processed.
    func markInFlight() throws
    /// Written when the signature verified.
    func clearInFlight() throws
    /// Written on any failure after c3.
    func lock() throws
}

/// The guard's state in one small file written atomically (temporary file, fsync, rename):
/// `ready`, `in-flight` or `locked`. A file found `in-flight` means a signature was interrupted
/// after c3 arrived: the share is treated as locked.
public struct ShareStateFile: ShareGuard {
    public let path: String

    public init(path: String) { self.path = path }

    private func read() -> String {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "ready"
    }

    private func write(_ state: String) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ThresholdError.unexpectedMessage("cannot write \(path)") }
        let bytes = Array((state + "\n").utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ThresholdError.unexpectedMessage("cannot write \(path)")
        }
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 { fsync(folder); close(folder) }
    }

    public func isLocked() throws -> Bool { read() != "ready" }
    public func markInFlight() throws { try write("in-flight") }
    public func clearInFlight() throws { try write("ready") }
    public func lock() throws { try write("locked") }
}
