internal import CMicroHTTPD
internal import CDeferredLibraries
import FoundationEssentials
import Glibc
import TamgaSupport

/// A request as the handler sees it: method, path, the headers it asked for, the whole body.
public struct HTTPRequest: Sendable {
    public let method: String
    public let path: String
    public let headers: [String: String]   // lower-case names
    public let body: [UInt8]
    /// The query arguments the handler asked for (`?limit=…`).
    public let query: [String: String]

    public init(method: String, path: String, headers: [String: String], body: [UInt8], query: [String: String] = [:]) {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
        self.query = query
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
/// Slow clients cannot hold the slots: one address gets at most `perAddressLimit` connections,
/// and a request must arrive whole (headers and body) within `requestDeadline` of the moment its
/// connection opened or its previous response was sent. MHD's own timeout only counts silence,
/// which a client sending a byte now and then never reaches; the deadline here is absolute
/// (`ConnectionDeadlines`). Over-long URLs and header blocks are answered with JSON like every
/// other error, up to MHD's memory limit per connection (past it MHD answers 431 itself).
public final class HTTPServer: @unchecked Sendable {   // unchecked: the daemon is used by its own threads; `stop` is idempotent behind `lock`
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    let handler: Handler
    let maximumBody: Int
    /// Request headers copied for the handler (MHD hands them out one lookup at a time).
    let headerNames: [String]
    /// Query arguments copied for the handler.
    let queryNames: [String]
    static let maximumURLLength = 2048
    static let maximumHeaderBytes = 16 * 1024
    let deadlines: ConnectionDeadlines
    private var daemon: OpaquePointer?
    private let lock = Lock()
    public private(set) var port: UInt16 = 0

    /// The body of one request being received; kept in MHD's per-connection slot.
    final class PendingRequest {
        var body: [UInt8] = []
        var tooLarge = false
    }

    /// The TLS key and certificate (PEM) as C strings MHD keeps pointers to until it stops;
    /// freed (the key wiped) after the daemon stopped.
    private let tls: (key: UnsafeMutablePointer<CChar>, certificate: UnsafeMutablePointer<CChar>)?

    /// - Parameter tls: PEM key and certificate to serve HTTPS with (GnuTLS inside libmicrohttpd).
    /// - Parameters:
    ///   - connectionLimit: connections at once, from everyone.
    ///   - perAddressLimit: connections at once from one IP address.
    ///   - requestDeadline: the most time a request may take to arrive whole.
    public init(port: UInt16 = 0, loopbackOnly: Bool = true, threads: UInt32 = 4, maximumBody: Int = 256 * 1024,
                connectionLimit: UInt32 = 256, perAddressLimit: UInt32 = 32, requestDeadline: TimeInterval = 10,
                headerNames: [String] = ["content-type", "x-device-token", "authorization", "x-attestation"],
                queryNames: [String] = ["limit", "offset"],
                tls: (keyPEM: String, certificatePEM: String)? = nil, handler: @escaping Handler) throws {
        // libmicrohttpd is loaded on first use (CDeferredLibraries): a machine without it hears
        // which package to install.
        guard tamga_lazy_load("libmicrohttpd.so.12") != 0 else {
            throw DatabaseError(code: 0, message: "the co-signer's HTTP server needs libmicrohttpd, which cannot be loaded (\(String(cString: tamga_lazy_error("libmicrohttpd.so.12")))): install the libmicrohttpd12 package")
        }
        self.handler = handler
        self.maximumBody = maximumBody
        self.headerNames = headerNames
        self.queryNames = queryNames
        deadlines = ConnectionDeadlines(deadline: requestDeadline)
        if let tls {
            guard let key = strdup(tls.keyPEM), let certificate = strdup(tls.certificatePEM) else {
                throw DatabaseError(code: 0, message: "out of memory for the TLS key")
            }
            self.tls = (key, certificate)
        } else {
            self.tls = nil
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let daemon = cmhd_start(port, loopbackOnly ? 1 : 0, threads, connectionLimit, perAddressLimit, 30, 64 * 1024,
                                      HTTPServer.access, context, HTTPServer.completed, HTTPServer.notify,
                                      self.tls?.key, self.tls?.certificate) else {
            releaseTLS()
            throw DatabaseError(code: 0, message: "cannot listen on port \(port) (in use?)")
        }
        self.daemon = daemon
        self.port = cmhd_port(daemon)
        // Every property is set by now, so a throw here runs deinit, which stops the daemon and
        // releases the TLS key.
        do {
            try deadlines.start()
        } catch {
            throw DatabaseError(code: 0, message: "\(error)")
        }
    }

    deinit {
        stop()
        releaseTLS()
    }

    private func releaseTLS() {
        guard let tls else { return }
        explicit_bzero(tls.key, strlen(tls.key))
        free(tls.key)
        free(tls.certificate)
    }

    public func stop() {
        lock.withLock {
            if let daemon { MHD_stop_daemon(daemon) }
            daemon = nil
        }
        deadlines.stop()
    }

    /// MHD's access handler: called first with the headers (allocate the pending request), then
    /// with each piece of the body, then once more with none (answer).
    private static let access: MHD_AccessHandlerCallback = { context, connection, url, method, _, uploadData, uploadSize, slot in
        guard let context, let connection, let slot, let uploadSize else { return cmhd_result(0) }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        guard let existing = slot.pointee else {
            slot.pointee = Unmanaged.passRetained(PendingRequest()).toOpaque()
            return cmhd_result(1)
        }
        let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeUnretainedValue()
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
        server.deadlines.received(connection)
        let response: HTTPResponse
        if pending.tooLarge {
            response = .error(413, code: "body-too-large", message: "the request body is larger than \(server.maximumBody) bytes")
        } else if let url, strlen(url) > HTTPServer.maximumURLLength {
            response = .error(414, code: "url-too-long", message: "the URL is longer than \(HTTPServer.maximumURLLength) bytes")
        } else if cmhd_header_bytes(connection) > HTTPServer.maximumHeaderBytes {
            response = .error(431, code: "headers-too-large", message: "the request headers are larger than \(HTTPServer.maximumHeaderBytes) bytes")
        } else {
            var headers: [String: String] = [:]
            for name in server.headerNames {
                if let value = cmhd_header(connection, name) { headers[name] = String(cString: value) }
            }
            var query: [String: String] = [:]
            for name in server.queryNames {
                if let value = cmhd_argument(connection, name) { query[name] = String(cString: value) }
            }
            let request = HTTPRequest(method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/",
                                      headers: headers, body: pending.body, query: query)
            response = server.handler(request)
        }
        return response.body.withUnsafeBytes { raw -> MHD_Result in
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
            Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().deadlines.restart(connection)
        }
        guard let slot, let pointer = slot.pointee else { return }
        Unmanaged<PendingRequest>.fromOpaque(pointer).release()
        slot.pointee = nil
    }

    /// Connections opening and closing, for the deadlines.
    private static let notify: MHD_NotifyConnectionCallback = { context, connection, _, code in
        guard let context, let connection else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        if cmhd_notify_started(code) != 0 {
            server.deadlines.opened(connection, socket: cmhd_connection_fd(connection))
        } else {
            server.deadlines.closed(connection)
        }
    }
}
