import Dispatch
import TamgaSupport

/// How many validations run at once, and how many may wait for a turn: beyond both, a request
/// is refused at once (503 with `Retry-After`) instead of waiting behind work it cannot get
/// ahead of, so that a load balancer or client can go elsewhere. The HTTP server has more
/// threads than `running + waiting`, so the refusal and the monitoring answers never wait.
// unchecked: the counters behind `lock`, the semaphore is thread-safe
public final class AdmissionGate: @unchecked Sendable {
    public let running: Int
    public let waiting: Int
    private let turns: DispatchSemaphore
    private let lock = Lock()
    private var inside = 0
    private var queued = 0
    private var refusedTotal: UInt64 = 0

    public init(running: Int, waiting: Int) {
        self.running = max(1, running)
        self.waiting = max(0, waiting)
        turns = DispatchSemaphore(value: self.running)
    }

    /// Takes a turn, waiting for one if `running` are taken and fewer than `waiting` wait;
    /// false (counted as refused) when that many already wait. A true answer must be followed
    /// by `leave()`.
    public func enter() -> Bool {
        let admitted = lock.withLock { () -> Bool in
            guard inside + queued < running + waiting else {
                refusedTotal += 1
                return false
            }
            queued += 1
            return true
        }
        guard admitted else { return false }
        turns.wait()
        lock.withLock {
            queued -= 1
            inside += 1
        }
        return true
    }

    public func leave() {
        lock.withLock { inside -= 1 }
        turns.signal()
    }

    /// Validations running, waiting, and refused since start.
    public var counts: (running: Int, waiting: Int, refused: UInt64) {
        lock.withLock { (inside, queued, refusedTotal) }
    }
}
