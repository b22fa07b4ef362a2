internal import CPCSC
import FoundationEssentials
import Glibc

/// Owns one `SCARDCONTEXT`.
final class SCardContextHandle {
    let context: SCARDCONTEXT

    init() throws {
        var context: SCARDCONTEXT = 0
        try SCardReturnCode(SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &context)).check(
            "SCardEstablishContext")
        self.context = context
    }
    deinit { SCardReleaseContext(context) }

    /// `SCardListReaders` (a NUL-separated, double-NUL-terminated multi-string).
    /// Asked once with a buffer that holds pcsc-lite's largest list (16 readers of at most 128
    /// bytes: each call is a round trip to pcscd, and asking for the size first doubled it);
    /// a larger list (another PC/SC implementation) is asked for its size and fetched again.
    func readerNames() throws -> [String] {
        var buffer = [CChar](repeating: 0, count: 4096)
        var length = DWORD(buffer.count)
        var listing = SCardReturnCode(SCardListReaders(context, nil, &buffer, &length))
        if listing.unsigned == UInt32(truncatingIfNeeded: SCARD_E_INSUFFICIENT_BUFFER) {
            length = 0
            let sizing = SCardReturnCode(SCardListReaders(context, nil, nil, &length))
            if sizing.unsigned == UInt32(truncatingIfNeeded: SCARD_E_NO_READERS_AVAILABLE) { return [] }
            try sizing.check("SCardListReaders")
            buffer = [CChar](repeating: 0, count: Int(length))
            listing = SCardReturnCode(SCardListReaders(context, nil, &buffer, &length))
        }
        if listing.unsigned == UInt32(truncatingIfNeeded: SCARD_E_NO_READERS_AVAILABLE) { return [] }
        try listing.check("SCardListReaders")
        return Self.multiString(buffer.prefix(min(Int(length), buffer.count)).map { UInt8(bitPattern: $0) })
    }

    /// Splits a PC/SC multi-string; stops at the double NUL and never reads past the buffer.
    static func multiString(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: 0, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
    }

    /// One non-blocking `SCardGetStatusChange` for the named readers.
    func states(of names: [String]) throws -> [Reader] {
        let cNames = names.map { strdup($0)! }
        defer { cNames.forEach { free($0) } }
        var states = cNames.map { name -> SCARD_READERSTATE in
            var state = SCARD_READERSTATE()
            state.szReader = UnsafePointer(name)
            state.dwCurrentState = DWORD(SCARD_STATE_UNAWARE)
            return state
        }
        let result = SCardReturnCode(SCardGetStatusChange(context, 0, &states, DWORD(states.count)))
        // A zero timeout answers at once; TIMEOUT only means "nothing changed since UNAWARE".
        if !result.isSuccess && result.unsigned != UInt32(truncatingIfNeeded: SCARD_E_TIMEOUT) {
            try result.check("SCardGetStatusChange")
        }
        return zip(names, states).map { name, state in
            let atr = withUnsafeBytes(of: state.rgbAtr) { Array($0.prefix(Int(min(state.cbAtr, DWORD(MAX_ATR_SIZE))))) }
            let bits = UInt32(truncatingIfNeeded: state.dwEventState) & 0xFFFF & ~UInt32(SCARD_STATE_CHANGED)
            return Reader(name: name, state: ReaderState(rawValue: bits), atr: atr)
        }
    }
}
