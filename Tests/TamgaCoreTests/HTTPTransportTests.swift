import Foundation
import TamgaTestSupport
import XCTest

@testable import TamgaCore

#if canImport(Glibc)
import Glibc
#endif

/// `scripts/test-http-quirks.py` (plain or `--tls CERT KEY`), started for a test and stopped by
/// PID. The URL path picks the behaviour (`/echo`, `/chunked`, `/hang`, …; see the script).
final class HTTPQuirksServer: @unchecked Sendable {  // unchecked: immutable after start; stop() is idempotent
    let baseURL: URL
    private let process: Process

    init(tls: (certificate: String, key: String)? = nil) throws {
        var arguments = ["--port", "0", "--exit-with-parent"]
        if let tls { arguments += ["--tls", tls.certificate, tls.key] }
        (process, baseURL) = try TestEnvironment.startListeningServer("test-http-quirks.py", arguments)
    }

    /// `pathAndQuery` is appended verbatim ("/echo?linger=30"), so queries and escapes survive.
    func url(_ pathAndQuery: String) -> URL { URL(string: baseURL.absoluteString + pathAndQuery)! }

    var port: Int { baseURL.port! }

    func stop() { TestEnvironment.terminate(process) }

    deinit { stop() }
}

/// A TCP port on 127.0.0.1 that is bound but not listening: a connection to it is refused at
/// once, and no other process can take the port while this socket is open.
final class RefusingPort {
    let port: Int
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}

/// What `/request-info` reports about the request it received.
struct ReceivedRequest {
    let method: String
    let target: String
    let version: String
    let headers: [(name: String, value: String)]
    let bodyLength: Int
    let bodySHA256: String

    init(json: Data) throws {
        guard let object = try JSONSerialization.jsonObject(with: json) as? [String: Any],
            let method = object["method"] as? String, let target = object["target"] as? String,
            let version = object["version"] as? String, let headers = object["headers"] as? [[String]],
            let bodyLength = object["body_length"] as? Int, let sha = object["body_sha256"] as? String
        else {
            throw NSError(
                domain: "ReceivedRequest", code: 1,
                userInfo: [
                    NSLocalizedDescriptionKey: "not a /request-info answer: \(String(decoding: json, as: UTF8.self))"
                ])
        }
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
        self.bodyLength = bodyLength
        bodySHA256 = sha
    }

    /// Every value of a header (names compared case-insensitively).
    func values(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }
}

/// Shared by both test classes: run an exchange that must fail and hand back its CoreError.
extension XCTestCase {
    func coreError(
        _ operation: () async throws -> Data, file: StaticString = #filePath, line: UInt = #line
    ) async -> CoreError? {
        do {
            let data = try await operation()
            XCTFail(
                "expected an error, got \(data.count) bytes: \(String(decoding: data.prefix(80), as: UTF8.self))",
                file: file, line: line)
            return nil
        } catch let error as CoreError {
            return error
        } catch {
            XCTFail("expected a CoreError, got \(type(of: error)): \(error)", file: file, line: line)
            return nil
        }
    }

    /// The error is `.serviceUnreachable` for `service`; returns its reason.
    @discardableResult
    func assertUnreachable(
        _ error: CoreError?, service: String, file: StaticString = #filePath, line: UInt = #line
    ) -> String? {
        guard let error else { return nil }
        guard case .serviceUnreachable(let actualService, _, let reason) = error else {
            XCTFail("expected serviceUnreachable, got \(error.code): \(error)", file: file, line: line)
            return nil
        }
        XCTAssertEqual(actualService, service, file: file, line: line)
        return reason
    }

    /// The error says the server's answer was bad: `.serviceResponseRejected`, or
    /// `.serviceUnreachable` (the connection broke off), never a status or anything else.
    func assertBadAnswer(_ error: CoreError?, service: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let error else { return }
        switch error {
        case .serviceResponseRejected(let actualService, _, _), .serviceUnreachable(let actualService, _, _):
            XCTAssertEqual(actualService, service, file: file, line: line)
        default:
            XCTFail(
                "expected serviceResponseRejected or serviceUnreachable, got \(error.code): \(error)", file: file,
                line: line)
        }
    }
}

/// HTTPTransport's own HTTP/1.1 client against a loopback server with awkward answers.
final class HTTPTransportTests: XCTestCase {
    private var server: HTTPQuirksServer!
    private let service = "test service"

    override func setUpWithError() throws { server = try HTTPQuirksServer() }
    override func tearDown() { server?.stop() }

