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
    /// Wrong PIN; the tries left before the co-signer blocks the PIN or the device deletes the
    /// share, whichever comes first.
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
    /// A PIN shorter than its role allows (PIN1 ≥ 4, PIN2 ≥ 5 characters), refused before
    /// anything is sent or tried.
    case pinTooShort(role: String, minimum: Int)
    /// A PIN longer than any keypad would take (refused like a short one).
    case pinTooLong(maximum: Int)
    /// The co-signer refuses to evaluate this key's PIN any more: too many unconfirmed tries.
    case pinBlocked
    /// Every PIN check needs the co-signer's answer, and it could not be had.
    case coSignerNeeded(String)
    /// A share sealed before PIN hardening (format 0 or 1): it is refused, not migrated.
    case outdatedShareFormat
    /// The co-signer's server key is to be guarded by a token key that is not there (no such
    /// label on the token, or several keys with it).
    case serverKeyNotFound(String)
    /// The token key that should guard the server key could leave the token, or cannot do
    /// AES-GCM: refused rather than used.
    case serverKeyUnsafe(String)
    /// The database's secrets were sealed under another server key than the one given (another
    /// token key, or a key file where the database holds a token-wrapped key, or the reverse).
    case serverKeyMismatch(String)

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
        case .pinTooShort: "threshold-pin-too-short"
        case .pinTooLong: "threshold-pin-too-long"
        case .pinBlocked: "threshold-pin-blocked"
        case .coSignerNeeded: "threshold-cosigner-needed"
        case .outdatedShareFormat: "threshold-share-outdated"
        case .serverKeyNotFound: "cosigner-server-key-not-found"
        case .serverKeyUnsafe: "cosigner-server-key-unsafe"
        case .serverKeyMismatch: "cosigner-server-key-mismatch"
        }
    }
}

extension ThresholdError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .randomnessFailed: "The system's random number generator failed; nothing was done."
        case .invalidPoint(let what): "A curve point in the exchange is invalid (\(what)); the exchange was stopped."
        case .invalidScalar(let what): "A number in the exchange is out of range (\(what)); the exchange was stopped."
        case .invalidPaillierModulus(let what):
            "The Paillier modulus is not acceptable (\(what)); enrollment was refused."
        case .invalidCiphertext(let what): "A Paillier ciphertext is invalid (\(what))."
        case .proofRejected(let what): "A zero-knowledge proof did not verify (\(what)); the exchange was stopped."
        case .commitmentMismatch(let what):
            "A commitment did not open to the value sent (\(what)); the exchange was stopped."
        case .unexpectedMessage(let what): "A message came out of order (\(what))."
        case .signatureCheckFailed: "The joint signature did not verify; it was not released."
        case .shareLocked:
            "This device's key share is locked (a failed signature, or too many wrong PINs); enroll again to sign."
        case .wrongPIN(let left):
            "Wrong PIN: \(left) \(left == 1 ? "try" : "tries") left before the PIN is blocked (by the co-signer, or by this device, which deletes its share after 10 in a row). tamga does not retry a PIN."
        case .notEnrolled: "This device has no threshold key for that account; enroll first (tamga threshold enroll)."
        case .keyStore(let what): "The threshold key store failed: \(what)."
        case .sessionAbandoned(let what):
            "The co-signer's answer did not arrive (\(what)); the session was abandoned before anything was decrypted, so neither side locked the key. Sign again."
        case .signatureNotDelivered(let what):
            "The signature was made and verified on this device, but the co-signer did not confirm receiving it (\(what)), so whoever asked for it does not have it. The key is not locked; ask for a new session."
        case .reservedName(let what): "\(what); register the relying party under a name of its own."
        case .pinTooShort(let role, let minimum):
            "\(role) must have at least \(minimum) characters (digits or letters); choose a longer one. Nothing was sent or tried."
        case .pinTooLong(let maximum):
            "A PIN has at most \(maximum) bytes; choose a shorter one. Nothing was sent or tried."
        case .pinBlocked:
            "The co-signer has blocked this key's PIN after too many tries that were not followed by a correct PIN; enroll this device again (tamga threshold enroll) with a new code from the co-signer's operator."
        case .coSignerNeeded(let why):
            "Every PIN check of a split key needs the co-signer, which could not answer (\(why)); nothing was unlocked and no try was counted on this device. Try again when the co-signer can be reached."
        case .outdatedShareFormat:
            "This share was sealed by an older tamga under the PIN alone, which a copy of the folder could be searched for offline; it is not used any more. Enroll this device again (tamga threshold enroll) and delete the old account."
        case .serverKeyNotFound(let what):
            "\(what). Make the co-signer's token key with tamga cosigner make-server-key pkcs11:LABEL, or check the label in --server-key and the token (--token, --module); the co-signer did not start and nothing was changed."
        case .serverKeyUnsafe(let what):
            "The token key meant to guard the co-signer's server key \(what); only an AES-256 key that is sensitive, not extractable, and allowed to encrypt and decrypt is used. Make one with tamga cosigner make-server-key pkcs11:LABEL; nothing was changed."
        case .serverKeyMismatch(let what):
            "\(what); the co-signer did not start and nothing was changed. Start it with the server key (--server-key) this database was made with."
        }
    }
}
