import Dispatch
import FoundationEssentials
import TamgaSupport

/// The co-signer's accept step, before libmicrohttpd sees a connection. MHD runs without a
/// listening socket of its own; this thread accepts each connection, learns who the client is,
/// asks `ConnectionSlots` whether it gets a slot, and hands it to MHD with that client's address
/// (so MHD's per-address count and the log see the client, not a proxy).
///
/// Who the client is: the peer itself, unless the peer is one of `trustedProxies`. A trusted
/// proxy's connection must start with a PROXY protocol v2 header (`ProxyProtocolHeader`), read
/// here to its last byte and no further (the TLS handshake or request that follows is MHD's),
/// within `headerDeadline`; its source address is the client (for LOCAL, the proxy's own
/// connections such as health checks, the proxy is). A trusted proxy's connection without a
/// valid header is refused. From any other peer a PROXY header is never read: its bytes go to
/// MHD as the start of the request, which MHD refuses as HTTP.
///
/// A refused connection is closed, after a JSON answer on plain HTTP (`ConnectionRefusal`), and
/// counted in the log's summary rather than logged one line each. The same thread sweeps the
/// request deadlines (`ConnectionSlots.sweep`) every quarter of a second and flushes the log.
// unchecked: `pending` is the gate thread's alone; `running` behind `lock`
final class ConnectionGate: @unchecked Sendable {
    let listener: Int32
    let trustedProxies: [AddressRange]
    let headerDeadline: TimeInterval
    /// Refusals get no HTTP answer over TLS.
    let tls: Bool
    let slots: ConnectionSlots
    let log: ConnectionLog
    /// Connections from trusted proxies whose header is still arriving, at most this many.
    static let pendingLimit = 256
    /// Hands an admitted socket to MHD; false when MHD refused it (and closed it).
    private let handOver: @Sendable (Int32, IPAddress, UInt16) -> Bool
    /// The pipe `stop` writes to, to end the thread's wait.
    private let wakeup: (read: Int32, write: Int32)
    private let lock = Lock()
    private var running = false
    private let finished = DispatchSemaphore(value: 0)

    private struct PendingHeader {
        let peer: IPAddress
        let port: UInt16
        let deadline: Date
        var bytes: [UInt8] = []
    }
    private var pending: [Int32: PendingHeader] = [:]
    /// Until when the listener is left alone after the process ran out of descriptors (a
    /// connection that cannot be accepted keeps the socket readable: polling it would spin).
    private var pausedUntil = Date.distantPast

    init(
        listener: Int32, trustedProxies: [AddressRange], headerDeadline: TimeInterval, tls: Bool,
        slots: ConnectionSlots, log: ConnectionLog,
        handOver: @escaping @Sendable (Int32, IPAddress, UInt16) -> Bool
    ) {
        self.listener = listener
        self.trustedProxies = trustedProxies
        self.headerDeadline = headerDeadline
        self.tls = tls
        self.slots = slots
        self.log = log
        self.handOver = handOver
        wakeup = ServerSockets.wakePipe() ?? (-1, -1)
    }

    deinit {
        ServerSockets.close(wakeup.read)
        ServerSockets.close(wakeup.write)
        ServerSockets.close(listener)
    }

    /// Starts the gate's thread; throws when the system cannot make one.
    func start() throws {
        guard wakeup.read >= 0 else {
            throw ServerSockets.Failure.cannotStart("the system gave no pipe to wake the accepting thread")
        }
        lock.withLock { running = true }
        do {
            try DetachedThread.start(name: "cosigner-gate") { [self] in
                run()
                finished.signal()
            }
        } catch {
            lock.withLock { running = false }
            throw error
        }
    }

    /// Stops accepting: the thread ends, connections still sending a header are closed, and the
    /// listening socket is closed (connections MHD has stay MHD's).
    func stop() {
        let wasRunning = lock.withLock {
            let was = running
            running = false
            return was
        }
        guard wasRunning else { return }
        ServerSockets.wake(wakeup.write)
        finished.wait()
    }

    private var isRunning: Bool { lock.withLock { running } }