    // MARK: requests

    func testPOSTEchoRoundTripsEveryByteExactly() async throws {
        // All 256 byte values, CR LF sequences and a blank line inside, and larger than one read.
        var body = Data((0...255).map { UInt8($0) })
        body += Data("\r\n\r\nHTTP/1.1 200 OK\r\n\r\n".utf8)
        var generator = SystemRandomNumberGenerator()
        body += Data((0..<70_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let answer = try await HTTPTransport(timeout: 10).post(
            body, to: server.url("/echo"), contentType: "application/timestamp-query",
            accept: "application/timestamp-reply", service: service)
        XCTAssertEqual(answer.count, body.count)
        XCTAssertTrue(answer == body, "the echoed body differs from what was sent")
    }

    func testPOSTEmptyBodyRoundTrips() async throws {
        let answer = try await HTTPTransport(timeout: 10).post(
            Data(), to: server.url("/echo"), contentType: "application/ocsp-request",
            accept: "application/ocsp-response", service: service)
        XCTAssertEqual(answer, Data())
    }

    func testPOSTSendsContentTypeAcceptHostUserAgentAndLength() async throws {
        let body = Data("tamga request body".utf8)
        var transport = HTTPTransport(timeout: 10)
        transport.userAgent = "tamga-test/1.0"
        let answer = try await transport.post(
            body, to: server.url("/request-info"), contentType: "application/ocsp-request",
            accept: "application/ocsp-response", service: service)
        let received = try ReceivedRequest(json: answer)
        XCTAssertEqual(received.method, "POST")
        XCTAssertEqual(received.target, "/request-info")
        XCTAssertEqual(received.version, "HTTP/1.1")
        XCTAssertEqual(received.values("Content-Type"), ["application/ocsp-request"])
        XCTAssertEqual(received.values("Accept"), ["application/ocsp-response"])
        XCTAssertEqual(received.values("Host"), ["127.0.0.1:\(server.port)"])
        XCTAssertEqual(received.values("User-Agent"), ["tamga-test/1.0"])
        XCTAssertEqual(received.values("Content-Length"), ["\(body.count)"])
        XCTAssertEqual(received.bodyLength, body.count)
        XCTAssertEqual(received.bodySHA256, Digest.compute(.sha256, over: body).hex)
    }

    func testGETReturnsTheBody() async throws {
        let answer = try await HTTPTransport(timeout: 10).get(server.url("/echo"), service: service)
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "hello")
    }

    func testGETSendsThePercentEncodedPathAndQueryAndNoBody() async throws {
        let answer = try await HTTPTransport(timeout: 10).get(
            server.url("/request-info?name=a%20b&x=%2F1"), service: service)
        let received = try ReceivedRequest(json: answer)
        XCTAssertEqual(received.method, "GET")
        XCTAssertEqual(received.target, "/request-info?name=a%20b&x=%2F1")
        XCTAssertEqual(received.values("Host"), ["127.0.0.1:\(server.port)"])
        XCTAssertEqual(received.bodyLength, 0)
    }

    // MARK: body framing

    func testChunkedBodyIsReassembledExactly() async throws {
        let answer = try await HTTPTransport(timeout: 10).get(server.url("/chunked"), service: service)
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "chunk one|chunk two|end")
    }

