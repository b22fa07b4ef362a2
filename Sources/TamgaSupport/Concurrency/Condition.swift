import Glibc

/// A condition variable with its own mutex, in the shape of Foundation's `NSCondition`: take
/// the lock, `wait` (or `wait(until:)`) while the predicate does not hold, `signal` or
/// `broadcast` after changing it.
public final class Condition: @unchecked Sendable {  // unchecked: the mutex is the synchronisation
    private let mutex = Lock()
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        condition = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Deadlines on the monotonic clock: setting the wall clock neither shortens nor
        // stretches a wait.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    public func lock() { mutex.lock() }
    public func unlock() { mutex.unlock() }
    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }

    /// Waits (holding the lock) until signalled.
    public func wait() { pthread_cond_wait(condition, mutex.pointer) }

    /// Waits (holding the lock) until signalled or `seconds` have passed; false on the timeout.
    public func wait(seconds: Double) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let whole = Int(max(0, seconds)), fraction = Int((max(0, seconds) - Double(whole)) * 1_000_000_000)
        deadline.tv_sec += whole
        deadline.tv_nsec += fraction
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        return pthread_cond_timedwait(condition, mutex.pointer, &deadline) == 0
    }
}
