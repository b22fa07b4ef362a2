import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import HTTPService

#if canImport(Glibc)
import Glibc
#endif

/// The co-signer's own accept step (`ConnectionGate`): whose PROXY headers it believes, what it
/// refuses and how, over real sockets from chosen loopback addresses.
final class ConnectionGateTests: XCTestCase {
    static let proxy = AddressRange(parsing: "127.0.0.1")!

    static func header(naming client: String, port: UInt16 = 40_000) -> [UInt8] {
        let source = IPAddress(text: client)?.bytes ?? []
        return ProxyProtocolHeaderTests.header(
            family: source.count == 16 ? 0x21 : 0x11, source: source,
            destination: source.count == 16 ? [UInt8](repeating: 0, count: 15) + [1] : [127, 0, 0, 1], sourcePort: port)
    }

    static func send(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Everything the server sends until it closes (or 5 s pass); the status of its answer.
    static func answer(_ fd: Int32) -> (status: Int, text: String) {
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let got = recv(fd, &buffer, buffer.count, 0)
            if got <= 0 { break }
            answer += buffer.prefix(got)
        }
        let text = String(decoding: answer, as: UTF8.self)
        return (text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0, text)
    }

    static func health(_ request: HTTPRequest) -> HTTPResponse { .json(["status": "live", "path": request.path]) }

    /// Waits (up to 2 s) until `condition` holds; MHD reports new connections on its own threads.
    func eventually(_ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(2)
        while !condition(), Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
    }