    func testChunkedBodyEndsAtTheLastChunkNotAtTheClose() async throws {
        // The server keeps the connection open 30 s after the last chunk and its trailer.
        let started = Date()
        let answer = try await HTTPTransport(timeout: 10).get(server.url("/chunked?linger=30"), service: service)
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "chunk one|chunk two|end")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "waited for the connection to close")
    }

    func testContentLengthBodyEndsWithoutWaitingForTheClose() async throws {
        // The server keeps the connection open 30 s after the announced bytes.
        let started = Date()
        let answer = try await HTTPTransport(timeout: 10).post(
            Data("framed".utf8), to: server.url("/echo?linger=30"),
            contentType: "application/octet-stream", accept: "*/*", service: service)
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "framed")
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "waited for the connection to close")
    }

    /// Content-Length and chunk sizes are ASCII digits (RFC 9110/9112): fullwidth, Arabic-Indic,
    /// Devanagari or superscript digits, fullwidth hex letters (`Character.isHexDigit` takes
    /// them) and a sign (Swift's `Int` takes it) are a bad answer, not a length.
    func testNonASCIIDigitsInContentLengthAndChunkSizeAreABadAnswer() async throws {
        func query(_ text: String) -> String { text.utf8.map { String(format: "%%%02X", $0) }.joined() }
        let length = try await HTTPTransport(timeout: 10).get(server.url("/odd-length?value=10"), service: service)
        XCTAssertEqual(String(decoding: length, as: UTF8.self), "0123456789", "the ASCII length is read")
        for value in [
            "\u{FF11}\u{FF10}", "\u{0661}\u{0660}", "\u{06F1}\u{06F0}", "\u{0967}\u{0966}", "1\u{FF10}",
            "\u{00B9}\u{2070}", "+10", "-0",
        ] {
            let error = await coreError {
                try await HTTPTransport(timeout: 10).get(
                    self.server.url("/odd-length?value=" + query(value)), service: self.service)
            }
            assertBadAnswer(error, service: service)
        }
        let chunked = try await HTTPTransport(timeout: 10).get(server.url("/odd-chunk-size?value=a"), service: service)
        XCTAssertEqual(String(decoding: chunked, as: UTF8.self), "0123456789", "the ASCII chunk size is read")
        for value in ["\u{FF41}", "\u{FF21}", "\u{FF10}\u{FF41}", "\u{0661}\u{0660}", "\u{0967}", "+a", "-0", "0x0a"] {
            let error = await coreError {
                try await HTTPTransport(timeout: 10).get(
                    self.server.url("/odd-chunk-size?value=" + query(value)), service: self.service)
            }
            assertBadAnswer(error, service: service)
        }
    }

    func testCloseDelimitedBodyIsReadToTheEnd() async throws {
        let answer = try await HTTPTransport(timeout: 10).get(server.url("/close-delimited"), service: service)
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "until close")
    }

    // MARK: statuses and redirects

    func testErrorStatusesAreReportedWithTheStatus() async throws {
        for status in [404, 500] {
            let url = server.url("/status/\(status)")
            let error = await coreError { try await HTTPTransport(timeout: 10).get(url, service: self.service) }
            guard let error else { continue }
            guard case .serviceHTTPStatus(let actualService, let actualURL, let actualStatus) = error else {
                XCTFail("expected serviceHTTPStatus \(status), got \(error.code): \(error)")
                continue
            }
            XCTAssertEqual(actualService, service)
            XCTAssertEqual(actualURL, url.absoluteString)
            XCTAssertEqual(actualStatus, status)
        }
    }

    func testPOSTErrorStatusIsReported() async throws {
        let url = server.url("/status/503")
        let error = await coreError {
            try await HTTPTransport(timeout: 10).post(
                Data([0x30, 0x00]), to: url, contentType: "application/timestamp-query",
                accept: "application/timestamp-reply", service: self.service)
        }
        guard let error else { return }
        guard case .serviceHTTPStatus(_, _, let status) = error else {
            return XCTFail("expected serviceHTTPStatus, got \(error.code): \(error)")
        }
        XCTAssertEqual(status, 503)
    }

    func testGETFollowsARelativeRedirect() async throws {
        let answer = try await HTTPTransport(timeout: 10).get(server.url("/redirect"), service: service)
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "hello")
    }

    func testGETFollowsAnAbsoluteRedirect() async throws {
        let answer = try await HTTPTransport(timeout: 10).get(server.url("/redirect-absolute"), service: service)
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "hello")
    }

    func testARedirectLoopFailsInsteadOfHanging() async throws {
        let started = Date()
        let error = await coreError {
            try await HTTPTransport(timeout: 20).get(self.server.url("/redirect-loop"), service: self.service)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 10, "the loop was followed until the timeout")
        guard let error else { return }
        switch error {
        case .serviceResponseRejected(let actualService, _, _), .serviceUnreachable(let actualService, _, _):
            XCTAssertEqual(actualService, service)
        case .serviceHTTPStatus(_, _, let status):
            XCTAssertEqual(status, 302, "\(error)")
        default:
            XCTFail("unexpected \(error.code): \(error)")
        }
    }

    // MARK: size limit

    func testAHugeAnswerIsRefusedByDefault() async throws {
        let transport = HTTPTransport(timeout: 10)
        XCTAssertEqual(transport.maximumResponseSize, 1 << 20)
        let error = await coreError { try await transport.get(self.server.url("/huge"), service: self.service) }
        guard let error else { return }
        guard case .serviceResponseRejected(let actualService, _, _) = error else {
            return XCTFail("expected serviceResponseRejected, got \(error.code): \(error)")
        }
        XCTAssertEqual(actualService, service)
    }

    func testAHugeAnswerIsReadWhenTheLimitAllowsIt() async throws {
        var transport = HTTPTransport(timeout: 20)
        transport.maximumResponseSize = 4 << 20
        let answer = try await transport.get(server.url("/huge"), service: service)
        XCTAssertEqual(answer.count, 3 << 20)
        XCTAssertTrue(answer.allSatisfy { $0 == 0 }, "the body is not all zeros")
    }

    // MARK: failures

    func testASilentServerTimesOutWithinTheTimeout() async throws {
        let started = Date()
        let error = await coreError {
            try await HTTPTransport(timeout: 1).get(self.server.url("/hang"), service: self.service)
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertLessThan(elapsed, 5, "the 30-second silence was waited for")
        XCTAssertGreaterThan(elapsed, 0.5, "gave up long before the timeout")
        assertUnreachable(error, service: service)
    }

    func testAPOSTToASilentServerTimesOut() async throws {
        let started = Date()
        let error = await coreError {
            try await HTTPTransport(timeout: 1).post(
                Data("x".utf8), to: self.server.url("/hang"), contentType: "application/timestamp-query",
                accept: "application/timestamp-reply", service: self.service)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the 30-second silence was waited for")
        assertUnreachable(error, service: service)
    }

    func testAnAnswerThatIsNotHTTPIsAnError() async throws {
        let error = await coreError {
            try await HTTPTransport(timeout: 10).get(self.server.url("/garbage"), service: self.service)
        }
        assertBadAnswer(error, service: service)
    }

    func testATruncatedAnswerIsAnError() async throws {
        let error = await coreError {
            try await HTTPTransport(timeout: 10).get(self.server.url("/truncated"), service: self.service)
        }
        assertBadAnswer(error, service: service)
    }

    func testARefusedConnectionIsUnreachable() async throws {
        let closed = try RefusingPort()
        let url = URL(string: "http://127.0.0.1:\(closed.port)/echo")!
        let started = Date()
        let error = await coreError { try await HTTPTransport(timeout: 10).get(url, service: self.service) }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "a refused connection waited for the timeout")
        guard let error else { return }
        guard case .serviceUnreachable(let actualService, let actualURL, _) = error else {
            return XCTFail("expected serviceUnreachable, got \(error.code): \(error)")
        }
        XCTAssertEqual(actualService, service)
        XCTAssertTrue(actualURL.contains("127.0.0.1:\(closed.port)"), actualURL)
    }

    func testAnUnsupportedSchemeIsUnreachable() async throws {
        let error = await coreError {
            try await HTTPTransport(timeout: 10).get(URL(string: "ftp://127.0.0.1/file")!, service: self.service)
        }
        assertUnreachable(error, service: service)
    }
}

