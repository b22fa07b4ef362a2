internal import CDeferredLibraries
internal import CMicroHTTPD
import FoundationEssentials
import Glibc
import TamgaSupport

/// A request as the handler sees it: method, path, the headers it asked for, the whole body.
public struct HTTPRequest: Sendable {
    public let method: String
    public let path: String
    public let headers: [String: String]  // lower-case names
    public let body: [UInt8]
    /// The query arguments the handler asked for (`?limit=…`).
    public let query: [String: String]
    /// Who sent it: the peer, or the client a trusted proxy's PROXY header named (for logs).
    public let client: IPAddress?

    public init(
        method: String, path: String, headers: [String: String], body: [UInt8], query: [String: String] = [:],
        client: IPAddress? = nil
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.query = query
        self.client = client
    }
}

public struct HTTPResponse: Sendable {
    public let status: Int
    public let headers: [String: String]
    public let body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func json<T: Encodable>(_ value: T, status: Int = 200) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? encoder.encode(value)).map(Array.init) ?? Array("{}".utf8)
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// A JSON error body `{"error": {"code": …, "message": …}}`.
    public static func error(_ status: Int, code: String, message: String) -> HTTPResponse {
        json(["error": ["code": code, "message": message]], status: status)
    }
}

/// An HTTP/1.1 server over libmicrohttpd: a thread pool polls with epoll; each request's body is
/// gathered (up to `maximumBody`, else 413 without calling the handler), then `handler` runs on
/// the pool thread and its response is queued. Stopped by `stop()` or when released.
///
/// Connections are accepted by the server's own gate (`ConnectionGate`), not by MHD: it reads a
/// PROXY protocol v2 header from the `trustedProxies` (and only from them), so that the limits
/// count the real client behind a proxy, and decides who gets one of the `connectionLimit`
/// slots (`ConnectionSlots`): at most `perAddressLimit` per address, under pressure (75% of the
/// slots taken) only a fair share and `pressureRequestDeadline` instead of `requestDeadline`,
/// and once full a new address gets in by shutting the heaviest address's least advanced
/// connection. A request must arrive whole (headers and body) within the deadline of the moment
/// its connection opened or its previous response was sent: MHD's own timeout only counts
/// silence, which a client sending a byte now and then never reaches. Refusals, shut
/// connections and MHD's own lines go to `log`, bounded (`ConnectionLog`). Over-long URLs and
/// header blocks are answered with JSON like every other error, up to MHD's memory limit per
/// connection (past it MHD answers 431 itself).
// unchecked: the daemon is used by its own threads; `stop` is idempotent behind `lock`
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    let handler: Handler
    /// The answer to a body over `maximumBody`, sent without reading the rest of it.
    let oversizedBody: @Sendable (Int) -> HTTPResponse
    let maximumBody: Int
    /// Request headers copied for the handler (MHD hands them out one lookup at a time).
    let headerNames: [String]
    /// Query arguments copied for the handler.
    let queryNames: [String]
    static let maximumURLLength = 2048
    static let maximumHeaderBytes = 16 * 1024
    let slots: ConnectionSlots
    let connectionLog: ConnectionLog
    private var gate: ConnectionGate?
    private var daemon: OpaquePointer?
    private let lock = Lock()
    public let port: UInt16

    /// The co-signer's answer to a body over the limit (its error format).
    public static let bodyTooLarge: @Sendable (Int) -> HTTPResponse = { limit in
        .error(413, code: "body-too-large", message: "the request body is larger than \(limit) bytes")
    }
    /// Where MHD's log lines go: `connectionLog`, through the C logger. Freed once MHD stopped.
    private let logTarget: UnsafeMutablePointer<cmhd_log_target>

    /// The body of one request being received; kept in MHD's per-connection slot.
    final class PendingRequest {
        var body: [UInt8] = []
        var tooLarge = false
        /// Answered before its body was read (413 to a client that asked `Expect: 100-continue`).
        var answered = false
    }

    /// The TLS key and certificate (PEM) as C strings MHD keeps pointers to until it stops;
    /// freed (the key wiped) after the daemon stopped.
    private let tls: (key: UnsafeMutablePointer<CChar>, certificate: UnsafeMutablePointer<CChar>)?

    /// - Parameter tls: PEM key and certificate to serve HTTPS with (GnuTLS inside libmicrohttpd).
    /// - Parameters:
    ///   - connectionLimit: connections at once, from everyone.
    ///   - perAddressLimit: connections at once from one client (an IPv4 address, an IPv6 /64).
    ///   - requestDeadline: the most time a request may take to arrive whole.
    ///   - pressureRequestDeadline: the same while 75% of the connections are taken.
    ///   - trustedProxies: peers whose connections start with a PROXY protocol v2 header naming
    ///     the client (HAProxy's `send-proxy-v2`); nobody else's header is read.
    ///   - proxyHeaderDeadline: how long a trusted proxy's header may take to arrive.
    ///   - log: where the bounded connection log goes (standard error by default);
    ///     `logInterval` is how often its summaries are written.
    public init(
        port: UInt16 = 0, loopbackOnly: Bool = true, threads: UInt32 = 4, maximumBody: Int = 256 * 1024,
        connectionLimit: UInt32 = 256, perAddressLimit: UInt32 = 32, requestDeadline: TimeInterval = 10,
        pressureRequestDeadline: TimeInterval = 3, trustedProxies: [AddressRange] = [],
        proxyHeaderDeadline: TimeInterval = 2,
        headerNames: [String] = ["content-type", "x-device-token", "authorization", "x-attestation"],
        queryNames: [String] = ["limit", "offset"],
        tls: (keyPEM: String, certificatePEM: String)? = nil,
        log: @escaping @Sendable (String) -> Void = { line in
            FileDescriptorOutput.write(line + "\n", to: FileDescriptorOutput.standardError)
        },
        logInterval: TimeInterval = 60,
        oversizedBody: @escaping @Sendable (_ limit: Int) -> HTTPResponse = HTTPServer.bodyTooLarge,
        handler: @escaping Handler
    ) throws {
        // libmicrohttpd is loaded on first use (CDeferredLibraries): a machine without it hears
        // which package to install.
        guard tamga_lazy_load("libmicrohttpd.so.12") != 0 else {
            throw HTTPServerError.libraryMissing(reason: String(cString: tamga_lazy_error("libmicrohttpd.so.12")))
        }
        let listening: (socket: Int32, port: UInt16)
        do {
            listening = try ServerSockets.listen(port: port, loopbackOnly: loopbackOnly)
        } catch {
            throw HTTPServerError.cannotStart(reason: "\(error)")
        }
        self.handler = handler
        self.oversizedBody = oversizedBody
        self.maximumBody = maximumBody
        self.headerNames = headerNames
        self.queryNames = queryNames
        self.port = listening.port
        let total = Int(max(1, connectionLimit)), perAddress = Int(max(1, min(perAddressLimit, connectionLimit)))
        slots = ConnectionSlots(
            limits: .init(
                total: total, perAddress: perAddress, pressureAt: max(1, total * 3 / 4),
                requestDeadline: requestDeadline, pressureDeadline: min(requestDeadline, pressureRequestDeadline)))
        let connectionLog = ConnectionLog(interval: logInterval, write: log)
        self.connectionLog = connectionLog
        logTarget = .allocate(capacity: 1)
        logTarget.initialize(
            to: cmhd_log_target(line: HTTPServer.logLine, context: Unmanaged.passUnretained(connectionLog).toOpaque()))
        if let tls {
            guard let key = strdup(tls.keyPEM), let certificate = strdup(tls.certificatePEM) else {
                ServerSockets.close(listening.socket)
                logTarget.deallocate()
                throw HTTPServerError.cannotStart(reason: "out of memory for the TLS key")
            }
            self.tls = (key, certificate)
        } else {
            self.tls = nil
        }
        // Every property is set by now, so a throw from here on runs deinit, which stops what
        // started and releases the TLS key and the log target.
        let context = Unmanaged.passUnretained(self).toOpaque()
        // MHD's own limits stay above the gate's, which decides: a connection the gate shut is
        // still MHD's until MHD notices the end of its stream, while the gate already counts
        // its replacement.
        guard
            let daemon = cmhd_start(
                threads, UInt32(clamping: 2 * total + 16), UInt32(clamping: 2 * perAddress), 30, 64 * 1024,
                HTTPServer.access, context, HTTPServer.completed, HTTPServer.notify, logTarget,
                self.tls?.key, self.tls?.certificate)
        else {
            ServerSockets.close(listening.socket)
            throw HTTPServerError.cannotStart(reason: "libmicrohttpd refused its options")
        }
        self.daemon = daemon
        let handOver: @Sendable (Int32, IPAddress, UInt16) -> Bool = {
            [daemonAddress = UInt(bitPattern: daemon)] socket, client, port in
            guard let daemon = OpaquePointer(bitPattern: daemonAddress) else { return false }
            return client.bytes.withUnsafeBufferPointer {
                cmhd_add_connection(daemon, socket, $0.baseAddress, $0.count, port)
            } != 0
        }
        let gate = ConnectionGate(
            listener: listening.socket, trustedProxies: trustedProxies, headerDeadline: proxyHeaderDeadline,
            tls: tls != nil,
            slots: slots, log: connectionLog, handOver: handOver)
        self.gate = gate
        do {
            try gate.start()
        } catch {
            throw HTTPServerError.cannotStart(reason: "\(error)")
        }
    }

    deinit {
        stop()
        releaseTLS()
        logTarget.deinitialize(count: 1)
        logTarget.deallocate()
    }

    private func releaseTLS() {
        guard let tls else { return }
        explicit_bzero(tls.key, strlen(tls.key))
        free(tls.key)
        free(tls.certificate)
    }

    /// Stops accepting, then stops MHD (which closes its connections).
    public func stop() {
        lock.withLock {
            gate?.stop()
            gate = nil
            if let daemon { MHD_stop_daemon(daemon) }
            daemon = nil
        }
    }

    /// MHD's log lines, formatted by the shim, into the connection log.
    private static let logLine: cmhd_log_line = { context, line in
        guard let context, let line else { return }
        Unmanaged<ConnectionLog>.fromOpaque(context).takeUnretainedValue().library(String(cString: line))
    }

    /// MHD's access handler: called first with the headers (allocate the pending request), then
    /// with each piece of the body, then once more with none (answer).
    private static let access: MHD_AccessHandlerCallback = {
        context, connection, url, method, _, uploadData, uploadSize, slot in
        guard let context, let connection, let slot, let uploadSize else { return cmhd_result(0) }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        guard let existing = slot.pointee else {
            let pending = PendingRequest()
            slot.pointee = Unmanaged.passRetained(pending).toOpaque()
            // A client that waits for "100 Continue" before sending a body the server would
            // refuse is refused now, and sends nothing more; any other client's body is read and
            // dropped (answering while it still sends would reset its connection before it read
            // the answer).
            if let expect = cmhd_header(connection, "expect"), String(cString: expect).lowercased() == "100-continue",
                let length = cmhd_header(connection, "content-length"), let declared = Int(String(cString: length)),
                declared > server.maximumBody
            {
                pending.answered = true
                server.slots.received(connection)
                return queue(server.oversizedBody(server.maximumBody), on: connection)
            }
            return cmhd_result(1)
        }
        let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeUnretainedValue()
        if pending.answered {
            uploadSize.pointee = 0
            return cmhd_result(1)
        }
        if uploadSize.pointee > 0 {
            if let uploadData, !pending.tooLarge {
                if pending.body.count + uploadSize.pointee > server.maximumBody {
                    pending.tooLarge = true
                    pending.body = []
                } else {
                    pending.body += UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee)
                }
            }
            uploadSize.pointee = 0
            return cmhd_result(1)
        }
        // The request is here whole: from now on the deadline is the handler's business.
        server.slots.received(connection)
        let response: HTTPResponse
        if pending.tooLarge {
            response = server.oversizedBody(server.maximumBody)
        } else if let url, strlen(url) > HTTPServer.maximumURLLength {
            response = .error(
                414, code: "url-too-long", message: "the URL is longer than \(HTTPServer.maximumURLLength) bytes")
        } else if cmhd_header_bytes(connection) > HTTPServer.maximumHeaderBytes {
            response = .error(
                431, code: "headers-too-large",
                message: "the request headers are larger than \(HTTPServer.maximumHeaderBytes) bytes")
        } else {
            var headers: [String: String] = [:]
            for name in server.headerNames {
                if let value = cmhd_header(connection, name) { headers[name] = String(cString: value) }
            }
            var query: [String: String] = [:]
            for name in server.queryNames {
                if let value = cmhd_argument(connection, name) { query[name] = String(cString: value) }
            }
            var address = [UInt8](repeating: 0, count: 16)
            let length = address.withUnsafeMutableBufferPointer { cmhd_connection_address(connection, $0.baseAddress) }
            let request = HTTPRequest(
                method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/",
                headers: headers, body: pending.body, query: query,
                client: IPAddress(bytes: Array(address.prefix(max(0, min(16, Int(length)))))))
            response = server.handler(request)
        }
        return queue(response, on: connection)
    }

    private static func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        response.body.withUnsafeBytes { raw -> MHD_Result in
            guard let mhd = cmhd_response_copy(raw.baseAddress, raw.count) else { return cmhd_result(0) }
            defer { MHD_destroy_response(mhd) }
            for (name, value) in response.headers { MHD_add_response_header(mhd, name, value) }
            return MHD_queue_response(connection, UInt32(response.status), mhd)
        }
    }

    /// Releases the pending request whatever happened to the connection; the next request on a
    /// kept-alive connection gets a new deadline.
    private static let completed: MHD_RequestCompletedCallback = { context, connection, slot, _ in
        if let context, let connection {
            Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().slots.restart(connection)
        }
        guard let slot, let pointer = slot.pointee else { return }
        Unmanaged<PendingRequest>.fromOpaque(pointer).release()
        slot.pointee = nil
    }

    /// Connections opening and closing, for the slots and their deadlines.
    private static let notify: MHD_NotifyConnectionCallback = { context, connection, _, code in
        guard let context, let connection else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        if cmhd_notify_started(code) != 0 {
            var bytes = [UInt8](repeating: 0, count: 16)
            let count = bytes.withUnsafeMutableBufferPointer { cmhd_connection_address(connection, $0.baseAddress) }
            server.slots.opened(
                connection, socket: cmhd_connection_fd(connection),
                address: IPAddress(bytes: Array(bytes.prefix(count))))
        } else {
            server.slots.closed(connection)
        }
    }
}
