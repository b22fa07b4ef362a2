internal import CPCSC
import FoundationEssentials
import Glibc

/// A PC/SC `LONG` result, kept raw for logs and mapped to `PCSCError` in exactly one place.
struct SCardReturnCode: RawRepresentable, Equatable {
    let rawValue: Int
    init(rawValue: Int) { self.rawValue = rawValue }
    init(_ value: LONG) { rawValue = Int(value) }

    var isSuccess: Bool { rawValue == Int(SCARD_S_SUCCESS) }
    var unsigned: UInt32 { UInt32(truncatingIfNeeded: rawValue) }

    /// Throws the error a person can act on; `reader` names the reader in messages.
    func check(_ call: String, reader: String = "the reader") throws {
        guard !isSuccess else { return }
        throw error(call, reader: reader)
    }

    func error(_ call: String, reader: String = "the reader") -> PCSCError {
        switch unsigned {
        case UInt32(truncatingIfNeeded: SCARD_E_NO_SERVICE), UInt32(truncatingIfNeeded: SCARD_E_SERVICE_STOPPED):
            .serviceNotRunning
        case UInt32(truncatingIfNeeded: SCARD_E_NO_READERS_AVAILABLE): .noReaders
        case UInt32(truncatingIfNeeded: SCARD_E_NO_SMARTCARD): .noCard(reader: reader)
        case UInt32(truncatingIfNeeded: SCARD_W_REMOVED_CARD): .cardRemoved(reader: reader)
        case UInt32(truncatingIfNeeded: SCARD_W_RESET_CARD): .cardReset(reader: reader)
        case UInt32(truncatingIfNeeded: SCARD_E_SHARING_VIOLATION): .sharingViolation(reader: reader)
        case UInt32(truncatingIfNeeded: SCARD_E_TIMEOUT): .timeout
        case UInt32(truncatingIfNeeded: SCARD_E_CANCELLED): .cancelled
        case UInt32(truncatingIfNeeded: SCARD_E_READER_UNAVAILABLE), UInt32(truncatingIfNeeded: SCARD_E_UNKNOWN_READER):
            .readerUnavailable(reader: reader)
        case UInt32(truncatingIfNeeded: SCARD_W_UNRESPONSIVE_CARD), UInt32(truncatingIfNeeded: SCARD_W_UNPOWERED_CARD):
            .unresponsiveCard(reader: reader)
        default: .failure(call: call, code: unsigned)
        }
    }
}
