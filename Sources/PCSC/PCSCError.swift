import FoundationEssentials
import Glibc

/// What went wrong talking to PC/SC, phrased as what the user can do. Every `SCard*` result
/// other than success becomes one of these in one place (`SCardReturnCode.check`).
public enum PCSCError: Error, Equatable, Sendable {
    /// pcscd is not running (or not reachable on its socket).
    case serviceNotRunning
    case noReaders
    case noCard(reader: String)
    case cardRemoved(reader: String)
    case cardReset(reader: String)
    case sharingViolation(reader: String)
    case timeout
    case cancelled
    case readerUnavailable(reader: String)
    case unresponsiveCard(reader: String)
    /// Any other return code, with the call that returned it.
    case failure(call: String, code: UInt32)

    public var code: String {
        switch self {
        case .serviceNotRunning: "pcsc-service-not-running"
        case .noReaders: "no-readers"
        case .noCard: "no-card"
        case .cardRemoved: "card-removed"
        case .cardReset: "card-reset"
        case .sharingViolation: "sharing-violation"
        case .timeout: "pcsc-timeout"
        case .cancelled: "pcsc-cancelled"
        case .readerUnavailable: "reader-unavailable"
        case .unresponsiveCard: "unresponsive-card"
        case .failure: "pcsc-failure"
        }
    }
}

extension PCSCError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .serviceNotRunning:
            "The PC/SC service (pcscd) is not running. Start it (systemctl start pcscd.socket) and connect the reader."
        case .noReaders: "No smart-card reader is connected. Plug one in; tamga sees it at once."
        case .noCard(let reader): "There is no card in \(reader). Insert the card."
        case .cardRemoved(let reader):
            "The card was removed from \(reader) during the operation; nothing was done with it."
        case .cardReset(let reader): "The card in \(reader) was reset by another program; try again."
        case .sharingViolation(let reader):
            "Another program is using the card in \(reader) exclusively. Close it and try again."
        case .timeout: "The reader did not answer in time."
        case .cancelled: "The wait was cancelled."
        case .readerUnavailable(let reader): "\(reader) is no longer available (unplugged?)."
        case .unresponsiveCard(let reader): "The card in \(reader) does not answer; check it is inserted the right way."
        case .failure(let call, let code):
            "\(call) failed with PC/SC error 0x\(String(code, radix: 16, uppercase: true))."
        }
    }
}
