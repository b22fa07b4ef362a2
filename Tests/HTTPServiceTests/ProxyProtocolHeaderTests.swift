import Foundation
import XCTest

@testable import HTTPService

/// The PROXY protocol v2 header as HAProxy writes it (`send-proxy-v2`), made here byte by byte,
/// and everything else a connection may start with.
final class ProxyProtocolHeaderTests: XCTestCase {
    /// A header: version 2, `command` (1 PROXY, 0 LOCAL), `family` (0x11 TCP/IPv4, 0x21
    /// TCP/IPv6), the addresses and ports, then `records`; `length` overrides the length field.
    static func header(
        command: UInt8 = 1, family: UInt8 = 0x11, source: [UInt8] = [192, 0, 2, 7],
        destination: [UInt8] = [127, 0, 0, 1],
        sourcePort: UInt16 = 51_000, destinationPort: UInt16 = 8080, records: [UInt8] = [], length: Int? = nil
    ) -> [UInt8] {
        let block =
            source + destination + [
                UInt8(sourcePort >> 8), UInt8(sourcePort & 0xff), UInt8(destinationPort >> 8),
                UInt8(destinationPort & 0xff),
            ] + records
        let count = length ?? block.count
        return ProxyProtocolHeader.signature + [0x20 | command, family, UInt8(count >> 8 & 0xff), UInt8(count & 0xff)]
            + block
    }

    static func record(_ type: UInt8, _ value: [UInt8]) -> [UInt8] {
        [type, UInt8(value.count >> 8), UInt8(value.count & 0xff)] + value
    }

    func parsed(_ bytes: [UInt8]) throws -> ProxyProtocolHeader {
        guard case .header(let header) = try ProxyProtocolHeader.parse(bytes) else {
            XCTFail("not whole: \(bytes.count) bytes")
            throw ConnectionRefusal.proxyHeaderLate
        }
        return header
    }

    func refusal(_ bytes: [UInt8]) -> String? {
        do {
            _ = try ProxyProtocolHeader.parse(bytes)
            return nil
        } catch {
            return error.code
        }
    }

    func testTheClientOfAProxiedIPv4OrIPv6Connection() throws {
        let v4 = try parsed(Self.header())
        XCTAssertEqual(v4.command, .proxy(source: try XCTUnwrap(IPAddress(text: "192.0.2.7")), port: 51_000))
        XCTAssertEqual(v4.length, 28)
        let source6 = try XCTUnwrap(IPAddress(text: "2001:db8::1:2"))
        let v6 = try parsed(
            Self.header(
                family: 0x21, source: source6.bytes, destination: try XCTUnwrap(IPAddress(text: "::1")).bytes,
                sourcePort: 443))
        XCTAssertEqual(v6.command, .proxy(source: source6, port: 443))
        XCTAssertEqual(v6.length, 52)
    }

    /// HAProxy's records (ALPN, authority, a CRC32c, a unique id) are stepped over, and the
    /// bytes after the header (the client's own TLS or HTTP) are not part of it.
    func testRecordsAreSteppedOverAndWhatFollowsIsLeft() throws {
        let records =
            Self.record(0x01, Array("h2".utf8)) + Self.record(0x02, Array("cosigner.example".utf8))
            + Self.record(0x03, [1, 2, 3, 4]) + Self.record(0x05, [])
        let bytes = Self.header(records: records)
        let header = try parsed(bytes + Array("GET /v3/health HTTP/1.1\r\n\r\n".utf8))
        XCTAssertEqual(header.length, bytes.count)
        XCTAssertEqual(header.command, .proxy(source: try XCTUnwrap(IPAddress(text: "192.0.2.7")), port: 51_000))
    }

    /// LOCAL (a health check of the proxy's own): no client named, whatever the address block
    /// holds, as the specification says.
    func testLocalNamesNoClient() throws {
        XCTAssertEqual(
            try parsed(ProxyProtocolHeader.signature + [0x20, 0x00, 0x00, 0x00]),
            ProxyProtocolHeader(command: .local, length: 16))
        XCTAssertEqual(try parsed(Self.header(command: 0)).command, .local)
        XCTAssertEqual(
            try parsed(Self.header(command: 0, family: 0x31, source: [], destination: [], records: [9, 9, 9])).length,
            23)
    }

