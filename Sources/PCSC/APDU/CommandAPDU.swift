import FoundationEssentials
import Glibc
import TamgaSupport

/// An ISO 7816-4 command APDU (cases 1–4, short or extended length).
public struct CommandAPDU: Sendable, Hashable, CustomStringConvertible {
    public let cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8
    public let data: [UInt8]
    /// Expected response length; nil for none (case 1/3), 0 meaning "up to the maximum" (256 or 65536).
    public let le: Int?

    public init(cla: UInt8 = 0x00, ins: UInt8, p1: UInt8 = 0, p2: UInt8 = 0, data: [UInt8] = [], le: Int? = nil) {
        self.cla = cla
        self.ins = ins
        self.p1 = p1
        self.p2 = p2
        self.data = data
        self.le = le
    }

    /// SELECT by application identifier (`00 A4 04 0C`, no response data asked).
    public static func select(application aid: [UInt8]) -> CommandAPDU {
        CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: aid)
    }

    /// SELECT by path: from the MF (`00 A4 08 …`) or from the current DF (`00 A4 09 …`). With
    /// `fileControlParameters` the card returns the FCP template (P2 04, Le 00), else nothing (P2 0C).
    public static func select(path: [UInt8], fromCurrentFolder: Bool, fileControlParameters: Bool) -> CommandAPDU {
        CommandAPDU(
            ins: 0xA4, p1: fromCurrentFolder ? 0x09 : 0x08, p2: fileControlParameters ? 0x04 : 0x0C, data: path,
            le: fileControlParameters ? 256 : nil)
    }

    /// SELECT a file under the current DF by its identifier: a DF (P1 01) or an EF (P1 02).
    public static func select(fileID: UInt16, isFolder: Bool) -> CommandAPDU {
        CommandAPDU(ins: 0xA4, p1: isFolder ? 0x01 : 0x02, p2: 0x0C, data: [UInt8(fileID >> 8), UInt8(fileID & 0xFF)])
    }

    /// READ BINARY at `offset` (15 bits) for `length` bytes (256 = "as much as you have").
    public static func readBinary(offset: Int, length: Int) -> CommandAPDU {
        CommandAPDU(ins: 0xB0, p1: UInt8(offset >> 8 & 0x7F), p2: UInt8(offset & 0xFF), le: length)
    }

    /// GET RESPONSE for `length` bytes (the answer to `61xx`).
    public static func getResponse(_ length: Int) -> CommandAPDU {
        CommandAPDU(ins: 0xC0, le: length)
    }

    /// The same command asking for exactly `le` bytes (the answer to `6Cxx`).
    public func with(le: Int) -> CommandAPDU { CommandAPDU(cla: cla, ins: ins, p1: p1, p2: p2, data: data, le: le) }

    /// True when data or Le need extended length encoding.
    public var isExtended: Bool { data.count > 255 || (le ?? 0) > 256 }

    /// The bytes on the wire.
    public var bytes: [UInt8] {
        var out = [cla, ins, p1, p2]
        if isExtended {
            if !data.isEmpty { out += [0x00, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data }
            if let le {
                let value = le == 65536 ? 0 : le
                out += (data.isEmpty ? [0x00] : []) + [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            }
        } else {
            if !data.isEmpty { out += [UInt8(data.count)] + data }
            if let le { out.append(UInt8(le == 256 ? 0 : le)) }
        }
        return out
    }

    public var description: String { bytes.map { NumberText.hex($0) }.joined(separator: " ") }
}