/// https against the same server with `--tls`: a fresh self-signed certificate for
/// 127.0.0.1 (IP SAN), trusted only when `trustedCertificates` names it.
final class HTTPTransportTLSTests: XCTestCase {
    private var folder: URL!
    private var server: HTTPQuirksServer!
    private var serverCertificate: Certificate!
    private let service = "tls service"

    /// A self-signed P-256 certificate and key in `folder`, with the given subject and SAN.
    private func makeSelfSigned(
        _ name: String, commonName: String, subjectAltName: String
    ) throws -> (certificate: String, key: String) {
        let certificate = folder.appendingPathComponent("\(name).cert.pem").path
        let key = folder.appendingPathComponent("\(name).key.pem").path
        let result = try TestEnvironment.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=\(commonName)", "-addext", "subjectAltName=\(subjectAltName)", "-keyout", key, "-out",
                certificate,
            ])
        guard result.status == 0 else {
            throw NSError(
                domain: "HTTPTransportTLSTests", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "openssl req: \(result.error)"])
        }
        return (certificate, key)
    }

    override func setUpWithError() throws {
        folder = try TestEnvironment.temporaryFolder("http-tls")
        let files = try makeSelfSigned("server", commonName: "127.0.0.1", subjectAltName: "IP:127.0.0.1")
        serverCertificate = try Certificate(derOrPEM: TestEnvironment.bytes(files.certificate))
        server = try HTTPQuirksServer(tls: files)
    }

    override func tearDown() {
        server?.stop()
        if let folder { TestEnvironment.removeFolder(folder) }
    }

    private func pinned(_ certificates: [Certificate], timeout: TimeInterval = 10) -> HTTPTransport {
        var transport = HTTPTransport(timeout: timeout)
        transport.trustedCertificates = certificates
        return transport
    }

    func testHTTPSWithThePinnedCertificate() async throws {
        XCTAssertEqual(server.baseURL.scheme, "https")
        let answer = try await pinned([serverCertificate]).get(server.url("/echo"), service: service)
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "hello")
    }

    func testHTTPSPOSTRoundTripsAndFramesEveryWay() async throws {
        let transport = pinned([serverCertificate])
        let body = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let echoed = try await transport.post(
            body, to: server.url("/echo"), contentType: "application/ocsp-request",
            accept: "application/ocsp-response", service: service)
        XCTAssertTrue(echoed == body, "the echoed body differs from what was sent")
        let chunked = try await transport.get(server.url("/chunked"), service: service)
        XCTAssertEqual(String(decoding: chunked, as: UTF8.self), "chunk one|chunk two|end")
        // Ends with a TLS close_notify, then the TCP close.
        let closeDelimited = try await transport.get(server.url("/close-delimited"), service: service)
        XCTAssertEqual(String(decoding: closeDelimited, as: UTF8.self), "until close")
        let error = await coreError { try await transport.get(self.server.url("/status/404"), service: self.service) }
        if let error {
            guard case .serviceHTTPStatus(_, _, 404) = error else {
                return XCTFail("expected serviceHTTPStatus 404, got \(error.code): \(error)")
            }
        }
    }

    func testHTTPSWithoutTrustedCertificatesUsesTheSystemStoreWhichRefusesIt() async throws {
        let error = await coreError { try await self.pinned([]).get(self.server.url("/echo"), service: self.service) }
        assertUnreachable(error, service: service)
    }

    func testHTTPSPinnedToAnotherCertificateFails() async throws {
        let other = try TestEnvironment.certificate("root")  // Fixtures/pki/root.cert.pem
        let error = await coreError {
            try await self.pinned([other]).get(self.server.url("/echo"), service: self.service)
        }
        assertUnreachable(error, service: service)
    }

    func testHTTPSWithATrustedCertificateForAnotherNameFails() async throws {
        // Trusted, but issued to other.example only: the IP 127.0.0.1 must not match it.
        let files = try makeSelfSigned("other-name", commonName: "other.example", subjectAltName: "DNS:other.example")
        let otherServer = try HTTPQuirksServer(tls: files)
        defer { otherServer.stop() }
        let certificate = try Certificate(derOrPEM: TestEnvironment.bytes(files.certificate))
        let error = await coreError {
            try await self.pinned([certificate]).get(otherServer.url("/echo"), service: self.service)
        }
        assertUnreachable(error, service: service)
    }

    /// A redirect must not take an https exchange to plain http (TLS and its pins would be gone).
    func testARedirectFromHTTPSToPlainHTTPIsRefused() async throws {
        let error = await coreError {
            try await self.pinned([self.serverCertificate]).get(
                self.server.url("/redirect-to-http"), service: self.service)
        }
        guard let error else { return }
        guard case .serviceResponseRejected(_, _, let reason) = error else {
            return XCTFail("expected serviceResponseRejected, got \(error.code): \(error)")
        }
        XCTAssertEqual(reason, "a redirect from https to plain http")
    }

    /// Leaf pins come on top of the chain check: one of several pinned certificates must be the
    /// server's own, and a pin on the right certificate does not make an untrusted chain good.
    func testLeafPinsNarrowTheTrustAndDoNotReplaceIt() async throws {
        let other = try makeSelfSigned("other-leaf", commonName: "127.0.0.1", subjectAltName: "IP:127.0.0.1")
        let otherCertificate = try Certificate(derOrPEM: TestEnvironment.bytes(other.certificate))
        func fingerprint(_ certificate: Certificate) -> [UInt8] {
            Array(Digest.compute(.sha256, over: certificate.der).bytes)
        }
        var transport = pinned([serverCertificate])
        transport.pinnedLeafCertificates = [fingerprint(otherCertificate)]
        let wrong = await coreError { try await transport.get(self.server.url("/echo"), service: self.service) }
        assertUnreachable(wrong, service: service)
        if case .serviceUnreachable(_, _, let reason) = wrong {
            XCTAssertTrue(reason.contains("none of the pinned ones"), reason)
        }
        transport.pinnedLeafCertificates = [fingerprint(otherCertificate), fingerprint(serverCertificate)]
        let answer = try await transport.get(server.url("/echo"), service: service)
        XCTAssertEqual(String(decoding: answer, as: UTF8.self), "hello")
        var untrusted = pinned([])
        untrusted.pinnedLeafCertificates = [fingerprint(serverCertificate)]
        assertUnreachable(
            await coreError { try await untrusted.get(self.server.url("/echo"), service: self.service) },
            service: service)
    }

    func testHTTPSToAPlainHTTPServerFails() async throws {
        let plain = try HTTPQuirksServer()
        defer { plain.stop() }
        let url = URL(string: "https://127.0.0.1:\(plain.port)/echo")!
        let started = Date()
        let error = await coreError {
            try await self.pinned([self.serverCertificate], timeout: 5).get(url, service: self.service)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 7)
        assertBadAnswer(error, service: service)
    }

    /// A host is resolved, sent (SNI) and checked against the certificate in one canonical form:
    /// the root dot and upper case name the same host as the certificate's `localhost` (OpenSSL
    /// alone says `localhost.` does not match it, and the resolver here does not know it).
    /// A name with an empty label, or outside ASCII, is refused before any connection.
    func testTheRootDotAndUpperCaseNameTheCertificatesHost() async throws {
        let files = try makeSelfSigned("localhost", commonName: "localhost", subjectAltName: "DNS:localhost")
        let named = try HTTPQuirksServer(tls: files)
        defer { named.stop() }
        let certificate = try Certificate(derOrPEM: TestEnvironment.bytes(files.certificate))
        for host in ["localhost", "localhost.", "LOCALHOST.", "LocalHost", "localhost%2E"] {
            let url = try XCTUnwrap(URL(string: "https://\(host):\(named.port)/echo"), host)
            let answer = try await pinned([certificate]).get(url, service: service)
            XCTAssertEqual(String(decoding: answer, as: UTF8.self), "hello", host)
        }
        // The name check itself, on a connection made to the address: OpenSSL is handed the
        // canonical name, not the root-dotted one it would compare as another name.
        for host in ["localhost.", "LOCALHOST."] {
            let connection = try NetworkConnection(
                host: "127.0.0.1", port: named.port, deadline: Date().addingTimeInterval(10))
            XCTAssertNoThrow(try connection.startTLS(host: host, anchors: [certificate]), host)
        }
        for host in ["localhost..", "local..host", "localhost%E3%80%82"] {
            let url = try XCTUnwrap(URL(string: "https://\(host):\(named.port)/echo"), host)
            let error = await coreError { try await self.pinned([certificate]).get(url, service: self.service) }
            assertUnreachable(error, service: service)
            if case .serviceUnreachable(_, _, let reason)? = error {
                XCTAssertTrue(reason.contains("not an ASCII host name"), "\(host): \(reason)")
            }
        }
    }

    func testATLSServerThatNeverAnswersTimesOut() async throws {
        let started = Date()
        let error = await coreError {
            try await self.pinned([self.serverCertificate], timeout: 1).get(
                self.server.url("/hang"), service: self.service)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "the 30-second silence was waited for")
        assertUnreachable(error, service: service)
    }
}

