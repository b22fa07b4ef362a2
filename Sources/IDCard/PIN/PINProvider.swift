import TamgaCore

/// What the card needs a PIN for, so a prompt can say it, and what it already knows.
public struct PINRequest: Sendable {
    public let kind: PINKind
    /// "sign", "authenticate", "change", "unblock": what the PIN is about to unlock.
    public let purpose: String
    public let cardName: String
    public let readerName: String
    /// Tries left before the PIN blocks, when the card told us before asking.
    public let triesLeft: Int?
    public let digits: ClosedRange<Int>
    /// For signing: the certificate's subject, so the person sees whose key signs.
    public let signerName: String?
}

/// Supplies PINs. Called once per operation and never again for the same operation: tamga does
/// not retry a PIN on the user's behalf. Throw `CardError.cancelled` when the person declines.
public protocol PINProvider: Sendable {
    func pin(for request: PINRequest) async throws -> SecretBytes
}
