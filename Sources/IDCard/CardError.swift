import PCSC

/// Why the card refused or failed a request, phrased as what the person can do next. The case
/// is the stable code (`code`) that `--json` output and tests use.
public enum CardError: Error, Equatable, Sendable {
    case noReaders
    case noCard
    case noSupportedCard(found: [String])
    case severalCards(readers: [String])
    case readerNotFound(String)
    case unsupportedCard(reader: String, atr: String)
    case wrongPIN(PINKind, triesLeft: Int)
    case pinBlocked(PINKind)
    case pinNotActivated(PINKind)
    case pinLength(PINKind, allowed: ClosedRange<Int>)
    case newPINRejected(PINKind)
    case cardRemoved(reader: String)
    case cancelled
    case unexpectedStatus(StatusWord, command: String)
    case malformedResponse(command: String)
    case transport(PCSCError)

    public var code: String {
        switch self {
        case .noReaders: "no-readers"
        case .noCard: "no-card"
        case .noSupportedCard: "no-supported-card"
        case .severalCards: "several-cards"
        case .readerNotFound: "reader-not-found"
        case .unsupportedCard: "unsupported-card"
        case .wrongPIN: "wrong-pin"
        case .pinBlocked: "pin-blocked"
        case .pinNotActivated: "pin-not-activated"
        case .pinLength: "pin-length"
        case .newPINRejected: "new-pin-rejected"
        case .cardRemoved: "card-removed"
        case .cancelled: "cancelled"
        case .unexpectedStatus: "card-status"
        case .malformedResponse: "card-malformed-response"
        case .transport(let error): error.code
        }
    }

    /// The one place where a VERIFY (or CHANGE / RESET RETRY COUNTER) status word becomes a PIN
    /// outcome (docs/design/smartcard.md §1.5); nil means accepted.
    static func afterPINCommand(_ status: StatusWord, kind: PINKind, command: String) -> CardError? {
        switch (status.sw1, status.sw2) {
        case (0x90, 0x00): nil
        case (0x63, 0xC0), (0x69, 0x83): .pinBlocked(kind)
        case (0x69, 0x84): .pinNotActivated(kind)
        case (0x63, let sw2) where sw2 & 0xF0 == 0xC0: .wrongPIN(kind, triesLeft: Int(sw2 & 0x0F))
        case (0x67, 0x00), (0x64, 0x03): .pinLength(kind, allowed: 4...12)
        case (0x6A, 0x80) where command != "VERIFY": .newPINRejected(kind)
        case (0x6A, 0x80): .pinLength(kind, allowed: 4...12)
        case (0x64, 0x00), (0x64, 0x01): .cancelled  // PIN-pad timeout / cancel key
        default: .unexpectedStatus(status, command: command)
        }
    }

    /// PC/SC failures become card errors where the person's next step differs.
    static func from(_ error: PCSCError) -> CardError {
        switch error {
        case .noReaders: .noReaders
        case .noCard: .noCard
        case .cardRemoved(let reader), .readerUnavailable(let reader): .cardRemoved(reader: reader)
        default: .transport(error)
        }
    }
}

extension CardError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .noReaders: "No smart-card reader is connected. Plug one in and try again."
        case .noCard: "There is no card in the reader. Insert your ID card."
        case .noSupportedCard(let found):
            "None of the cards present can sign (\(found.joined(separator: "; "))). Insert an ID card tamga supports (tamga readers lists them)."
        case .severalCards(let readers):
            "Several ID cards are present (\(readers.joined(separator: ", "))). Say which with --with card:READER."
        case .readerNotFound(let name): "No reader called \(name) is connected (tamga readers lists them)."
        case .unsupportedCard(let reader, let atr): "The card in \(reader) (ATR \(atr)) is not one tamga signs with."
        case .wrongPIN(let kind, let left):
            "Wrong \(kind.rawValue): \(left) \(left == 1 ? "try" : "tries") left before it is blocked. Nothing was signed or changed; tamga does not retry a PIN."
        case .pinBlocked(.puk):
            "The PUK is blocked. The card's PINs can no longer be unblocked; contact the card's issuer."
        case .pinBlocked(let kind):
            "\(kind.rawValue) is blocked. Unblock it with the PUK: tamga card unblock --\(kind.rawValue.lowercased())."
        case .pinNotActivated(let kind):
            "\(kind.rawValue) is still the one the card was issued with and must be changed once before use: tamga card change-pin --\(kind.rawValue.lowercased())."
        case .pinLength(let kind, let allowed):
            "\(kind.rawValue) must have \(allowed.lowerBound)–\(allowed.upperBound) digits; nothing was sent to the card."
        case .newPINRejected(let kind):
            "The card refused the new \(kind.rawValue) (too short, too long, or not allowed). Choose another."
        case .cardRemoved(let reader):
            "The card was removed from \(reader) during the operation; nothing was signed or changed. Insert it and try again."
        case .cancelled: "Cancelled; nothing was sent to the card."
        case .unexpectedStatus(let status, let command):
            "The card answered \(status) to \(command); the operation was stopped."
        case .malformedResponse(let command):
            "The card's answer to \(command) could not be read; the operation was stopped."
        case .transport(let error): error.description
        }
    }
}
