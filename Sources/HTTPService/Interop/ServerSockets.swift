internal import CMicroHTTPD
import FoundationEssentials
import Glibc

/// The socket calls of the co-signer's own accept step (`ConnectionGate`): the listening socket,
/// accepting without blocking, reading a PROXY header's exact bytes, a best-effort answer before
/// closing, and the kernel's count of bytes received.
enum ServerSockets {
    enum Failure: Error, CustomStringConvertible {
        case cannotListen(port: UInt16, reason: String)
        case cannotStart(String)
        var description: String {
            switch self {
            case .cannotListen(let port, let reason): "cannot listen on port \(port) (\(reason))"
            case .cannotStart(let reason): "cannot start the HTTP server: \(reason)"
            }
        }
    }

    /// A non-blocking TCP listening socket on 127.0.0.1 or on every IPv4 address; the port the
    /// system picked when `port` is 0.
    static func listen(port: UInt16, loopbackOnly: Bool) throws(Failure) -> (socket: Int32, port: UInt16) {
        let fd = socket(
            AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .cannotListen(port: port, reason: String(cString: strerror(errno))) }
        var on: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = (loopbackOnly ? INADDR_LOOPBACK : INADDR_ANY).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        // The kernel's queue of connections not yet accepted: the most it allows
        // (net.core.somaxconn), so that a burst waits there rather than being dropped.
        guard bound, Glibc.listen(fd, SOMAXCONN) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw .cannotListen(port: port, reason: reason == "Address already in use" ? "in use" : reason)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    enum Accepted {
        case connection(socket: Int32, peer: IPAddress, port: UInt16)
        /// Nothing waiting.
        case none
        /// The process or the system is out of descriptors (the connection stays queued).
        case outOfDescriptors
        /// One connection failed between the kernel's queue and here (reset, aborted): next.
        case failed
    }

    /// One connection from the queue, non-blocking and close-on-exec.
    static func accept(_ listener: Int32) -> Accepted {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        // accept, not accept4 (which the Glibc module hides behind _GNU_SOURCE), then the flags.
        let fd = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.accept(listener, $0, &length) }
        }
        guard fd >= 0 else {
            switch errno {
            case EAGAIN, EWOULDBLOCK: return .none
            case EMFILE, ENFILE, ENOBUFS, ENOMEM: return .outOfDescriptors
            default: return .failed
            }
        }
        makeNonBlocking(fd)
        guard let (peer, port) = address(of: storage) else {
            close(fd)
            return .failed
        }
        return .connection(socket: fd, peer: peer, port: port)
    }

    private static func address(of storage: sockaddr_storage) -> (IPAddress, UInt16)? {
        var copy = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &copy) { raw in
                let address = raw.load(as: sockaddr_in.self)
                return IPAddress(bytes: withUnsafeBytes(of: address.sin_addr) { Array($0) }).map {
                    ($0, UInt16(bigEndian: address.sin_port))
                }
            }
        case AF_INET6:
            return withUnsafeBytes(of: &copy) { raw in
                let address = raw.load(as: sockaddr_in6.self)
                return IPAddress(bytes: withUnsafeBytes(of: address.sin6_addr) { Array($0) }).map {
                    ($0, UInt16(bigEndian: address.sin6_port))
                }
            }
        default:
            return nil
        }
    }

    enum Received {
        case bytes([UInt8])
        case wouldBlock
        /// The peer closed or reset the connection.
        case ended
    }

    /// At most `count` bytes, without blocking: a PROXY header is read to its last byte and not
    /// one further, so what follows (a TLS ClientHello, a request) is left for MHD.
    static func receive(_ fd: Int32, upTo count: Int) -> Received {
        guard count > 0 else { return .bytes([]) }
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, Int32(MSG_DONTWAIT)) }
        if got > 0 { return .bytes(Array(buffer.prefix(got))) }
        if got < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .wouldBlock }
        return .ended
    }

    /// Writes what fits without waiting (a refusal's answer); the rest is dropped.
    static func sendWithoutWaiting(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL)) }
    }

    /// Ends a connection so that the peer sees it at once and this side keeps no lingering state.
    static func close(_ fd: Int32) { Glibc.close(fd) }

    /// Closes a refused connection after its answer: what the client already sent is read
    /// first (up to 64 KiB, without waiting), since closing a socket with unread bytes makes the
    /// kernel reset the connection, and a reset can take the answer with it.
    static func closeAfterAnswer(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        for _ in 0..<4 {
            let got = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if got < buffer.count { break }
        }
        Glibc.close(fd)
    }

    /// Shuts a connection MHD owns: MHD sees the end of the stream on its own threads and closes
    /// the socket itself (a `close` here would race MHD's use of the descriptor).
    static func shut(_ fd: Int32) { shutdown(fd, Int32(SHUT_RDWR)) }

    /// The bytes the kernel has received on `fd` so far, or nil when it does not say.
    static func bytesReceived(_ fd: Int32) -> UInt64? {
        let value = cmhd_bytes_received(fd)
        return value == UInt64.max ? nil : value
    }

    /// Non-blocking and closed on exec (a new socket has no other descriptor flag).
    static func makeNonBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    /// Answers go out as soon as they are written (set on connections that are kept, not on
    /// the ones refused at once).
    static func sendImmediately(_ fd: Int32) {
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// A pipe to wake a thread blocked in `poll`: (read end, write end), or nil.
    static func wakePipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        ends.forEach(makeNonBlocking)
        return (ends[0], ends[1])
    }

    static func wake(_ fd: Int32) {
        var one: UInt8 = 1
        _ = write(fd, &one, 1)
    }

    static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64)
        _ = read(fd, &buffer, buffer.count)
    }

    /// Waits until one of `descriptors` is readable, or `timeout` passes; which ones are.
    static func waitReadable(_ descriptors: [Int32], timeout: TimeInterval) -> Set<Int32> {
        var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let ready = entries.withUnsafeMutableBufferPointer {
            poll($0.baseAddress, nfds_t($0.count), Int32(max(0, min(timeout, 10)) * 1000))
        }
        guard ready > 0 else { return [] }
        return Set(entries.filter { $0.revents != 0 }.map(\.fd))
    }
}
