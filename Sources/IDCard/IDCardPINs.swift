import PCSC
import TamgaCore

/// PIN management as the eID SDKs offer it: change PIN1/PIN2/PUK with the current one, unblock
/// PIN1/PIN2 with the PUK. One attempt each; the card's answer (tries left, blocked) is thrown
/// as a `CardError`, never retried.
public enum IDCardPINs {
    /// The retry counter of `kind` on the card in `reader` (or the only supported card).
    public static func retryCounter(_ kind: PINKind, reader: String? = nil) throws -> RetryCounter {
        try session(reader).retryCounter(kind)
    }

    /// The allowed digits for `kind` on the card in `reader`.
    public static func digits(_ kind: PINKind, reader: String? = nil) throws -> ClosedRange<Int> {
        try session(reader).profile.pinFormat(kind).digits
    }

    public static func change(_ kind: PINKind, current: SecretBytes, new: SecretBytes, reader: String? = nil) throws {
        try change(kind, current: current, new: new, session: session(reader))
    }

    public static func unblock(_ kind: PINKind, puk: SecretBytes, new: SecretBytes, reader: String? = nil) throws {
        guard kind != .puk else {
            throw CardError.unexpectedStatus(
                StatusWord(0x6A, 0x86), command: "RESET RETRY COUNTER (the PUK cannot unblock itself)")
        }
        try session(reader).unblockPIN(kind, puk: puk, new: new)
    }

    static func change(_ kind: PINKind, current: SecretBytes, new: SecretBytes, session: IDCardSession) throws {
        let counter = try session.retryCounter(kind)
        if counter.isBlocked { throw CardError.pinBlocked(kind) }
        try session.changePIN(kind, current: current, new: new)
    }

    static func session(_ reader: String?) throws -> IDCardSession {
        let context = try IDCardSigner.context()
        let candidate = try IDCardReaders.choose(reader, context: context)
        let connection = try IDCardSigner.mapping {
            try CardConnection(context: context, reader: candidate.reader.name)
        }
        return IDCardSession(channel: connection, profile: candidate.profile)
    }
}
