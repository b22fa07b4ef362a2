import FoundationEssentials
import Glibc
import TamgaSupport

/// A status word (SW1 SW2).
public struct StatusWord: Sendable, Hashable, CustomStringConvertible {
    public let sw1: UInt8, sw2: UInt8
    public init(_ sw1: UInt8, _ sw2: UInt8) {
        self.sw1 = sw1
        self.sw2 = sw2
    }
    public static let success = StatusWord(0x90, 0x00)
    public var isSuccess: Bool { sw1 == 0x90 && sw2 == 0x00 }
    public var description: String { NumberText.hex(sw1) + NumberText.hex(sw2) }
}

/// A response APDU: data and status word.
public struct ResponseAPDU: Sendable, Hashable {
    public let data: [UInt8]
    public let status: StatusWord

    public init(data: [UInt8], status: StatusWord) {
        self.data = data
        self.status = status
    }

    /// Parses the bytes a card returned (at least the two status bytes).
    init?(bytes: [UInt8]) {
        guard bytes.count >= 2 else { return nil }
        data = Array(bytes.dropLast(2))
        status = StatusWord(bytes[bytes.count - 2], bytes[bytes.count - 1])
    }
}
