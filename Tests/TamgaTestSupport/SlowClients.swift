import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Slow clients from many source addresses, for the starvation tests: each address
/// keeps `perAddress` connections open to a server on 127.0.0.1, each sending the start of a
/// request and then one byte a second, and opens a new one as soon as one is closed (by a
/// deadline, a refusal, an eviction) — the way an attacker holds a server's slots. All of 127/8
/// is loopback on Linux, so each address is a real source address to the server (bound before
/// connect).
///
/// One thread drives every connection with non-blocking sockets and `poll`, in turns of 50 ms:
/// a connection the server closed is opened again on the next turn after 50 ms (each of an
/// address's `perAddress` slots holds one connection at a time, so at most 20 new ones a second
/// per slot, 10,000 a second for 50 addresses of 10).
// unchecked: the counters behind `lock`; the sockets are the thread's
public final class SlowClients: @unchecked Sendable {
    /// What each connection sends before it trickles.
    public enum Opening: Sendable {
        /// A request line and one header, then a byte a second into the next header line.
        case headers
        /// Whole headers announcing a 100 kB body, then the body a byte a second.
        case body
        /// A TLS record header announcing a ClientHello, then the record a byte a second.
        case tlsHandshake

        var bytes: [UInt8] {
            switch self {
            case .headers: Array("POST /v3/rp/session HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8)
            case .body:
                Array(
                    "POST /v3/rp/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"
                        .utf8)
            case .tlsHandshake: [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03]
            }
        }
    }

    public struct Counts: Sendable, CustomStringConvertible {
        /// Connections established, in all.
        public var opened = 0
        /// Closed by the server (end of stream or reset), in all.
        public var closedByServer = 0
        /// Open just now (established, not yet closed).
        public var open = 0
        public var description: String { "\(opened) opened, \(closedByServer) closed by the server, \(open) open now" }
    }

    private struct Slot {
        let address: String
        let opening: [UInt8]
        var socket: Int32 = -1
        var connected = false
        var lastByte = Date.distantPast
        var reopenAt = Date.distantPast
    }

    private let port: UInt16
    private let destination: String
    private var slots: [Slot]
    private let lock = NSLock()
    private var counts = Counts()
    private var running = false
    private let finished = DispatchSemaphore(value: 0)

    /// - Parameter openings: what the connections send, taken in turn.
    public init(
        port: UInt16, destination: String = "127.0.0.1", addresses: [String], perAddress: Int, openings: [Opening]
    ) {
        self.port = port
        self.destination = destination
        var slots: [Slot] = []
        for address in addresses {
            for _ in 0..<perAddress {
                slots.append(Slot(address: address, opening: openings[slots.count % openings.count].bytes))
            }
        }
        self.slots = slots
        // Each connection is a descriptor in this process: raise the soft limit to the hard one.
        var limit = rlimit()
        if getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = min(limit.rlim_max, 65_536)
            setrlimit(RLIMIT_NOFILE_VALUE, &limit)
        }
    }

    public var current: Counts {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }

    public func start() {
        running = true
        let thread = Thread { [self] in
            while isRunning { turn() }
            for index in slots.indices where slots[index].socket >= 0 { close(slots[index].socket) }
            finished.signal()
        }
        thread.name = "slow-clients"
        thread.start()
    }

