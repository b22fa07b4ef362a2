import FoundationEssentials
import Glibc
import TamgaSupport

/// Who holds the server's connection slots, and the policy that keeps a few clients from holding
/// them all (measured: nine addresses with 32 slow connections each held all 256 slots, and a
/// tenth address failed half its health checks).
///
/// Each connection is counted against its client's `IPAddress.limitKey` — the peer's address, or
/// the one a trusted proxy's PROXY header names — from the moment `ConnectionGate` admits it to
/// the moment MHD reports it closed. A request must arrive whole within the request deadline of
/// its connection opening or of the previous answer on it, however slowly it trickles (MHD's own
/// timeout counts only silence); the sweeper shuts the late ones.
///
/// While fewer than `pressureAt` of the `total` slots are taken, an address may hold up to
/// `perAddress`. From `pressureAt` on (75% by default) the server is under pressure:
/// - an address may hold only its fair share, `total` divided by the addresses holding slots
///   (counting a newcomer), at least 1 and at most `perAddress`: more is refused, unless the
///   address has a kept-alive connection it is not using (answered, nothing received since),
///   which the new one then replaces (a proxy's or a browser's pool of idle connections would
///   otherwise lock its own client out);
/// - the request deadline is `pressureDeadline` (3 s by default) instead of `requestDeadline`;
/// - once every slot is taken, a client is let in by shutting one connection of the address that
///   holds the most — one holding at least two more than the newcomer, or any, for an address
///   that holds none: an address with no connection gets in as long as some connection is
///   still waiting for its request. The connection shut is one waiting for its request (never
///   one whose request is being answered) that has delivered the fewest bytes since its request
///   began (the kernel counts them, `ServerSockets.bytesReceived`), the oldest among equals;
///   connections younger than `evictionGrace` go last, since a new client has had no time to
///   send anything. When every connection is being answered, the newcomer is refused.
///
/// The gate's thread sweeps the deadlines every quarter of a second (`sweep`).
final class ConnectionSlots: @unchecked Sendable {  // unchecked: every table behind `lock`
    struct Limits: Sendable {
        var total: Int
        var perAddress: Int
        var pressureAt: Int
        var requestDeadline: TimeInterval
        var pressureDeadline: TimeInterval
        var evictionGrace: TimeInterval = 0.5
    }

    struct Entry {
        let key: IPAddress
        let opened: Date
        /// When the current request began: the connection's opening or the previous answer.
        var since: Date
        /// Waiting for (the rest of) a request; false while the handler and the answer run.
        var receiving = true
        /// Shut by the sweeper or for a newcomer; MHD has yet to report it closed.
        var shut = false
        /// MHD's connection, once MHD reports it started (the handover is asynchronous).
        var connection: OpaquePointer?
        /// The kernel's byte count when the current request began.
        var bytesAtStart: UInt64 = 0
        /// Whether an answer went out on it: waiting with nothing new since, it is a kept-alive
        /// connection its client is not using.
        var answered = false
    }

    enum Admission: Equatable {
        case admitted
        /// Admitted after shutting this other connection.
        case admittedShutting(Int32)
        case refused(ConnectionRefusal)
    }

    let limits: Limits
    private let lock = Lock()
    private var entries: [Int32: Entry] = [:]
    private var sockets: [OpaquePointer: Int32] = [:]
    /// Connections not shut, in all and per limit key (keys with none are removed).
    private var live = 0
    private var perKey: [IPAddress: Int] = [:]
    private let bytesReceived: @Sendable (Int32) -> UInt64?
    private let shut: @Sendable (Int32) -> Void

    init(
        limits: Limits, bytesReceived: @escaping @Sendable (Int32) -> UInt64? = ServerSockets.bytesReceived,
        shut: @escaping @Sendable (Int32) -> Void = ServerSockets.shut
    ) {
        self.limits = limits
        self.bytesReceived = bytesReceived
        self.shut = shut
    }

    /// The connections not shut, in all and from `address`'s key.
    func count(from address: IPAddress? = nil) -> Int {
        lock.withLock { address.map { perKey[$0.limitKey] ?? 0 } ?? live }
    }

    var underPressure: Bool { lock.withLock { live >= limits.pressureAt } }

    /// Decides whether a connection just accepted on `socket` from `address` gets a slot, and
    /// records it when it does (before it is handed to MHD, which may report it any time after).
    func admit(_ socket: Int32, from address: IPAddress, now: Date = Date()) -> Admission {
        let key = address.limitKey
        return lock.withLock {
            // A descriptor the kernel gave again is no longer the connection recorded under it.
            if entries[socket] != nil { remove(socket) }
            let holding = perKey[key] ?? 0
            let share: Int
            if live >= limits.pressureAt {
                let holders = perKey.count + (holding == 0 ? 1 : 0)
                share = max(1, min(limits.perAddress, limits.total / max(1, holders)))
            } else {
                share = limits.perAddress
            }
            var shutting: Int32?
            if holding >= share {
                // At its share, an address may still replace a connection of its own that it
                // keeps alive and does not use (a proxy's or a browser's pool): it only ever
                // displaces itself.
                guard let idle = idleConnection(of: key) else { return .refused(.addressShare(share)) }
                markShut(idle)
                shutting = idle
            } else if live >= limits.total {
                guard let victim = victim(for: key, holding: holding, now: now) else { return .refused(.full) }
                markShut(victim)
                shutting = victim
            }
            entries[socket] = Entry(key: key, opened: now, since: now)
            live += 1
            perKey[key, default: 0] += 1
            return shutting.map { .admittedShutting($0) } ?? .admitted
        }
    }

