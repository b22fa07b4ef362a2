import Foundation

/// A connection to the card in one reader (shared mode, T=0 or T=1). Every operation runs in
/// a PC/SC transaction (`withTransaction`); `transmit` applies the ISO 7816 rules once for all
/// callers: `6Cxx` → resend with Le = xx, then `61xx` → GET RESPONSE until the data is complete.
/// Not thread-safe: one task uses a connection at a time.
public final class CardConnection: @unchecked Sendable {   // unchecked: one task at a time
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

    private func transmitOnce(_ command: CommandAPDU) throws -> ResponseAPDU {
        let bytes = try handle.transmit(command.bytes, reader: readerName)
        guard let response = ResponseAPDU(bytes: bytes) else {
            throw PCSCError.failure(call: "SCardTransmit (\(bytes.count)-byte answer)", code: 0)
        }
        return response
    }
}
