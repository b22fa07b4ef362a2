import FoundationEssentials
import Glibc

/// A connection to the card in one reader (shared mode, T=0 or T=1). Every operation runs in
/// a PC/SC transaction (`withTransaction`); `transmit` applies the ISO 7816 rules once for all
/// callers: `6Cxx` → resend with Le = xx, then `61xx` → GET RESPONSE until the data is complete.
/// Not thread-safe: one task uses a connection at a time.
public final class CardConnection: @unchecked Sendable {  // unchecked: one task at a time
    public let readerName: String
    let handle: SCardCardHandle
    /// Kept alive as long as the connection: releasing the context invalidates its card handles.
    private let context: PCSCContext

    public init(context: PCSCContext, reader: String) throws {
        readerName = reader
        self.context = context
        handle = try SCardCardHandle(context: context.handle, reader: reader)
    }

    /// The active protocol: "T=0" or "T=1".
    public var activeProtocol: String { handle.isT0 ? "T=0" : "T=1" }

    /// Runs `body` inside `SCardBeginTransaction` … `SCardEndTransaction(SCARD_LEAVE_CARD)`,
    /// ending the transaction on every path.
    public func withTransaction<T>(_ body: () throws -> T) throws -> T {
        try handle.beginTransaction()
        defer { handle.endTransaction() }
        return try body()
    }

    /// Sends one command and returns the complete response.
    public func transmit(_ command: CommandAPDU) throws -> ResponseAPDU {
        var response = try transmitOnce(command)
        if response.status.sw1 == 0x6C {
            // Wrong Le: the card says how many bytes it has; ask again for exactly that.
            response = try transmitOnce(command.with(le: response.status.sw2 == 0 ? 256 : Int(response.status.sw2)))
        }
        var data = response.data
        var rounds = 0
        while response.status.sw1 == 0x61 {
            // More data waiting: GET RESPONSE for SW2 bytes (00 means 256).
            rounds += 1
            guard rounds <= 256 else { throw PCSCError.failure(call: "GET RESPONSE loop", code: 0x61) }
            response = try transmitOnce(.getResponse(response.status.sw2 == 0 ? 256 : Int(response.status.sw2)))
            data += response.data
        }
        return ResponseAPDU(data: data, status: response.status)
    }

    /// Sends a command that carries a secret (VERIFY, CHANGE REFERENCE DATA) as raw bytes and
    /// wipes the buffer afterwards, on every path. No 6Cxx/61xx handling: such commands return
    /// only a status word.
    public func transmitWiping(_ command: inout [UInt8]) throws -> ResponseAPDU {
        defer { for index in command.indices { command[index] = 0 } }
        var bytes = try handle.transmit(command, reader: readerName, expectsExtendedAnswer: false)
        defer { for index in bytes.indices { bytes[index] = 0 } }
        guard let response = ResponseAPDU(bytes: bytes) else {
            throw PCSCError.failure(call: "SCardTransmit (\(bytes.count)-byte answer)", code: 0)
        }
        return response
    }

    /// The reader's CCID features (PC/SC part 10 `CM_IOCTL_GET_FEATURE_REQUEST`): feature tag →
    /// control code. Empty when the reader offers none (or does not answer the request).
    public func readerFeatures() -> [UInt8: UInt32] {
        // SCARD_CTL_CODE(3400) on pcsc-lite: 0x42000000 + 3400.
        guard let answer = try? handle.control(0x4200_0000 + 3400, [], reader: readerName) else { return [:] }
        var features: [UInt8: UInt32] = [:]
        var index = 0
        while index + 6 <= answer.count, answer[index + 1] == 4 {
            features[answer[index]] = answer[(index + 2)..<(index + 6)].reduce(0) { $0 << 8 | UInt32($1) }
            index += 6
        }
        return features
    }

    /// `SCardControl` with a control code from `readerFeatures()`.
    public func control(_ code: UInt32, _ input: [UInt8]) throws -> [UInt8] {
        try handle.control(code, input, reader: readerName)
    }

    private func transmitOnce(_ command: CommandAPDU) throws -> ResponseAPDU {
        let bytes = try handle.transmit(command.bytes, reader: readerName, expectsExtendedAnswer: command.isExtended)
        guard let response = ResponseAPDU(bytes: bytes) else {
            throw PCSCError.failure(call: "SCardTransmit (\(bytes.count)-byte answer)", code: 0)
        }
        return response
    }
}