    /// MHD did not take a connection it was handed (and closed it).
    func abandon(_ socket: Int32) {
        lock.withLock { if entries[socket]?.connection == nil { remove(socket) } }
    }

    /// MHD started `connection` on `socket`. `address` is MHD's record of the client (what the
    /// gate handed over), for a connection the table does not know.
    func opened(_ connection: OpaquePointer, socket: Int32, address: IPAddress?, now: Date = Date()) {
        guard socket >= 0 else { return }
        lock.withLock {
            if entries[socket] == nil {
                let key = (address ?? .unspecified).limitKey
                entries[socket] = Entry(key: key, opened: now, since: now)
                live += 1
                perKey[key, default: 0] += 1
            }
            entries[socket]?.connection = connection
            entries[socket]?.bytesAtStart = bytesReceived(socket) ?? 0
            sockets[connection] = socket
        }
    }

    /// The request on `connection` is here whole: from now on its time is the handler's.
    func received(_ connection: OpaquePointer) {
        lock.withLock { if let socket = sockets[connection] { entries[socket]?.receiving = false } }
    }

    /// The answer went out: the next request on the connection gets a new deadline.
    func restart(_ connection: OpaquePointer, now: Date = Date()) {
        lock.withLock {
            guard let socket = sockets[connection], entries[socket] != nil else { return }
            entries[socket]?.since = now
            entries[socket]?.receiving = true
            entries[socket]?.answered = true
            entries[socket]?.bytesAtStart = bytesReceived(socket) ?? 0
        }
    }

    /// MHD closed `connection` (it reports this before it closes the socket, so a descriptor in
    /// the table is never one the kernel has given to another connection).
    func closed(_ connection: OpaquePointer) {
        lock.withLock {
            guard let socket = sockets.removeValue(forKey: connection), entries[socket]?.connection == connection else {
                return
            }
            remove(socket)
        }
    }

    /// Shuts the connections whose request is past its deadline (`pressureDeadline` under
    /// pressure), and forgets handovers MHD never started; the number shut.
    @discardableResult
    func sweep(now: Date = Date()) -> Int {
        lock.withLock {
            let deadline = live >= limits.pressureAt ? limits.pressureDeadline : limits.requestDeadline
            var count = 0
            for (socket, entry) in entries {
                if entry.connection == nil {
                    if now.timeIntervalSince(entry.opened) > 10 { remove(socket) }
                    continue
                }
                guard entry.receiving, !entry.shut, now.timeIntervalSince(entry.since) > deadline else { continue }
                markShut(socket)
                count += 1
            }
            return count
        }
    }

    // MARK: Under the lock

    /// The connection to shut for a newcomer from `key`, which holds `holding`: of the
    /// addresses holding the most (and enough more than the newcomer), the connection that is
    /// not young and has delivered the fewest bytes, the oldest among equals (and the lowest
    /// descriptor, so that the choice does not depend on a table's order).
    private func victim(for key: IPAddress, holding: Int, now: Date) -> Int32? {
        let needed = holding == 0 ? 1 : holding + 2
        var best: (socket: Int32, rank: (Int, Int, UInt64, Date, Int32))?
        for (socket, entry) in entries
        where entry.key != key && !entry.shut && entry.receiving && entry.connection != nil {
            let holds = perKey[entry.key] ?? 0
            guard holds >= needed else { continue }
            let received = bytesReceived(socket) ?? entry.bytesAtStart
            let rank = (
                -holds, now.timeIntervalSince(entry.opened) < limits.evictionGrace ? 1 : 0,
                received >= entry.bytesAtStart ? received - entry.bytesAtStart : 0, entry.since, socket
            )
            if best.map({ rank < $0.rank }) ?? true { best = (socket, rank) }
        }
        return best?.socket
    }

    /// The longest-unused kept-alive connection of `key`: answered before, waiting, and not a
    /// byte received since its last answer.
    private func idleConnection(of key: IPAddress) -> Int32? {
        entries.filter {
            $0.value.key == key && !$0.value.shut && $0.value.receiving && $0.value.answered
                && $0.value.connection != nil
        }
        .filter { (bytesReceived($0.key) ?? UInt64.max) == $0.value.bytesAtStart }
        .min { $0.value.since < $1.value.since }?.key
    }

    private func markShut(_ socket: Int32) {
        guard let entry = entries[socket], !entry.shut else { return }
        // Under the lock: MHD reports the close (and so drops the entry) before it closes the
        // socket, so this descriptor is still the connection's.
        shut(socket)
        entries[socket]?.shut = true
        release(entry.key)
    }

    private func remove(_ socket: Int32) {
        guard let entry = entries.removeValue(forKey: socket) else { return }
        if let connection = entry.connection, sockets[connection] == socket { sockets.removeValue(forKey: connection) }
        if !entry.shut { release(entry.key) }
    }

    private func release(_ key: IPAddress) {
        live -= 1
        let left = (perKey[key] ?? 1) - 1
        perKey[key] = left > 0 ? left : nil
    }
}
