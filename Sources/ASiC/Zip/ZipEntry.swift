import FoundationEssentials
import Glibc

/// One entry of a ZIP archive as its central directory and local header describe it.
struct ZipEntry: Sendable, Equatable {
    enum Method: UInt16, Sendable { case stored = 0, deflated = 8 }

    let name: String
    let method: Method
    let flags: UInt16
    let crc32: UInt32
    let compressedSize: UInt64
    let uncompressedSize: UInt64
    let localHeaderOffset: UInt64
    /// Where the entry's (compressed) bytes start, after the local header.
    let dataOffset: UInt64
    /// Length of the local header's extra field (ASiC wants none on `mimetype`).
    let localExtraLength: Int
    let dosTime: UInt16
    let dosDate: UInt16
    /// Whether the local header holds a ZIP64 field: the data descriptor's sizes are then 64-bit.
    var localHeaderHasZIP64 = false

    var modified: Date { DOSDateTime.date(time: dosTime, date: dosDate) }
}

/// MS-DOS date and time as ZIP stores them (local time is not knowable: tamga writes UTC).
enum DOSDateTime {
    static func encode(_ date: Date) -> (time: UInt16, date: UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let year = max(1980, min(2107, c.year ?? 1980))
        let time = UInt16((c.hour ?? 0) << 11 | (c.minute ?? 0) << 5 | (c.second ?? 0) / 2)
        let day = UInt16((year - 1980) << 9 | (c.month ?? 1) << 5 | (c.day ?? 1))
        return (time, day)
    }

    static func date(time: UInt16, date: UInt16) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let components = DateComponents(
            year: Int(date >> 9) + 1980, month: Int((date >> 5) & 0xF), day: Int(date & 0x1F),
            hour: Int(time >> 11), minute: Int((time >> 5) & 0x3F), second: Int(time & 0x1F) * 2)
        return calendar.date(from: components) ?? Date(timeIntervalSince1970: 315_532_800)
    }
}

/// Little-endian field reader over a byte array, bounds-checked.
struct LittleEndianReader {
    let bytes: [UInt8]
    var index: Int
    init(_ bytes: [UInt8], at index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    mutating func u16() throws -> UInt16 {
        guard index + 2 <= bytes.count else { throw ContainerError.malformedZip("truncated record") }
        defer { index += 2 }
        return UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8
    }
    mutating func u32() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw ContainerError.malformedZip("truncated record") }
        defer { index += 4 }
        return (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[index + $1]) << (8 * $1) }
    }
    mutating func u64() throws -> UInt64 {
        guard index + 8 <= bytes.count else { throw ContainerError.malformedZip("truncated record") }
        defer { index += 8 }
        return (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[index + $1]) << (8 * $1) }
    }
    mutating func take(_ n: Int) throws -> [UInt8] {
        guard n >= 0, index + n <= bytes.count else { throw ContainerError.malformedZip("truncated record") }
        defer { index += n }
        return Array(bytes[index..<index + n])
    }
}

/// Little-endian field writer.
struct LittleEndianWriter {
    private(set) var bytes: [UInt8] = []
    mutating func u16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }
    mutating func u32(_ v: UInt32) { for i in 0..<4 { bytes.append(UInt8((v >> (8 * UInt32(i))) & 0xFF)) } }
    mutating func u64(_ v: UInt64) { for i in 0..<8 { bytes.append(UInt8((v >> (8 * UInt64(i))) & 0xFF)) } }
    mutating func append(_ b: [UInt8]) { bytes += b }
}
