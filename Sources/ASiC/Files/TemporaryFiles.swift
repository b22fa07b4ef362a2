import FoundationEssentials
import Glibc
import TamgaSupport

#if canImport(Glibc)
import Glibc
#endif

/// The temporary files being written right now, so that an interrupted process (Ctrl-C,
/// SIGTERM) can remove them before it exits instead of leaving half a container behind.
public enum TemporaryFiles {
    private static let lock = Lock()
    nonisolated(unsafe) private static var paths = Set<String>()  // guarded by `lock`

    static func register(_ path: String) { lock.withLock { _ = paths.insert(path) } }
    static func unregister(_ path: String) { lock.withLock { _ = paths.remove(path) } }

    /// Removes every registered temporary file and says how many there were. Called from the
    /// interrupt handler (which words its message by it).
    @discardableResult
    public static func removeAll() -> Int {
        lock.withLock {
            for path in paths { unlink(path) }
            defer { paths.removeAll() }
            return paths.count
        }
    }

    static var active: [String] { lock.withLock { Array(paths) } }
}