/// The one form hosts are compared in (a trailing root dot once skipped the Smart-ID pin).
final class HostNameTests: XCTestCase {
    func testOneRootDotAndCaseAreDroppedAndNothingElseIsAccepted() {
        let same = ["rp-api.smart-id.com", "rp-api.smart-id.com.", "RP-API.Smart-ID.COM", "RP-API.SMART-ID.COM."]
        XCTAssertEqual(Set(same.map { HostName.canonical($0) }), ["rp-api.smart-id.com"])
        XCTAssertEqual(HostName.canonical("127.0.0.1"), "127.0.0.1")
        XCTAssertEqual(HostName.canonical("::1"), "::1")
        XCTAssertEqual(HostName.canonical("FE80::AB"), "fe80::ab")
        XCTAssertEqual(HostName.canonical("_acme.example"), "_acme.example")
        for refused in [
            "", ".", "..", "a..", "a..b", ".a", "smart-id.com\u{3002}", "smart-id\u{FF0E}com", "rp api.com", "a/b",
            "a%2Eb",
            "fe80::1%eth0", "[::1]", String(repeating: "a", count: 64) + ".com",
            String(repeating: "a.", count: 127) + "ab",
        ] {
            XCTAssertNil(HostName.canonical(refused), refused.debugDescription)
        }
        XCTAssertNotNil(HostName.canonical(String(repeating: "a", count: 63) + ".com"))
    }
}