    private func run() {
        var lastSweep = Date.distantPast
        while isRunning {
            let now = Date()
            let nextHeader = pending.values.map(\.deadline).min() ?? now.addingTimeInterval(0.25)
            var watched = [wakeup.read] + Array(pending.keys)
            if now >= pausedUntil { watched.append(listener) }
            let ready = ServerSockets.waitReadable(
                watched,
                timeout: max(
                    0.005,
                    min(
                        0.25, nextHeader.timeIntervalSince(now),
                        now >= pausedUntil ? 0.25 : pausedUntil.timeIntervalSince(now))))
            if ready.contains(wakeup.read) { ServerSockets.drain(wakeup.read) }
            if ready.contains(listener) { acceptWaiting() }
            for socket in ready where pending[socket] != nil { readHeader(socket) }
            let after = Date()
            for (socket, header) in pending where header.deadline <= after {
                pending.removeValue(forKey: socket)
                refuse(socket, .proxyHeaderLate, from: header.peer)
            }
            if after.timeIntervalSince(lastSweep) >= 0.25 {
                log.shut(atDeadline: slots.sweep(now: after), now: after)
                lastSweep = after
            }
        }
        for socket in pending.keys { ServerSockets.close(socket) }
        pending = [:]
        log.flush(force: true)
    }

    /// Accepts what the kernel has queued, a bounded number at a time so that headers and the
    /// sweep are not starved by a flood.
    private func acceptWaiting() {
        for _ in 0..<512 {
            switch ServerSockets.accept(listener) {
            case .none:
                return
            case .failed:
                continue
            case .outOfDescriptors:
                pausedUntil = Date().addingTimeInterval(0.1)
                log.library(
                    "cannot accept a connection: out of file descriptors (the process's limit, ulimit -n); pausing for 0.1 s",
                    from: "cosigner")
                return
            case .connection(let socket, let peer, let port):
                if trustedProxies.contains(where: { $0.contains(peer) }) {
                    guard pending.count < Self.pendingLimit else {
                        refuse(socket, .full, from: peer)
                        continue
                    }
                    pending[socket] = PendingHeader(
                        peer: peer, port: port, deadline: Date().addingTimeInterval(headerDeadline))
                    readHeader(socket)  // usually already here: a proxy writes it with the connection
                } else {
                    admit(socket, from: peer, port: port)
                }
            }
        }
    }

    /// Reads what has arrived of a trusted proxy's header, exactly up to its end.
    private func readHeader(_ socket: Int32) {
        guard var header = pending[socket] else { return }
        while true {
            let outcome: ProxyProtocolHeader.Outcome
            do {
                outcome = try ProxyProtocolHeader.parse(header.bytes)
            } catch {
                pending.removeValue(forKey: socket)
                return refuse(socket, error, from: header.peer)
            }
            switch outcome {
            case .header(let parsed):
                pending.removeValue(forKey: socket)
                switch parsed.command {
                case .local: return admit(socket, from: header.peer, port: header.port)
                case .proxy(let source, let port): return admit(socket, from: source, port: port)
                }
            case .needs(let total):
                switch ServerSockets.receive(socket, upTo: total - header.bytes.count) {
                case .bytes(let more):
                    header.bytes += more
                case .wouldBlock:
                    pending[socket] = header
                    return
                case .ended:
                    // The proxy gave up on it (its client went away): nothing to answer.
                    pending.removeValue(forKey: socket)
                    return ServerSockets.close(socket)
                }
            }
        }
    }

    private func admit(_ socket: Int32, from client: IPAddress, port: UInt16) {
        switch slots.admit(socket, from: client) {
        case .refused(let refusal):
            refuse(socket, refusal, from: client)
        case .admittedShutting:
            log.shut(forNewcomers: 1)
            fallthrough
        case .admitted:
            ServerSockets.sendImmediately(socket)
            if !handOver(socket, client, port) { slots.abandon(socket) }
        }
    }

    private func refuse(_ socket: Int32, _ refusal: ConnectionRefusal, from client: IPAddress) {
        if !tls { ServerSockets.sendWithoutWaiting(socket, refusal.answer) }
        ServerSockets.closeAfterAnswer(socket)
        log.refused(refusal, from: client)
    }
}
