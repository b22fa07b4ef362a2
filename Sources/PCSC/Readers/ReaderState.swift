internal import CPCSC

/// A reader's state bits as `SCardGetStatusChange` reports them (`SCARD_STATE_*`).
public struct ReaderState: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `SCARD_STATE_EMPTY`: no card.
    public static let empty = ReaderState(rawValue: UInt32(SCARD_STATE_EMPTY))
    /// `SCARD_STATE_PRESENT`: a card is in the reader.
    public static let present = ReaderState(rawValue: UInt32(SCARD_STATE_PRESENT))
    /// `SCARD_STATE_EXCLUSIVE`: another program holds the card exclusively.
    public static let exclusive = ReaderState(rawValue: UInt32(SCARD_STATE_EXCLUSIVE))
    /// `SCARD_STATE_INUSE`: another program has the card open (shared).
    public static let inUse = ReaderState(rawValue: UInt32(SCARD_STATE_INUSE))
    /// `SCARD_STATE_MUTE`: a card is present but does not answer (wrong way round, broken).
    public static let mute = ReaderState(rawValue: UInt32(SCARD_STATE_MUTE))
    /// `SCARD_STATE_UNAVAILABLE`
    public static let unavailable = ReaderState(rawValue: UInt32(SCARD_STATE_UNAVAILABLE))

    /// One word for people and `--json`: empty, present, exclusive, in-use, mute, unavailable.
    public var summary: String {
        if contains(.unavailable) { return "unavailable" }
        if contains(.mute) { return "mute" }
        if contains(.exclusive) { return "exclusive" }
        if contains(.inUse) { return "in-use" }
        if contains(.present) { return "present" }
        return "empty"
    }
}