    /// Every cut of a good header asks for more, never for fewer bytes than it has, and never
    /// refuses: a header arriving a byte at a time is read whole.
    func testEveryCutAsksForMore() throws {
        let bytes = Self.header(
            family: 0x21, source: [UInt8](repeating: 0xfd, count: 16), destination: [UInt8](repeating: 1, count: 16),
            records: Self.record(0x01, Array("http/1.1".utf8)))
        for cut in 0..<bytes.count {
            guard case .needs(let needed) = try ProxyProtocolHeader.parse(Array(bytes.prefix(cut))) else {
                return XCTFail("whole at \(cut) of \(bytes.count)")
            }
            XCTAssertGreaterThan(needed, cut)
            XCTAssertLessThanOrEqual(needed, bytes.count)
        }
        XCTAssertEqual(try parsed(bytes).length, bytes.count)
    }

    /// What is not a header is refused as soon as it cannot be one; what is one of another kind
    /// is refused by what it is.
    func testWhatIsNotTakenIsRefused() {
        XCTAssertEqual(refusal(Array("G".utf8)), "proxy-header-missing")
        XCTAssertEqual(refusal(Array("GET / HTTP/1.1\r\n".utf8)), "proxy-header-missing")
        XCTAssertEqual(
            refusal(Array("PROXY TCP4 192.0.2.7 127.0.0.1 51000 8080\r\n".utf8)), "proxy-header-missing",
            "version 1 is not taken")
        XCTAssertEqual(refusal([0x16, 0x03, 0x01, 0x02, 0x00, 0x01]), "proxy-header-missing", "a TLS ClientHello")
        XCTAssertEqual(refusal(Array(ProxyProtocolHeader.signature.prefix(11)) + [0x0B]), "proxy-header-missing")
        var version1 = Self.header()
        version1[12] = 0x11
        XCTAssertEqual(refusal(version1), "proxy-header-malformed")
        XCTAssertEqual(refusal(Self.header(command: 2)), "proxy-header-malformed")
        for family: UInt8 in [0x00, 0x01, 0x10, 0x12, 0x22, 0x31, 0x32, 0x13, 0xff] {
            XCTAssertEqual(
                refusal(Self.header(family: family)), "proxy-header-malformed",
                "family 0x\(String(family, radix: 16)) with PROXY")
        }
        XCTAssertEqual(refusal(Self.header(length: 8)), "proxy-header-malformed", "an IPv4 block of 8 bytes")
        XCTAssertEqual(
            refusal(Self.header(family: 0x21, length: 12)), "proxy-header-malformed",
            "an IPv6 block of an IPv4 one's size")
        XCTAssertEqual(refusal(Self.header(records: [0x01, 0x00])), "proxy-header-malformed", "a record cut short")
        XCTAssertEqual(
            refusal(Self.header(records: [0x01, 0x00, 0x09, 0x41])), "proxy-header-malformed",
            "a record longer than the block")
        // Refused from its first 16 bytes: no need to hold 64 KiB to find out.
        XCTAssertEqual(refusal(Array(Self.header(length: 0xffff).prefix(16))), "proxy-header-malformed")
        XCTAssertEqual(
            refusal(Array(Self.header(command: 0, length: ProxyProtocolHeader.maximumLength - 15).prefix(16))),
            "proxy-header-malformed")
    }

    /// Random bytes after the signature (a small generator, a fixed seed): the parser answers
    /// every one, asks for at most `maximumLength`, and a header it takes fits in what it read.
    func testRandomHeadersAreAnsweredWithinBounds() {
        var generator = SeededBytes(seed: 27)
        var taken = 0
        for _ in 0..<20_000 {
            let body = (0..<generator.next(below: 80)).map { _ in UInt8(generator.next(below: 256)) }
            var bytes = ProxyProtocolHeader.signature + body
            if bytes.count > 15, generator.next(below: 2) == 0 {
                bytes[12] = 0x21
                bytes[13] = [0x11, 0x21, 0x00][generator.next(below: 3)]
            }
            if bytes.count > 15, generator.next(below: 2) == 0 {
                bytes[14] = 0
                bytes[15] = UInt8([0, 12, 36, generator.next(below: 64)][generator.next(below: 4)])
            }
            switch try? ProxyProtocolHeader.parse(bytes) {
            case .needs(let count)?: XCTAssertLessThanOrEqual(count, ProxyProtocolHeader.maximumLength)
            case .header(let header)?:
                taken += 1
                XCTAssertLessThanOrEqual(header.length, bytes.count)
            case nil: break
            }
        }
        XCTAssertGreaterThan(taken, 100, "the generator reaches whole headers too")
    }

