internal import COpenSSL
import FoundationEssentials
import Glibc
import TamgaSupport

#if canImport(Glibc)
import Glibc
#endif

/// Why a network exchange failed, before it becomes a `CoreError` naming the service.
enum NetworkFailure: Error {
    /// Could not connect, timed out, TLS refused: the service was not reached.
    case unreachable(String)
    /// Reached, but the answer was not acceptable HTTP.
    case rejected(String)
}

/// One TCP connection (optionally TLS over it) with a deadline for every read and write: the
/// socket is non-blocking and each wait is a `poll` bounded by the time left. Owns the socket
/// and the OpenSSL objects; closes and frees them in `deinit`.
final class NetworkConnection {
    private let fd: Int32
    private let deadline: Date
    private var context: OpaquePointer?  // SSL_CTX
    private var tls: OpaquePointer?  // SSL

    /// Connects to `host`:`port`, trying each address the resolver gives, until `deadline`.
    init(host: String, port: Int, deadline: Date) throws(NetworkFailure) {
        self.deadline = deadline
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .unreachable("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            entry = current.pointee.ai_next
            let fd = socket(
                current.pointee.ai_family,
                current.pointee.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                current.pointee.ai_protocol)
            guard fd >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            if Glibc.connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 || errno == EINPROGRESS {
                if Self.wait(fd, for: Int16(POLLOUT), until: deadline) {
                    var error: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                    if error == 0 {
                        var on: Int32 = 1
                        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                        self.fd = fd
                        return
                    }
                    lastError = String(cString: strerror(error))
                } else {
                    lastError = "timed out"
                }
            } else {
                lastError = String(cString: strerror(errno))
            }
            close(fd)
            if Date() >= deadline { break }
        }
        throw .unreachable("cannot connect to \(host):\(port): \(lastError)")
    }

    deinit {
        if let tls { SSL_free(tls) }
        if let context { SSL_CTX_free(context) }
        close(fd)
    }

