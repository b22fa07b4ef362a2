import FoundationEssentials
import Glibc

/// What approving a session gave: the joint signature, verified on this device under the joint
/// key, and whether the co-signer confirmed receiving it (`finish` answered, or the session
/// found COMPLETE after a lost answer).
public struct Approval: Sendable {
    public let r: BigInt
    public let s: BigInt
    /// Why the co-signer did not confirm `finish` after every try; nil when it did.
    public let notDelivered: String?

    public var signature: (r: BigInt, s: BigInt) { (r, s) }
    public var delivered: Bool { notDelivered == nil }
}
