#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The temporary files being written right now, so that an interrupted process (Ctrl-C,
/// SIGTERM) can remove them before it exits instead of leaving half a container behind.
public enum TemporaryFiles {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var paths = Set<String>()   // guarded by `lock`

    static func register(_ path: String) { lock.withLock { _ = paths.insert(path) } }
    static func unregister(_ path: String) { lock.withLock { _ = paths.remove(path) } }

    /// Removes every registered temporary file. Called from the interrupt handler.
    public static func removeAll() {
        lock.withLock {
            for path in paths { unlink(path) }
            paths.removeAll()
        }
    }

    static var active: [String] { lock.withLock { Array(paths) } }
}
