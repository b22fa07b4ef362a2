import TamgaCore

/// The shortest PINs a split key takes, as for Estonian ID cards: PIN1 (the auth key) at least
/// 4 characters, PIN2 (the sign key) at least 5. Characters are Unicode code points of the
/// UTF-8 text, digits or not (a keypad-only PIN is the common case, a passphrase is allowed).
/// Checked before anything is sent or tried — at enrollment, PIN change and unlock — so a
/// short PIN never reaches the co-signer nor costs a try.
public enum PINPolicy {
    /// A bound on the work a PIN causes (PBKDF2, hashing to the curve); no keypad comes near.
    public static let maximumBytes = 128

    public static func minimumLength(_ role: ShareRole) -> Int { role == .auth ? 4 : 5 }

    public static func name(_ role: ShareRole) -> String { role == .auth ? "PIN1 (authentication)" : "PIN2 (signing)" }

    /// Throws `pinTooShort` / `pinTooLong`; looks at the bytes in place (no copy of the PIN).
    public static func check(_ pin: SecretBytes, role: ShareRole) throws {
        guard pin.count <= maximumBytes else { throw ThresholdError.pinTooLong(maximum: maximumBytes) }
        // UTF-8 continuation bytes are 10xxxxxx; every other byte starts a code point.
        let characters = pin.withUnsafeBytes { bytes in bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) } }
        guard characters >= minimumLength(role) else {
            throw ThresholdError.pinTooShort(role: name(role), minimum: minimumLength(role))
        }
    }
}
