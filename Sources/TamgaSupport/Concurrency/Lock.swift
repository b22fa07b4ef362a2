import Glibc

/// A mutual-exclusion lock over a pthread mutex, with the shape of Foundation's `NSLock`
/// (`lock`, `unlock`, `withLock`). The library modules use it instead of `NSLock` so that the
/// installed binary does not link the whole of Foundation (and its 38 MB of ICU data) for a lock.
/// `recursive: true` is `NSRecursiveLock`: the thread that holds it may take it again.
public final class Lock: @unchecked Sendable {  // unchecked: the mutex is the synchronisation
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init(recursive: Bool = false) {
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_settype(&attributes, Int32(recursive ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_ERRORCHECK))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the lock. `@inlinable`, so that callers in other modules get it
    /// specialized to their result type (unspecialized, the first call of each result type
    /// builds its metadata at run time).
    @inlinable public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// For `Condition`, which waits on this mutex.
    var pointer: UnsafeMutablePointer<pthread_mutex_t> { mutex }
}