    /// From the trusted proxy, the header's source is the client: it is what the slots count
    /// (the per-address limit holds it, and another client behind the same proxy is not held
    /// by it), and the request after the header is answered. LOCAL counts the proxy itself.
    func testAProxiedClientIsCountedByTheAddressItsHeaderNames() async throws {
        let server = try HTTPServer(perAddressLimit: 2, trustedProxies: [Self.proxy], log: { _ in }) { Self.health($0) }
        defer { server.stop() }
        let client = try XCTUnwrap(IPAddress(text: "192.0.2.7"))
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<2 {
            let fd = try RawConnection.open(from: "127.0.0.1", port: server.port)
            Self.send(fd, Self.header(naming: "192.0.2.7") + Array("GET /v3/health HTTP/1.1\r\nHost: x\r\n".utf8))
            held.append(fd)
        }
        try await eventually { server.slots.count(from: client) == 2 }
        XCTAssertEqual(server.slots.count(from: client), 2)
        XCTAssertEqual(
            server.slots.count(from: try XCTUnwrap(IPAddress(text: "127.0.0.1"))), 0, "the proxy itself holds none")
        // A third from the same client is over its limit, though the proxy's address holds none.
        let third = try RawConnection.open(from: "127.0.0.1", port: server.port)
        defer { close(third) }
        Self.send(
            third,
            Self.header(naming: "192.0.2.7")
                + Array("GET /v3/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        let refused = Self.answer(third)
        XCTAssertEqual(refused.status, 429)
        XCTAssertTrue(refused.text.contains("\"too-many-connections-from-address\""), refused.text)
        // Another client behind the same proxy, over IPv6, is answered.
        let other = try RawConnection.open(from: "127.0.0.1", port: server.port)
        defer { close(other) }
        Self.send(
            other,
            Self.header(naming: "2001:db8::5")
                + Array("GET /v3/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        let answered = Self.answer(other)
        XCTAssertEqual(answered.status, 200, answered.text)
        XCTAssertTrue(
            answered.text.contains("health"), "the request after the header is the one answered: \(answered.text)")
        // A held connection's request, finished: answered, the header's bytes not part of it.
        Self.send(held[0], Array("Connection: close\r\n\r\n".utf8))
        XCTAssertEqual(Self.answer(held[0]).status, 200)
        // LOCAL: the proxy's own check, counted against the proxy.
        let check = try RawConnection.open(from: "127.0.0.1", port: server.port)
        defer { close(check) }
        Self.send(
            check,
            ProxyProtocolHeader.signature + [0x20, 0x00, 0x00, 0x00]
                + Array("GET /v3/ready HTTP/1.1\r\nHost: x\r\n".utf8))
        try await eventually { server.slots.count(from: IPAddress(text: "127.0.0.1")) == 1 }
        XCTAssertEqual(server.slots.count(from: try XCTUnwrap(IPAddress(text: "127.0.0.1"))), 1)
        Self.send(check, Array("Connection: close\r\n\r\n".utf8))
        XCTAssertEqual(Self.answer(check).status, 200)
    }

    /// A trusted proxy's connection must start with a valid header, whole within the deadline:
    /// a plain request, a version 1 header, a bad family, a header announcing 64 KiB and one that
    /// stops half-way are each refused with their own code, before any request is read.
    func testATrustedProxysConnectionWithoutAValidHeaderIsRefused() throws {
        let server = try HTTPServer(trustedProxies: [Self.proxy], proxyHeaderDeadline: 0.5, log: { _ in }) {
            Self.health($0)
        }
        defer { server.stop() }
        func refused(_ bytes: [UInt8]) throws -> (Int, String) {
            let fd = try RawConnection.open(from: "127.0.0.1", port: server.port)
            defer { close(fd) }
            Self.send(fd, bytes)
            return Self.answer(fd)
        }
        let cases: [(String, [UInt8], Int, String)] = [
            ("plain HTTP", Array("GET /v3/health HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400, "proxy-header-missing"),
            (
                "version 1", Array("PROXY TCP4 192.0.2.7 127.0.0.1 40000 80\r\nGET /v3/health HTTP/1.1\r\n\r\n".utf8),
                400, "proxy-header-missing"
            ),
            ("UDP", ProxyProtocolHeaderTests.header(family: 0x12), 400, "proxy-header-malformed"),
            (
                "64 KiB", Array(ProxyProtocolHeaderTests.header(length: 0xffff).prefix(16)), 400,
                "proxy-header-malformed"
            ),
            ("half a header", Array(Self.header(naming: "192.0.2.7").prefix(20)), 408, "proxy-header-late"),
        ]
        for (name, bytes, status, code) in cases {
            let (answered, text) = try refused(bytes)
            XCTAssertEqual(answered, status, "\(name): \(text)")
            XCTAssertTrue(text.contains("\"\(code)\""), "\(name): \(text)")
        }
        XCTAssertEqual(server.slots.count(), 0, "nothing refused took a slot")
    }

    /// From a peer that is not a trusted proxy a PROXY header is never read: the connection is
    /// the peer's (its limit holds it), and the header's bytes reach the HTTP parser as they are.
    func testAHeaderFromAnotherPeerIsNeverBelieved() async throws {
        let server = try HTTPServer(perAddressLimit: 1, trustedProxies: [Self.proxy], log: { _ in }) { Self.health($0) }
        defer { server.stop() }
        let held = try RawConnection.open(from: "127.0.0.5", port: server.port)
        defer { close(held) }
        Self.send(held, Array("GET /v3/health HTTP/1.1\r\nHost: x\r\n".utf8))
        try await eventually { server.slots.count(from: IPAddress(text: "127.0.0.5")) == 1 }
        let spoofing = try RawConnection.open(from: "127.0.0.5", port: server.port)
        defer { close(spoofing) }
        Self.send(
            spoofing,
            Self.header(naming: "192.0.2.99")
                + Array("GET /v3/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        let answered = Self.answer(spoofing)
        XCTAssertEqual(answered.status, 429, "counted against its own address: \(answered.text)")
        XCTAssertEqual(server.slots.count(from: try XCTUnwrap(IPAddress(text: "192.0.2.99"))), 0)
        // With its own slot free, the header is just bytes the HTTP parser refuses.
        close(held)
        try await eventually { server.slots.count() == 0 }
        let alone = try RawConnection.open(from: "127.0.0.5", port: server.port)
        defer { close(alone) }
        Self.send(
            alone,
            Self.header(naming: "192.0.2.99")
                + Array("GET /v3/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        XCTAssertNotEqual(Self.answer(alone).status, 200)
        XCTAssertEqual(server.slots.count(from: try XCTUnwrap(IPAddress(text: "192.0.2.99"))), 0)
    }

    /// Over TLS the header comes before the handshake: a Python client (its own TLS, not tamga's)
    /// writes the header on the socket, then does TLS on it and asks for the health check.
    func testTheHeaderPrecedesTheTLSHandshake() throws {
        let folder = try TestEnvironment.temporaryFolder("gate-tls")
        defer { TestEnvironment.removeFolder(folder) }
        let key = folder.appendingPathComponent("tls.key").path,
            certificate = folder.appendingPathComponent("tls.pem").path
        let made = try TestEnvironment.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
            ])
        XCTAssertEqual(made.status, 0, made.error)
        let server = try HTTPServer(
            perAddressLimit: 1, trustedProxies: [Self.proxy],
            tls: (
                try String(contentsOfFile: key, encoding: .utf8),
                try String(contentsOfFile: certificate, encoding: .utf8)
            ),
            log: { _ in }
        ) { Self.health($0) }
        defer { server.stop() }
        let header = Self.header(naming: "192.0.2.7").map { String(format: "%02x", $0) }.joined()
        let client = """
            import socket, ssl, sys
            s = socket.create_connection(("127.0.0.1", \(server.port)))
            s.sendall(bytes.fromhex("\(header)"))
            context = ssl.create_default_context(cafile="\(certificate)")
            t = context.wrap_socket(s, server_hostname="127.0.0.1")
            t.sendall(b"GET /v3/health HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n")
            answer = b""
            while True:
                chunk = t.recv(4096)
                if not chunk: break
                answer += chunk
            print(answer.split(b" ")[1].decode())
            """
        let result = try TestEnvironment.run("/usr/bin/python3", ["-c", client])
        XCTAssertEqual(result.output.trimmingCharacters(in: .whitespacesAndNewlines), "200", result.error)
    }

    /// Refusals are not written one line each: 400 connections over an address's limit make one
    /// line for the first and one summary that counts them all.
    func testRefusalsAreSummedUpNotLoggedOneByOne() async throws {
        let lines = LockedLines()
        let server = try HTTPServer(perAddressLimit: 4, log: { lines.append($0) }, logInterval: 1) { Self.health($0) }
        defer { server.stop() }
        var held: [Int32] = []
        defer { held.forEach { close($0) } }
        for _ in 0..<404 {
            let fd = try RawConnection.open(from: "127.0.0.9", port: server.port)
            Self.send(fd, Array("GET /v3/health HTTP/1.1\r\nHost: x\r\n".utf8))
            held.append(fd)
        }
        try await eventually { server.slots.count() == 4 }
        try await Task.sleep(nanoseconds: 1_500_000_000)
        // One line for the first refusal and one summary per second in which there were any
        // (the 400 may span two): every refusal counted, none written on its own.
        let written = lines.all
        let summaries = written.filter {
            $0.contains(" connections refused in the last ") || $0.contains(" connection refused in the last ")
        }
        let counted = summaries.compactMap { Int($0.dropFirst("cosigner: ".count).prefix { $0.isNumber }) }.reduce(0, +)
        XCTAssertEqual(counted, 400, "\(written)")
        XCTAssertTrue(summaries.allSatisfy { $0.contains("too-many-connections-from-address") }, "\(written)")
        XCTAssertEqual(
            written.filter {
                $0.hasPrefix("cosigner: refused a connection from 127.0.0.9: too-many-connections-from-address")
            }.count, summaries.count, "\(written)")
        XCTAssertLessThanOrEqual(written.count, 2 * summaries.count, "\(written)")
        XCTAssertLessThanOrEqual(summaries.count, 2)
    }
}

/// The slot policy on its own (`ConnectionSlots`), with made-up descriptors and byte counts.
final class ConnectionSlotsTests: XCTestCase {
    final class Kernel: @unchecked Sendable {  // unchecked: behind `lock`
        private let lock = NSLock()
        var bytes: [Int32: UInt64] = [:]
        var shut: [Int32] = []
        func received(_ socket: Int32) -> UInt64? {
            lock.lock()
            defer { lock.unlock() }
            return bytes[socket] ?? 0
        }
        func shutDown(_ socket: Int32) {
            lock.lock()
            shut.append(socket)
            lock.unlock()
        }
    }

    let kernel = Kernel()
    lazy var slots = ConnectionSlots(
        limits: .init(total: 8, perAddress: 4, pressureAt: 6, requestDeadline: 10, pressureDeadline: 3),
        bytesReceived: { [kernel] in kernel.received($0) }, shut: { [kernel] in kernel.shutDown($0) })
    let start = Date(timeIntervalSince1970: 1_000_000)

    func address(_ last: UInt8) -> IPAddress { IPAddress(bytes: [198, 51, 100, last])! }
    func connection(_ socket: Int32) -> OpaquePointer { OpaquePointer(bitPattern: 0x10_000 + Int(socket))! }

    /// Admits and starts `socket` for `address` at `at` seconds.
    @discardableResult
    func open(_ socket: Int32, _ address: IPAddress, at seconds: TimeInterval = 0) -> ConnectionSlots.Admission {
        let admission = slots.admit(socket, from: address, now: start.addingTimeInterval(seconds))
        if case .refused = admission { return admission }
        slots.opened(connection(socket), socket: socket, address: address, now: start.addingTimeInterval(seconds))
        return admission
    }

    func testBelowPressureAnAddressHoldsUpToItsLimit() {
        for socket: Int32 in 1...4 { XCTAssertEqual(open(socket, address(1)), .admitted) }
        XCTAssertEqual(open(5, address(1)), .refused(.addressShare(4)))
        XCTAssertEqual(open(6, address(2)), .admitted)
        XCTAssertFalse(slots.underPressure)
    }

    /// From 6 of 8 on, an address gets its fair share (8 / holders), and once all 8 are taken a
    /// new client gets in by shutting a connection of the address holding the most: the one that
    /// has delivered the fewest bytes (the oldest, then the lowest descriptor, among equals),
    /// never one whose request is being answered.
    func testUnderPressureTheShareShrinksAndANewAddressGetsIn() {
        for socket: Int32 in 1...4 { open(socket, address(1)) }
        open(5, address(2))
        open(6, address(2))
        XCTAssertTrue(slots.underPressure)
        XCTAssertEqual(open(7, address(2)), .admitted, "two holders: a share of 4")
        XCTAssertEqual(open(8, address(3), at: 1), .admitted, "three holders: a share of 2; the last free slot")
        kernel.bytes = [1: 500, 2: 3, 3: 40, 4: 3]
        slots.received(connection(1))  // socket 1's request is whole and being answered
        XCTAssertEqual(slots.count(), 8)
        // Address 3 holds 1 of its share of 2; address 1 holds 4 ≥ 1 + 2.
        XCTAssertEqual(open(9, address(3), at: 2), .admittedShutting(2))
        XCTAssertEqual(kernel.shut, [2])
        // Address 3 is at its share now: refused, though address 1 still holds 3.
        XCTAssertEqual(open(12, address(3), at: 2), .refused(.addressShare(2)))
        // A new address: addresses 1 and 2 hold 3 each; address 2's connections have sent nothing.
        XCTAssertEqual(open(10, address(4), at: 2.1), .admittedShutting(5))
        XCTAssertEqual(slots.count(), 8)
        XCTAssertEqual(slots.count(from: address(1)), 3)
        XCTAssertEqual(slots.count(from: address(4)), 1)
    }

    /// A connection younger than the grace goes after older ones, whatever it has sent: a new
    /// client has had no time to send its request.
    func testAYoungConnectionGoesLast() {
        let small = ConnectionSlots(
            limits: .init(total: 4, perAddress: 4, pressureAt: 3, requestDeadline: 10, pressureDeadline: 3),
            bytesReceived: { [kernel] in kernel.received($0) }, shut: { [kernel] in kernel.shutDown($0) })
        for (socket, at) in [(Int32(1), 0.0), (2, 0.0), (3, 1.8)] {
            XCTAssertEqual(small.admit(socket, from: address(1), now: start.addingTimeInterval(at)), .admitted)
            small.opened(connection(socket), socket: socket, address: address(1), now: start.addingTimeInterval(at))
        }
        XCTAssertEqual(small.admit(4, from: address(2), now: start), .admitted)
        kernel.bytes = [1: 10, 2: 10, 3: 0]
        XCTAssertEqual(small.admit(5, from: address(3), now: start.addingTimeInterval(2)), .admittedShutting(1))
    }

    /// An address at its share replaces its own kept-alive connection that it is not using.
    func testAnAddressAtItsShareReplacesItsOwnIdleConnection() {
        for socket: Int32 in 1...4 { open(socket, address(1)) }
        XCTAssertEqual(open(5, address(1)), .refused(.addressShare(4)))
        kernel.bytes[2] = 120
        slots.received(connection(2))
        slots.restart(connection(2), now: start.addingTimeInterval(1))  // answered; nothing since
        XCTAssertEqual(open(6, address(1), at: 2), .admittedShutting(2))
        XCTAssertEqual(slots.count(from: address(1)), 4)
        kernel.bytes[2] = 121  // a connection that sent a byte since its answer is in use
        slots.closed(connection(2))
        slots.received(connection(3))
        slots.restart(connection(3), now: start.addingTimeInterval(3))
        kernel.bytes[3] = 5
        XCTAssertEqual(open(7, address(1), at: 4), .refused(.addressShare(4)))
    }

    /// The deadline is 10 s, 3 s under pressure; the one being answered is not cut.
    func testTheDeadlineShortensUnderPressure() {
        for socket: Int32 in 1...3 { open(socket, address(1)) }
        XCTAssertEqual(slots.sweep(now: start.addingTimeInterval(5)), 0)
        for socket: Int32 in 4...6 { open(socket, address(2), at: 5) }
        slots.received(connection(6))
        XCTAssertEqual(slots.sweep(now: start.addingTimeInterval(5.5)), 3, "under pressure: the three 5.5 s old")
        XCTAssertEqual(Set(kernel.shut), [1, 2, 3])
        XCTAssertEqual(
            slots.sweep(now: start.addingTimeInterval(20)), 2,
            "no longer under pressure, past 10 s; not the one answered")
    }

    /// A descriptor the kernel gives again is a new connection: the old one's close does not
    /// remove it, and a handover MHD refused frees its slot.
    func testAReusedDescriptorIsANewConnection() {
        open(1, address(1))
        XCTAssertEqual(
            slots.admit(1, from: address(2), now: start), .admitted, "descriptor 1 again: the old connection is gone")
        slots.closed(connection(1))
        XCTAssertEqual(slots.count(from: address(2)), 1, "the old connection's close leaves the new one")
        XCTAssertEqual(slots.count(from: address(1)), 0)
        slots.abandon(1)
        XCTAssertEqual(slots.count(), 0)
    }
}

/// The log's bounds on their own (`ConnectionLog`), with a made-up clock.
final class ConnectionLogTests: XCTestCase {
    /// An attack probe once got 20,347 lines of libmicrohttpd. Three of a kind are written, the
    /// rest counted in one summary at the end of the minute, with the refusals and the cuts.
    func testRepeatedLinesAreCountedAndSummedUpOnceAMinute() {
        let lines = LockedLines()
        let start = Date(timeIntervalSince1970: 1_000_000)
        let log = ConnectionLog(interval: 60, now: start) { lines.append($0) }
        for index in 0..<20_347 {
            log.library(
                "Server reached connection limit. Closing inbound connection.\n",
                now: start.addingTimeInterval(Double(index) / 1000))
        }
        for descriptor in 0..<10 {
            log.library(
                "Failed to add socket \(descriptor) to epoll set: Bad file descriptor\n",
                now: start.addingTimeInterval(21))
        }
        log.library("Connection closed by peer\n", now: start.addingTimeInterval(21))  // normal life: never written
        for index in 0..<500 {
            log.refused(
                .full, from: IPAddress(bytes: [203, 0, 113, UInt8(index % 200)])!, now: start.addingTimeInterval(22))
        }
        log.shut(atDeadline: 40, forNewcomers: 2, now: start.addingTimeInterval(30))
        XCTAssertEqual(lines.all.count, 3 + 3 + 1, "three of each kind and the first refusal: \(lines.all)")
        log.flush(now: start.addingTimeInterval(59))
        XCTAssertEqual(lines.all.count, 7, "nothing before the minute is over")
        log.flush(now: start.addingTimeInterval(60))
        let summary = Array(lines.all.dropFirst(7))
        XCTAssertEqual(
            summary,
            [
                "cosigner: 500 connections refused in the last minute (too-many-connections 500); 42 shut (40 past the request deadline, 2 for a new client)",
                "cosigner: 7 more lines like \"libmicrohttpd: Failed to add socket 0 to epoll set: Bad file descriptor\" in the last minute",
                "cosigner: 20344 more lines like \"libmicrohttpd: Server reached connection limit. Closing inbound connection.\" in the last minute",
            ])
        log.flush(now: start.addingTimeInterval(200))
        XCTAssertEqual(lines.all.count, 10, "a quiet minute says nothing")
    }

    /// Lines are printable ASCII, one line each, and at most 300 characters: a line made of a
    /// client's bytes cannot rewrite the terminal or the journal.
    func testLinesAreCleanedAndBounded() {
        let lines = LockedLines()
        let log = ConnectionLog { lines.append($0) }
        log.library("bad \u{1B}[2J request\r\nfrom \u{202E}x" + String(repeating: "y", count: 1000))
        XCTAssertEqual(lines.all.count, 1)
        XCTAssertFalse(
            lines.all[0].unicodeScalars.contains { !$0.isASCII || $0.value < 0x20 || $0.value == 0x7f }, lines.all[0])
        XCTAssertLessThanOrEqual(lines.all[0].count, 320)
    }
}
