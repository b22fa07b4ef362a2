import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A test tool: a loopback TCP proxy put between an HTTP client and a real server, which loses
/// the exchanges it is told to — the request never delivered, the answer never delivered after
/// the server acted on the request, or an error status answered in the server's place (or a
/// tampered answer, for the failures that must still lock). For
/// showing what one dropped segment does to a protocol (it once cost a signature). One request per
/// connection (`Connection: close`, as `HTTPTransport` sends); plain HTTP only.
public final class LossyProxy: @unchecked Sendable {  // unchecked: `mutex` guards every mutable field
    public enum Fault: Sendable {
        /// The request is read whole and the connection closed: the server never sees it.
        case dropRequest
        /// The request reaches the server, whose whole answer is read; then `before` runs (e.g.
        /// the server is restarted) and the client's connection is reset without the answer.
        case dropAnswer(before: (@Sendable () -> Void)? = nil)
        /// Answered by the proxy itself with this status and a JSON error body; not forwarded.
        case answer(status: Int)
        /// The server's answer (head and body, as bytes) is changed on its way to the client:
        /// a tampered message rather than a lost one.
        case rewriteAnswer(@Sendable ([UInt8]) -> [UInt8])
    }

    /// One exchange that went through: its request line, the fault met (if any), and the
    /// server's status when the server answered.
    public struct Exchange: Sendable {
        public let method: String
        public let path: String
        public let fault: String?
        public let serverStatus: Int?
    }

    public let port: UInt16
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    private let listener: Int32
    private let mutex = NSLock()
    private var upstream: UInt16
    private var faults: [(path: String, fault: Fault)] = []
    private var exchanges: [Exchange] = []
    private var stopped = false
    private var acceptor: Thread?

    /// Listens on a free loopback port and forwards to `upstreamPort` on loopback.
    public init(upstreamPort: UInt16) throws {
        upstream = upstreamPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ProxyFailure("socket: \(errno)") }
        var address = Self.loopback(0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw ProxyFailure("bind/listen: \(errno)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = UInt16(bigEndian: actual.sin_port)
        // The thread keeps the proxy alive until `stop()` (tests stop it in a defer).
        let thread = Thread { [self] in self.acceptLoop() }
        acceptor = thread
        thread.start()
    }

    /// Points the proxy at another server port (a restarted server).
    public func retarget(_ port: UInt16) { mutex.withLock { upstream = port } }

    /// The next `times` requests whose path contains `path` meet `fault` (each once, in order).
    public func inject(_ fault: Fault, whenPathContains path: String, times: Int = 1) {
        mutex.withLock { for _ in 0..<times { faults.append((path, fault)) } }
    }

    /// Every exchange so far, in the order they ended.
    public var log: [Exchange] { mutex.withLock { exchanges } }

    /// Faults injected and not met yet.
    public var pendingFaults: Int { mutex.withLock { faults.count } }

    /// Stops listening (connections in progress finish on their own, bounded by their timeouts).
    public func stop() {
        let first = mutex.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if mutex.withLock({ stopped }) { return }
                continue
            }
            Thread { [self] in self.serve(client) }.start()
        }
    }

    private func serve(_ client: Int32) {
        Self.setTimeout(client, seconds: 10)
        guard let request = Self.readRequest(client) else {
            close(client)
            return
        }
        let line = String(decoding: request.prefix(while: { $0 != 0x0D }), as: UTF8.self).split(separator: " ")
        let method = line.first.map(String.init) ?? "", path = line.count > 1 ? String(line[1]) : ""
        let (fault, port) = mutex.withLock { () -> (Fault?, UInt16) in
            var found: Fault?
            if let index = faults.firstIndex(where: { path.contains($0.path) }) {
                found = faults.remove(at: index).fault
            }
            return (found, upstream)
        }
        func record(_ name: String?, _ status: Int?) {
            mutex.withLock { exchanges.append(Exchange(method: method, path: path, fault: name, serverStatus: status)) }
        }
        switch fault {
        case .dropRequest?:
            Self.reset(client)
            record("dropRequest", nil)
        case .answer(let status)?:
            let body = Array("{\"error\":{\"code\":\"proxy\",\"message\":\"answered by the test proxy\"}}".utf8)
            let head =
                "HTTP/1.1 \(status) Proxy Fault\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            Self.writeAll(client, Array(head.utf8) + body)
            close(client)
            record("answer \(status)", nil)
        case .dropAnswer(let before)?:
            let answer = Self.forward(request, to: port)
            before?()
            Self.reset(client)
            record("dropAnswer", answer.flatMap(Self.status))
        case .rewriteAnswer(let change)?:
            guard let answer = Self.forward(request, to: port) else {
                Self.reset(client)
                record("upstream unreachable", nil)
                return
            }
            Self.writeAll(client, change(answer))
            close(client)
            record("rewriteAnswer", Self.status(answer))
        case nil:
            guard let answer = Self.forward(request, to: port) else {
                Self.reset(client)
                record("upstream unreachable", nil)
                return
            }
            Self.writeAll(client, answer)
            close(client)
            record(nil, Self.status(answer))
        }
    }

    /// The request's bytes: the head up to the blank line and `Content-Length` bytes of body.
    private static func readRequest(_ fd: Int32) -> [UInt8]? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var bodyStart: Int?
        var expected = 0
        var searched = 0
        while data.count < 4 << 20 {
            if bodyStart == nil, let end = find([13, 10, 13, 10], in: data, from: searched) {
                bodyStart = end + 4
                let head = String(decoding: data[..<end], as: UTF8.self).lowercased()
                for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
                    expected = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let bodyStart, data.count >= bodyStart + expected { return data }
            searched = max(0, data.count - 3)
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { return nil }
            data += buffer[0..<count]
        }
        return nil
    }

    /// Sends `request` to the server and reads its answer to the end (the server closes).
    private static func forward(_ request: [UInt8], to port: UInt16) -> [UInt8]? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        setTimeout(fd, seconds: 30)
        var address = loopback(port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0, writeAll(fd, request) else { return nil }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while answer.count < 4 << 20 {
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        return answer.isEmpty ? nil : answer
    }

    private static func status(_ answer: [UInt8]) -> Int? {
        let line = String(decoding: answer.prefix(while: { $0 != 0x0D }).prefix(100), as: UTF8.self).split(
            separator: " ")
        return line.count > 1 ? Int(line[1]) : nil
    }

    @discardableResult
    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Closes with a TCP reset (SO_LINGER 0), as a dropped connection looks to the client.
    private static func reset(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(fd)
    }

    private static func setTimeout(_ fd: Int32, seconds: Int) {
        var value = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard haystack.count >= needle.count, from <= haystack.count - needle.count else { return nil }
        for start in from...(haystack.count - needle.count)
        where haystack[start..<start + needle.count].elementsEqual(needle) { return start }
        return nil
    }
}

public struct ProxyFailure: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
