import FoundationEssentials
import Glibc
import TamgaSupport

/// The four digits the person compares on the phone before confirming, computed from the hash
/// being signed exactly as the phone computes them. Mobile-ID and Smart-ID sessions show them;
/// the co-signer's sessions use Smart-ID's rule (the relying party gets the code when it opens
/// the session, and the device computes it from the digest it is about to sign).
public enum VerificationCode {
    /// Mobile-ID: the top 6 bits of the first byte of the hash, then the low 7 bits of the last
    /// byte, read as one 13-bit number, as four digits (0000–8191).
    public static func mobileID(hash: [UInt8]) -> String {
        guard let first = hash.first, let last = hash.last else { return "0000" }
        return NumberText.decimal((Int(first >> 2) << 7) | Int(last & 0x7F), width: 4)
    }

    /// Smart-ID: SHA-256 of the raw hash, its last two bytes as an unsigned big-endian number,
    /// modulo 10000, as four digits.
    public static func smartID(hash: [UInt8]) -> String {
        let digest = Array(Digest.compute(.sha256, over: Data(hash)).bytes)
        return NumberText.decimal(
            (Int(digest[digest.count - 2]) << 8 | Int(digest[digest.count - 1])) % 10000, width: 4)
    }
}
