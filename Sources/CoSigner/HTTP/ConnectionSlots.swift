import FoundationEssentials
import Glibc
import Dispatch
import TamgaSupport

/// The absolute deadline of each connection's request: a connection that has not delivered a
/// whole request within `deadline` of opening (or of its previous response) is shut down, however
/// often it trickles a byte. MHD reports connections opening and closing and each request's
/// arrival; a sweeper thread shuts the socket of the late ones (`shutdown`, so MHD notices the
/// end of the stream on its own threads and closes the connection itself).
final class ConnectionDeadlines: @unchecked Sendable {   // unchecked: `entries` and `running` behind `lock`
    struct Entry {
        let socket: Int32
        var since: Date
        var receiving: Bool
        var shut: Bool
    }

    let deadline: TimeInterval
    private let lock = Lock()
    private var entries: [OpaquePointer: Entry] = [:]
    private var running = false
    private let finished = DispatchSemaphore(value: 0)

    init(deadline: TimeInterval) { self.deadline = deadline }

    func opened(_ connection: OpaquePointer, socket: Int32) {
        guard socket >= 0 else { return }
        lock.withLock { entries[connection] = Entry(socket: socket, since: Date(), receiving: true, shut: false) }
    }

    func received(_ connection: OpaquePointer) {
        lock.withLock { entries[connection]?.receiving = false }
    }

    func restart(_ connection: OpaquePointer) {
        lock.withLock {
            entries[connection]?.since = Date()
            entries[connection]?.receiving = true
        }
    }

    func closed(_ connection: OpaquePointer) {
        _ = lock.withLock { entries.removeValue(forKey: connection) }
    }

    /// Shuts the sockets of the requests past their deadline; the count, for tests and logs.
    @discardableResult
    func sweep(now: Date = Date()) -> Int {
        lock.withLock {
            var count = 0
            for (connection, entry) in entries where entry.receiving && !entry.shut && now.timeIntervalSince(entry.since) > deadline {
                // Under the lock: MHD reports the close (and so drops the entry) before it closes
                // the socket, so this descriptor is still the connection's.
                shutdown(entry.socket, Int32(SHUT_RDWR))
                entries[connection]?.shut = true
                count += 1
            }
            return count
        }
    }

    /// Starts the sweeper thread; throws when the system cannot make one.
    func start() throws {
        lock.withLock { running = true }
        do {
            try DetachedThread.start(name: "cosigner-deadl") { [weak self] in
                while let self, self.lock.withLock({ self.running }) {
                    self.sweep()
                    DetachedThread.sleep(seconds: min(0.25, self.deadline / 4))
                }
                self?.finished.signal()
            }
        } catch {
            lock.withLock { running = false }
            throw error
        }
    }

    func stop() {
        let wasRunning = lock.withLock {
            let was = running
            running = false
            return was
        }
        if wasRunning { finished.wait() }
    }
}