    func testAddressesAndRanges() throws {
        XCTAssertEqual(IPAddress(text: "192.0.2.7")?.description, "192.0.2.7")
        XCTAssertEqual(IPAddress(text: "::1")?.description, "::1")
        XCTAssertEqual(IPAddress(text: "2001:DB8:0:0:1:0:0:1")?.description, "2001:db8::1:0:0:1")
        XCTAssertEqual(IPAddress(text: "fe80::")?.description, "fe80::")
        XCTAssertEqual(IPAddress(text: "1:0:2:0:3:0:4:0")?.description, "1:0:2:0:3:0:4:0")
        for bad in [
            "", "1.2.3", "1.2.3.4.5", "256.0.0.1", "::g", "localhost", " 1.2.3.4", String(repeating: "1", count: 60),
        ] {
            XCTAssertNil(IPAddress(text: bad), bad)
        }
        // The limits count IPv6 per /64 and an IPv4-mapped address as its IPv4 address.
        XCTAssertEqual(IPAddress(text: "2001:db8:1:2:aaaa::1")?.limitKey, IPAddress(text: "2001:db8:1:2::"))
        XCTAssertEqual(
            IPAddress(text: "2001:db8:1:2:ffff:ffff:ffff:ffff")?.limitKey,
            IPAddress(text: "2001:db8:1:2:aaaa::1")?.limitKey)
        XCTAssertNotEqual(IPAddress(text: "2001:db8:1:3::1")?.limitKey, IPAddress(text: "2001:db8:1:2::1")?.limitKey)
        XCTAssertEqual(IPAddress(text: "::ffff:192.0.2.7")?.limitKey, IPAddress(text: "192.0.2.7"))

        func range(_ text: String) throws -> AddressRange { try XCTUnwrap(AddressRange(parsing: text), text) }
        XCTAssertTrue(try range("127.0.0.1").contains(try XCTUnwrap(IPAddress(text: "127.0.0.1"))))
        XCTAssertFalse(try range("127.0.0.1").contains(try XCTUnwrap(IPAddress(text: "127.0.0.2"))))
        XCTAssertTrue(try range("10.0.0.0/8").contains(try XCTUnwrap(IPAddress(text: "10.255.1.1"))))
        XCTAssertFalse(try range("10.0.0.0/8").contains(try XCTUnwrap(IPAddress(text: "11.0.0.1"))))
        XCTAssertTrue(
            try range("10.1.2.3/8").contains(try XCTUnwrap(IPAddress(text: "10.9.9.9"))), "host bits are cleared")
        XCTAssertEqual(try range("10.1.2.3/8").description, "10.0.0.0/8")
        XCTAssertTrue(try range("192.168.4.0/22").contains(try XCTUnwrap(IPAddress(text: "192.168.7.255"))))
        XCTAssertFalse(try range("192.168.4.0/22").contains(try XCTUnwrap(IPAddress(text: "192.168.8.0"))))
        XCTAssertTrue(try range("0.0.0.0/0").contains(try XCTUnwrap(IPAddress(text: "203.0.113.9"))))
        XCTAssertFalse(
            try range("0.0.0.0/0").contains(try XCTUnwrap(IPAddress(text: "::1"))),
            "an IPv4 range holds no IPv6 address")
        XCTAssertTrue(try range("fd00::/8").contains(try XCTUnwrap(IPAddress(text: "fd12:3456::1"))))
        XCTAssertTrue(try range("::ffff:10.0.0.0/104").contains(try XCTUnwrap(IPAddress(text: "10.1.2.3"))))
        XCTAssertTrue(try range("10.0.0.0/8").contains(try XCTUnwrap(IPAddress(text: "::ffff:10.1.2.3"))))
        for bad in [
            "10.0.0.0/33", "::/129", "10.0.0.0/", "/8", "10.0.0.0/8/8", "10.0.0.0/ 8", "10.0.0.0/-1", "10.0.0.0/+8",
            "10.0.0.0/\u{FF18}",
            "10.0.0.0/0008", "abc", "", "::ffff:10.0.0.0/95",
        ] {
            XCTAssertNil(AddressRange(parsing: bad), bad)
        }
    }
}

/// A small deterministic generator (xorshift64*), so that a failing input can be made again.
struct SeededBytes {
    private var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func next(below bound: Int) -> Int {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return Int((state &* 0x2545_F491_4F6C_DD1D) >> 33) % max(1, bound)
    }
}
