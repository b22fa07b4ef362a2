internal import CPCSC
import FoundationEssentials
import Glibc

/// Owns one `SCARDHANDLE`; disconnects with `SCARD_LEAVE_CARD` in `deinit`.
final class SCardCardHandle {
    private let card: SCARDHANDLE
    private let reader: String
    let isT0: Bool

    init(context: SCardContextHandle, reader: String) throws {
        var card: SCARDHANDLE = 0
        var active: DWORD = 0
        try SCardReturnCode(
            SCardConnect(
                context.context, reader, DWORD(SCARD_SHARE_SHARED),
                DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &card, &active)
        )
        .check("SCardConnect", reader: reader)
        self.card = card
        self.reader = reader
        isT0 = active == DWORD(SCARD_PROTOCOL_T0)
    }
    deinit { SCardDisconnect(card, DWORD(SCARD_LEAVE_CARD)) }

    func beginTransaction() throws {
        try SCardReturnCode(SCardBeginTransaction(card)).check("SCardBeginTransaction", reader: reader)
    }

    func endTransaction() { SCardEndTransaction(card, DWORD(SCARD_LEAVE_CARD)) }

    func transmit(_ command: [UInt8], reader: String, expectsExtendedAnswer: Bool = true) throws -> [UInt8] {
        // A short APDU's answer is at most 256 data bytes and the status word.
        var answer = [UInt8](repeating: 0, count: expectsExtendedAnswer ? 65_538 : 258)
        var length = DWORD(answer.count)
        let pci = isT0 ? cpcsc_pci_t0() : cpcsc_pci_t1()
        try SCardReturnCode(SCardTransmit(card, pci, command, DWORD(command.count), nil, &answer, &length))
            .check("SCardTransmit", reader: reader)
        return Array(answer.prefix(Int(length)))
    }

    /// `SCardControl`: a reader escape/feature ioctl.
    func control(_ code: UInt32, _ input: [UInt8], reader: String) throws -> [UInt8] {
        var answer = [UInt8](repeating: 0, count: 1024)
        var length: DWORD = 0
        try SCardReturnCode(
            SCardControl(card, DWORD(code), input, DWORD(input.count), &answer, DWORD(answer.count), &length)
        )
        .check("SCardControl", reader: reader)
        return Array(answer.prefix(Int(length)))
    }
}
