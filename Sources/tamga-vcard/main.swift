// tamga-vcard — a virtual smart card for the vsmartcard `vpcd` reader driver, for tests and
// the demo. pcscd's vpcd listens on PORT (reader.conf DEVICENAME "/dev/null:PORT"); the card
// connects to 127.0.0.1:PORT, which is "inserting" it, and disconnecting removes it.
// (vpcd's reverse mode, where the card listens, crashes pcscd when a slot has no card.)
// The vpcd protocol: each message is a 2-byte big-endian
// length and a payload; a 1-byte payload is a control (0 power off, 1 power on, 2 reset,
// 4 get ATR), anything longer is a command APDU answered with a response APDU.
//
// This version presents the ATR of a profile and a small transport test applet; the ID-card
// applets follow with the ID-card issue:
//   any SELECT (INS A4)                   → 9000
//   GET DATA 00 CA 01 00 Le               → 300 bytes (i & 0xFF); with --t0 as 61xx + GET RESPONSE
//   GET DATA 00 CA 02 00 Le               → 20 bytes if Le = 20, else 6C14 (wrong length)
//   everything else                       → 6D00
#if canImport(Glibc)
import Glibc
#endif
import Foundation

enum Profile: String, CaseIterable {
    case idemia, thales, finEID = "fineid", rutokenECP = "rutoken-ecp", unknown

    var atr: [UInt8] {
        let hex: String = switch self {
        case .idemia: "3BDB960080B1FE451F830012233F536549440F9000F1"
        case .thales: "3BFF9600008031FE438031B85365494464B085051012233F1D"
        case .finEID: "3B7F9600008031B865B08504021B1200F6829000"
        case .rutokenECP: "3B8B015275746F6B656E20445320C1"
        case .unknown: "3B9513810180 73FF01000B".replacingOccurrences(of: " ", with: "")
        }
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("tamga-vcard: \(message)\n".utf8))
    exit(2)
}

var port: UInt16 = 0x8C7B
var t0 = false
var profile = Profile.idemia
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--port": port = arguments.next().flatMap { UInt16($0, radix: $0.hasPrefix("0x") ? 16 : 10) ?? UInt16($0.dropFirst(2), radix: 16) } ?? port
    case "--profile":
        guard let value = arguments.next(), let chosen = Profile(rawValue: value) else {
            fail("--profile takes one of \(Profile.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        profile = chosen
    case "--t0": t0 = true
    case "--help":
        print("usage: tamga-vcard [--port PORT] [--profile \(Profile.allCases.map(\.rawValue).joined(separator: "|"))] [--t0]")
        exit(0)
    default: fail("unknown argument \(argument)")
    }
}

signal(SIGPIPE, SIG_IGN)

/// Connects to vpcd, retrying for up to 10 seconds while pcscd starts.
func connectToReader(port: UInt16) -> Int32 {
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { fail("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")   // loopback only
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if connected == 0 { return fd }
        close(fd)
        usleep(100_000)
    }
    fail("no vpcd reader listening on 127.0.0.1:\(port)")
}

func readExactly(_ fd: Int32, _ count: Int) -> [UInt8]? {
    var buffer = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, count - done) }
        if n <= 0 { return nil }
        done += n
    }
    return buffer
}

func send(_ fd: Int32, _ payload: [UInt8]) -> Bool {
    let frame = [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
    return frame.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) } == frame.count
}

/// The transport test applet; `pending` holds data waiting for GET RESPONSE (T=0 style).
final class TransportApplet {
    let t0: Bool
    var pending: [UInt8] = []
    init(t0: Bool) { self.t0 = t0 }

    func answer(_ apdu: [UInt8]) -> [UInt8] {
        let ins = apdu[1], p1p2 = UInt16(apdu[2]) << 8 | UInt16(apdu[3])
        let le: Int? = apdu.count == 5 ? (apdu[4] == 0 ? 256 : Int(apdu[4])) : nil
        switch (ins, p1p2) {
        case (0xA4, _): return [0x90, 0x00]
        case (0xCA, 0x0100):
            let object = (0..<300).map { UInt8($0 & 0xFF) }
            if t0 { pending = object; return [0x61, 0x00] }
            return object + [0x90, 0x00]
        case (0xCA, 0x0200):
            guard le == 20 else { return [0x6C, 20] }
            return [UInt8](repeating: 0xAB, count: 20) + [0x90, 0x00]
        case (0xC0, _) where !pending.isEmpty:
            let count = min(pending.count, le ?? 256)
            let data = Array(pending.prefix(count))
            pending.removeFirst(count)
            return data + (pending.isEmpty ? [0x90, 0x00] : [0x61, UInt8(min(pending.count, 256) & 0xFF)])
        default: return [0x6D, 0x00]
        }
    }
}
let applet = TransportApplet(t0: t0)

let connection = connectToReader(port: port)
FileHandle.standardOutput.write(Data("inserted into 127.0.0.1:\(port) profile \(profile.rawValue)\n".utf8))
while let header = readExactly(connection, 2) {
    let length = Int(header[0]) << 8 | Int(header[1])
    guard let payload = readExactly(connection, length) else { break }
    if payload.count == 1 {
        if payload[0] == 4, !send(connection, profile.atr) { break }   // power on/off and reset need no answer
        continue
    }
    if payload.count < 4 { if !send(connection, [0x67, 0x00]) { break }; continue }
    if !send(connection, applet.answer(payload)) { break }
}
close(connection)