    public func stop() {
        lock.lock()
        let was = running
        running = false
        lock.unlock()
        if was { finished.wait() }
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    private func update(_ change: (inout Counts) -> Void) {
        lock.lock()
        change(&counts)
        lock.unlock()
    }

    /// One 50 ms turn: open what is closed, notice what the server closed, trickle. A turn
    /// that ends early sleeps out its 50 ms: the attackers share this machine's cores with the
    /// server and the checks, and need not spin to keep their pace.
    private func turn() {
        let now = Date()
        defer {
            let left = 0.05 - Date().timeIntervalSince(now)
            if left > 0 { usleep(UInt32(left * 1_000_000)) }
        }
        for index in slots.indices where slots[index].socket < 0 && slots[index].reopenAt <= now { open(index) }
        var entries = slots.map { pollfd(fd: $0.socket, events: Int16($0.connected ? POLLIN : POLLOUT), revents: 0) }
        _ = entries.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 50) }
        for index in slots.indices where slots[index].socket >= 0 {
            let events = entries[index].revents
            if !slots[index].connected {
                guard events != 0 else { continue }
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(slots[index].socket, SOL_SOCKET, SO_ERROR, &error, &length)
                guard error == 0, events & Int16(POLLOUT) != 0 else {
                    drop(index, byServer: false)
                    continue
                }
                slots[index].connected = true
                update {
                    $0.opened += 1
                    $0.open += 1
                }
                send(index, slots[index].opening)
                slots[index].lastByte = now
                continue
            }
            if events != 0 {
                // An answer (a refusal's 429) or the end: read it all; the end closes the slot.
                var buffer = [UInt8](repeating: 0, count: 4096)
                let got = recv(slots[index].socket, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                    drop(index, byServer: true)
                    continue
                }
            }
            if now.timeIntervalSince(slots[index].lastByte) >= 1 {
                send(index, [0x58])
                slots[index].lastByte = now
            }
        }
    }

    private func open(_ index: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, slots[index].address, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        inet_pton(AF_INET, destination, &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, connected == 0 || errno == EINPROGRESS else {
            close(fd)
            return
        }
        slots[index].socket = fd
        slots[index].connected = false
    }

    private func send(_ index: Int, _ bytes: [UInt8]) {
        let sent = bytes.withUnsafeBytes {
            Glibc.send(slots[index].socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
        if sent < 0, errno != EAGAIN, errno != EWOULDBLOCK { drop(index, byServer: true) }
    }

    private func drop(_ index: Int, byServer: Bool) {
        close(slots[index].socket)
        if slots[index].connected {
            update {
                $0.open -= 1
                if byServer { $0.closedByServer += 1 }
            }
        }
        slots[index].socket = -1
        slots[index].connected = false
        slots[index].reopenAt = Date().addingTimeInterval(0.05)
    }
}

/// RLIMIT_NOFILE as `getrlimit` takes it (an enum in Glibc's import, an Int32 elsewhere).
private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)

/// Health checks timed one by one, for the starvation tests: how many answered 200 within the
/// bound, and the latencies of all.
public struct ProbeReport: Sendable, CustomStringConvertible {
    public var latencies: [TimeInterval] = []
    public var succeeded = 0
    public var failures: [String] = []
    public var tries: Int { latencies.count }

    public init() {}

    /// The latency below which `fraction` of the tries answered (failures count as the bound).
    public func percentile(_ fraction: Double) -> TimeInterval {
        let sorted = latencies.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    public var description: String {
        String(
            format: "%d of %d answered 200 within 1 s; latency p50 %.1f ms, p99 %.1f ms, max %.1f ms", succeeded, tries,
            percentile(0.5) * 1000, percentile(0.99) * 1000, (latencies.max() ?? 0) * 1000)
            + (failures.isEmpty
                ? ""
                : "; failures: "
                    + failures.prefix(5).map {
                        $0.replacingOccurrences(of: "\r\n", with: " | ").replacingOccurrences(of: "\n", with: " | ")
                    }.joined(separator: "; "))
    }
}

/// One plain-HTTP GET from `source` to 127.0.0.1:`port` on a new connection, with one deadline
/// for all of it (connect, send, the whole answer): the status, or nil when the deadline passed
/// or the connection failed.
public func timedGet(
    _ path: String, port: UInt16, from source: String, within bound: TimeInterval
) -> (status: Int?, failure: String?) {
    let deadline = Date().addingTimeInterval(bound)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { return (nil, "no socket") }
    defer { close(fd) }
    var local = sockaddr_in()
    local.sin_family = sa_family_t(AF_INET)
    inet_pton(AF_INET, source, &local.sin_addr)
    var remote = sockaddr_in()
    remote.sin_family = sa_family_t(AF_INET)
    remote.sin_port = port.bigEndian
    inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
    let bound = withUnsafePointer(to: &local) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    let connected = withUnsafePointer(to: &remote) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard bound == 0, connected == 0 || errno == EINPROGRESS else {
        return (nil, "connect: \(String(cString: strerror(errno)))")
    }
    func wait(_ events: Int32) -> Bool {
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else { return false }
        var entry = pollfd(fd: fd, events: Int16(events), revents: 0)
        return poll(&entry, 1, Int32(left * 1000) + 1) > 0
    }
    guard wait(POLLOUT) else { return (nil, "no connection within the bound") }
    var error: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
    guard error == 0 else { return (nil, "connect: \(String(cString: strerror(error)))") }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
    guard request.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count
    else { return (nil, "send failed") }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        guard wait(POLLIN) else { return (nil, "no whole answer within the bound (\(answer.count) bytes)") }
        let got = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if got > 0 {
            answer += buffer.prefix(got)
            continue
        }
        if got < 0, errno == EAGAIN || errno == EWOULDBLOCK { continue }
        break
    }
    let text = String(decoding: answer, as: UTF8.self)
    guard let status = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
        return (nil, "no HTTP answer (\(answer.count) bytes)")
    }
    return (status, status == 200 ? nil : String(text.suffix(200)))
}
