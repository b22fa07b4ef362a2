/// The card's secrets: PIN1 (authentication), PIN2 (signing), the PUK (unblocking).
public enum PINKind: String, Sendable, Hashable, CaseIterable, Codable {
    case pin1 = "PIN1", pin2 = "PIN2", puk = "PUK"
}

/// What one PIN looks like on one card: its reference in VERIFY, the digits allowed, and the
/// 12-byte template's filler (IDEMIA FF, Thales 00).
public struct PINFormat: Sendable, Hashable {
    public let reference: UInt8
    public let digits: ClosedRange<Int>
    public let filler: UInt8
    static let templateLength = 12

    /// The VERIFY data: the PIN's ASCII digits padded to 12 bytes. Nil when the PIN has the wrong
    /// length or anything but digits (nothing is sent to the card then).
    func template(for pin: [UInt8]) -> [UInt8]? {
        guard digits.contains(pin.count), pin.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return pin + [UInt8](repeating: filler, count: Self.templateLength - pin.count)
    }
}

/// A PIN's retry counter as the card reports it.
public struct RetryCounter: Sendable, Hashable, Codable {
    public let triesLeft: Int
    /// The card's maximum, when it says (IDEMIA does, Thales does not).
    public let maximumTries: Int?
    /// False for a Thales EstEID PIN2 still at its issuance value: it must be changed once first.
    public let isActive: Bool

    public var isBlocked: Bool { triesLeft == 0 }
}
