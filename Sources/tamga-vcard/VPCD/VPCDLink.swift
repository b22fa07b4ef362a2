import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The card's end of a vpcd reader slot: a TCP connection to pcscd's vpcd driver on loopback.
/// Connecting is inserting the card; closing is removing it. Every message is a 2-byte
/// big-endian length and a payload; a 1-byte payload is a control message (0 power off,
/// 1 power on, 2 reset, 4 get ATR), anything longer a command APDU answered by a response APDU.
/// (vpcd's reverse mode, where the card listens, crashes pcscd 1.9.9 when a slot has no card.)
final class VPCDLink {
    enum Message {
        case powerOff, powerOn, reset, atrRequest
        case apdu([UInt8])
        case unknownControl(UInt8)
    }

    private let fd: Int32

    /// Connects to vpcd on 127.0.0.1:`port`, retrying for up to 10 seconds while pcscd starts.
    init(port: UInt16) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw VirtualCardError("socket: \(String(cString: strerror(errno)))") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")  // loopback only
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if connected == 0 {
                var on: Int32 = 1
                setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                self.fd = fd
                return
            }
            close(fd)
            usleep(100_000)
        }
        throw VirtualCardError("no vpcd reader listening on 127.0.0.1:\(port)")
    }

    deinit { close(fd) }

    /// The next message from the reader, or nil when pcscd closed the slot.
    func receive() -> Message? {
        guard let header = readExactly(2) else { return nil }
        let length = Int(header[0]) << 8 | Int(header[1])
        guard let payload = readExactly(length) else { return nil }
        guard payload.count == 1 else { return .apdu(payload) }
        switch payload[0] {
        case 0: return .powerOff
        case 1: return .powerOn
        case 2: return .reset
        case 4: return .atrRequest
        case let other: return .unknownControl(other)
        }
    }

    func send(_ payload: [UInt8]) -> Bool {
        let frame = [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        return frame.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) } == frame.count
    }

    private func readExactly(_ count: Int) -> [UInt8]? {
        // vpcd writes a frame's length and its payload in two sends; with Nagle on its side and
        // delayed ACKs on ours every APDU would wait 40 ms. Acknowledge at once instead
        // (TCP_QUICKACK is not sticky: set it before every read).
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_QUICKACK, &on, socklen_t(MemoryLayout<Int32>.size))
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, count - done) }
            if n <= 0 { return nil }
            done += n
        }
        return buffer
    }
}

struct VirtualCardError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
