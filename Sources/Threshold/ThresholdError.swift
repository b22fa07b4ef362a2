/// Why a threshold operation failed. Every protocol check has its own case, so a test (and a
/// log) says which check caught a bad message; descriptions say what happens next.
public enum ThresholdError: Error, Equatable, Sendable {
    case randomnessFailed
    /// A point that is not a canonical compressed encoding of a curve point other than the identity.
    case invalidPoint(String)
    /// A scalar out of range (zero where not allowed, or not below the group order).
    case invalidScalar(String)
    case invalidPaillierModulus(String)
    case invalidCiphertext(String)
    case proofRejected(String)
    case commitmentMismatch(String)
    case unexpectedMessage(String)
    case signatureCheckFailed
    /// The share is locked after a failure past the server's ciphertext (terminal abort), or
    /// deleted after ten wrong PINs.
    case shareLocked
    /// Wrong PIN; the share is deleted when no tries are left.
    case wrongPIN(triesLeft: Int)
    case notEnrolled
    case keyStore(String)
    /// The co-signer's c3 never reached this device (a lost answer to `prove`, a reset, a 5xx, a
    /// restart); the device ended the session without decrypting anything, so nothing is locked.
    case sessionAbandoned(String)
    /// The joint signature was made and verified on this device, but the co-signer did not
    /// confirm `finish` after several tries: the relying party does not have it.
    case signatureNotDelivered(String)
    /// A relying party's name that the co-signer uses itself (or one that reads the same).
    case reservedName(String)

    public var code: String {
        switch self {
        case .randomnessFailed: "threshold-randomness"
        case .invalidPoint: "threshold-invalid-point"
        case .invalidScalar: "threshold-invalid-scalar"
        case .invalidPaillierModulus: "threshold-invalid-modulus"
        case .invalidCiphertext: "threshold-invalid-ciphertext"
        case .proofRejected: "threshold-proof-rejected"
        case .commitmentMismatch: "threshold-commitment-mismatch"
        case .unexpectedMessage: "threshold-unexpected-message"
        case .signatureCheckFailed: "threshold-signature-check"
        case .shareLocked: "threshold-share-locked"
        case .wrongPIN: "wrong-pin"
        case .notEnrolled: "threshold-not-enrolled"
        case .keyStore: "threshold-key-store"
        case .sessionAbandoned: "threshold-session-abandoned"
        case .signatureNotDelivered: "threshold-signature-not-delivered"
        case .reservedName: "threshold-reserved-name"
        }
    }
}

extension ThresholdError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .randomnessFailed: "The system's random number generator failed; nothing was done."
        case .invalidPoint(let what): "A curve point in the exchange is invalid (\(what)); the exchange was stopped."
        case .invalidScalar(let what): "A number in the exchange is out of range (\(what)); the exchange was stopped."
        case .invalidPaillierModulus(let what): "The Paillier modulus is not acceptable (\(what)); enrollment was refused."
        case .invalidCiphertext(let what): "A Paillier ciphertext is invalid (\(what))."
        case .proofRejected(let what): "A zero-knowledge proof did not verify (\(what)); the exchange was stopped."
        case .commitmentMismatch(let what): "A commitment did not open to the value sent (\(what)); the exchange was stopped."
        case .unexpectedMessage(let what): "A message came out of order (\(what))."
        case .signatureCheckFailed: "The joint signature did not verify; it was not released."
        case .shareLocked: "This device's key share is locked (a failed signature, or too many wrong PINs); enroll again to sign."
        case .wrongPIN(let left): "Wrong PIN: \(left) \(left == 1 ? "try" : "tries") left before this device's share is deleted. tamga does not retry a PIN."
        case .notEnrolled: "This device has no threshold key for that account; enroll first (tamga threshold enroll)."
        case .keyStore(let what): "The threshold key store failed: \(what)."
        case .sessionAbandoned(let what):
            "The co-signer's answer did not arrive (\(what)); the session was abandoned before anything was decrypted, so neither side locked the key. Sign again."
        case .signatureNotDelivered(let what):
            "The signature was made and verified on this device, but the co-signer did not confirm receiving it (\(what)), so whoever asked for it does not have it. The key is not locked; ask for a new session."
        case .reservedName(let what): "\(what); register the relying party under a name of its own."
        }
    }
}