    /// Waits until `fd` is ready for `events` or the deadline passes (false then).
    private static func wait(_ fd: Int32, for events: Int16, until deadline: Date) -> Bool {
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return false }
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, Int32(min(left * 1000, 60_000)) + 1)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return false }
        }
    }

    /// TLS 1.2+ over the connection: SNI and certificate name (or IP) checked for `host`, the
    /// chain checked against `anchors` only (pinning) or, when empty, the system's trust store.
    /// With `pinnedKey` (SHA-256 of the server's SubjectPublicKeyInfo), only that key is
    /// accepted, whatever certificate carries it: the pin replaces chain and name checks.
    /// With `pinnedLeaves` (SHA-256 of certificates' DER), the chain and name checks still run
    /// and the server's own certificate must also be one of them (several, for a rotation).
    func startTLS(
        host written: String, anchors: [Certificate], pinnedKey: [UInt8]? = nil, pinnedLeaves: [[UInt8]] = []
    ) throws(NetworkFailure) {
        // SNI and the name check see the canonical name (no root dot, lower case), as the pins do:
        // OpenSSL compares `example.com.` with a certificate's `example.com` as different names.
        guard let host = HostName.canonical(written) else { throw .unreachable("the host is not an ASCII host name") }
        guard let context = SSL_CTX_new(TLS_client_method()) else {
            throw .unreachable("TLS setup failed: \(openSSLErrorText())")
        }
        self.context = context
        _ = cossl_ctx_require_tls12(context)
        SSL_CTX_set_verify(context, pinnedKey == nil ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
        if anchors.isEmpty {
            guard SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw .unreachable("no system trust store: \(openSSLErrorText())")
            }
        } else {
            let store = SSL_CTX_get_cert_store(context)
            for anchor in anchors { X509_STORE_add_cert(store, anchor.handle.pointer) }
            // A pinned certificate may be the server's own or an intermediate, not only a root.
            X509_STORE_set_flags(store, UInt(X509_V_FLAG_PARTIAL_CHAIN))
        }
        guard let tls = SSL_new(context) else { throw .unreachable("TLS setup failed: \(openSSLErrorText())") }
        self.tls = tls
        SSL_set_fd(tls, fd)
        let parameters = SSL_get0_param(tls)
        var address = in6_addr()
        let isIP =
            host.contains(":") ? inet_pton(AF_INET6, host, &address) == 1 : inet_pton(AF_INET, host, &address) == 1
        if isIP {
            X509_VERIFY_PARAM_set1_ip_asc(parameters, host)
        } else {
            _ = cossl_ssl_set_sni(tls, host)
            X509_VERIFY_PARAM_set1_host(parameters, host, 0)
        }
        while true {
            let result = SSL_connect(tls)
            if result == 1 {
                if let pinnedKey {
                    guard let key = peerKeyFingerprint(), ConstantTime.equal(key, pinnedKey) else {
                        throw .unreachable("the server's key is not the one pinned at enrollment")
                    }
                }
                if !pinnedLeaves.isEmpty {
                    guard let leaf = peerCertificateFingerprint(),
                        pinnedLeaves.contains(where: { ConstantTime.equal($0, leaf) })
                    else {
                        throw .unreachable(
                            "the server's TLS certificate is none of the pinned ones (update the leaf pins: docs/cli.md, \"Service certificates\")"
                        )
                    }
                }
                return
            }
            switch SSL_get_error(tls, result) {
            case SSL_ERROR_WANT_READ:
                guard Self.wait(fd, for: Int16(POLLIN), until: deadline) else {
                    throw .unreachable("TLS handshake timed out")
                }
            case SSL_ERROR_WANT_WRITE:
                guard Self.wait(fd, for: Int16(POLLOUT), until: deadline) else {
                    throw .unreachable("TLS handshake timed out")
                }
            default:
                let verification = SSL_get_verify_result(tls)
                if verification != X509_V_OK {
                    throw .unreachable(
                        "the server's TLS certificate is not trusted: \(String(cString: X509_verify_cert_error_string(verification)))"
                    )
                }
                throw .unreachable("TLS handshake failed: \(openSSLErrorText())")
            }
        }
    }

    /// SHA-256 of the server's certificate, DER (after the handshake).
    func peerCertificateFingerprint() -> [UInt8]? {
        guard let tls, let certificate = SSL_get1_peer_certificate(tls) else { return nil }
        defer { X509_free(certificate) }
        guard let der = encodeDER({ i2d_X509(certificate, &$0) }) else { return nil }
        return Array(Digest.compute(.sha256, over: der).bytes)
    }

    /// SHA-256 of the server's SubjectPublicKeyInfo (after the handshake).
    func peerKeyFingerprint() -> [UInt8]? {
        guard let tls, let certificate = SSL_get1_peer_certificate(tls) else { return nil }
        defer { X509_free(certificate) }
        guard let key = X509_get0_pubkey(certificate), let der = encodeDER({ i2d_PUBKEY(key, &$0) }) else { return nil }
        return Array(Digest.compute(.sha256, over: der).bytes)
    }

    func write(_ bytes: [UInt8]) throws(NetworkFailure) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes.count - offset
            let written: Int = bytes.withUnsafeBytes { raw in
                if let tls { return Int(SSL_write(tls, raw.baseAddress! + offset, Int32(min(count, Int(Int32.max))))) }
                return Glibc.send(fd, raw.baseAddress! + offset, count, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                offset += written
                continue
            }
            try waitAfterFailure(result: written, writing: true)
        }
    }

    /// Up to `maximum` bytes; empty at the end of the stream.
    func read(maximum: Int = 16_384) throws(NetworkFailure) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let count: Int = buffer.withUnsafeMutableBytes { raw in
                if let tls { return Int(SSL_read(tls, raw.baseAddress!, Int32(maximum))) }
                return Glibc.recv(fd, raw.baseAddress!, maximum, 0)
            }
            if count > 0 { return Array(buffer.prefix(count)) }
            if count == 0 && tls == nil { return [] }
            if let tls, count <= 0, SSL_get_error(tls, Int32(count)) == SSL_ERROR_ZERO_RETURN { return [] }
            // closed without close_notify
            if let tls, count <= 0, SSL_get_error(tls, Int32(count)) == SSL_ERROR_SYSCALL && errno == 0 { return [] }
            try waitAfterFailure(result: count, writing: false)
        }
    }

    /// After a short read or write: wait if the socket (or TLS) asks to, else fail.
    private func waitAfterFailure(result: Int, writing: Bool) throws(NetworkFailure) {
        var events = Int16(writing ? POLLOUT : POLLIN)
        if let tls {
            switch SSL_get_error(tls, Int32(result)) {
            case SSL_ERROR_WANT_READ: events = Int16(POLLIN)
            case SSL_ERROR_WANT_WRITE: events = Int16(POLLOUT)
            default: throw .unreachable("TLS connection failed: \(openSSLErrorText())")
            }
        } else if !(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
            throw .unreachable("connection failed: \(String(cString: strerror(errno)))")
        }
        guard Self.wait(fd, for: events, until: deadline) else { throw .unreachable("timed out") }
    }
}
