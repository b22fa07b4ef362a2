import FoundationEssentials
import Glibc

#if canImport(Glibc)
import Glibc
#endif

/// An exclusive lock on one container for a whole read–change–rename, so that two `tamga sign`
/// runs on the same file cannot both read the old container and the second rename drop the
/// first's signature. It is an `flock` on a lock file beside the container
/// (`.NAME.tamga-lock`, left in place: removing it would let a third run lock a new file while
/// the second still holds the old one); the kernel releases it when the process ends, however it
/// ends. Take it before opening the container and keep it until the change is renamed into place.
public final class ContainerLock {
    public let lockPath: String
    private let descriptor: Int32

    /// Locks `containerPath`, waiting for another holder to finish; `waiting` is called once if
    /// that is the case (to tell a person why nothing happens).
    public init(containerPath: String, waiting: (() -> Void)? = nil) throws {
        let url = URL(fileURLWithPath: containerPath)
        lockPath = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tamga-lock").path
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw ContainerError.ioFailure(
                path: lockPath,
                reason: "cannot create the lock file beside the container: \(String(cString: strerror(errno)))")
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK else {
                let reason = String(cString: strerror(errno))
                close(fd)
                throw ContainerError.ioFailure(path: lockPath, reason: "cannot lock the container: \(reason)")
            }
            waiting?()
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let reason = String(cString: strerror(errno))
                    close(fd)
                    throw ContainerError.ioFailure(path: lockPath, reason: "cannot lock the container: \(reason)")
                }
            }
        }
        descriptor = fd
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
