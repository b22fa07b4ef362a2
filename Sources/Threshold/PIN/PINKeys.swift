internal import COpenSSL
import FoundationEssentials
import Glibc
import TamgaCore

/// The keys a PIN opens, once the co-signer has evaluated it (docs/threshold-pin.md):
///
///     input    = "tamga-pin-v1" ‖ lp(account) ‖ lp(role) ‖ lp(keyID) ‖ PIN      (OPRF input)
///     hardened = OPRF(k, input)                                        (needs the co-signer)
///     combined = HMAC-SHA256(hardened, PBKDF2-SHA256(PIN, salt, 210,000))   (needs the folder)
///     sealKey  = HMAC-SHA256(combined, "tamga-pin-seal-v1")     opens the sealed share
///     authKey  = HMAC-SHA256(combined, "tamga-pin-ok-v1")       the co-signer's verifier
///     proof    = HMAC-SHA256(authKey, "tamga-pin-proof-v1" ‖ keyID ‖ attempt)
///
/// Neither the folder (no k) nor the co-signer (no salt, which only the folder holds) can test
/// a PIN guess alone. The co-signer keeps `authKey` to check a `proof` that the last
/// evaluation was for the right PIN, and only then resets its attempt counter.
public struct PINKeys: Sendable {
    public var sealKey: [UInt8]
    public var authKey: [UInt8]

    /// Overwrites both keys (call when done with them).
    public mutating func erase() {
        wipe(&sealKey)
        wipe(&authKey)
    }

    /// What the OPRF hashes: the PIN bound to the account, role and key it opens, so an
    /// evaluation for one key says nothing about another.
    public static func oprfInput(pin: SecretBytes, account: String, role: ShareRole, keyID: [UInt8]) -> [UInt8] {
        var input = Array("tamga-pin-v1".utf8)
        for part in [Array(account.utf8), Array(role.rawValue.utf8), keyID] {
            input += [UInt8(part.count >> 8 & 0xff), UInt8(part.count & 0xff)] + part
        }
        pin.withUnsafeBytes { input += $0 }
        return input
    }

    public static func derive(pin: SecretBytes, salt: [UInt8], hardened: [UInt8]) throws -> PINKeys {
        var stretched = try SealedBox.deriveKey(pin: pin, salt: salt)
        defer { wipe(&stretched) }
        var combined = hmac(key: hardened, stretched)
        defer { wipe(&combined) }
        return PINKeys(
            sealKey: hmac(key: combined, Array("tamga-pin-seal-v1".utf8)),
            authKey: hmac(key: combined, Array("tamga-pin-ok-v1".utf8)))
    }

    /// The proof that the co-signer's last evaluation (`attempt`) was for the right PIN.
    public static func proof(authKey: [UInt8], keyID: [UInt8], attempt: [UInt8]) -> [UInt8] {
        hmac(key: authKey, Array("tamga-pin-proof-v1".utf8) + keyID + attempt)
    }

    /// Checks a proof in constant time (the co-signer's side).
    public static func verify(proof: [UInt8], authKey: [UInt8], keyID: [UInt8], attempt: [UInt8]) -> Bool {
        let expected = Self.proof(authKey: authKey, keyID: keyID, attempt: attempt)
        guard proof.count == expected.count else { return false }
        return expected.withUnsafeBytes { left in
            proof.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
        }
    }

    /// HMAC-SHA256 (RFC 2104) over TamgaCore's SHA-256; keys here are 32 bytes.
    static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? HashToCurve.sha256(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        var inner = block.map { $0 ^ 0x36 } + message
        var outer = block.map { $0 ^ 0x5c }
        defer {
            wipe(&block)
            wipe(&inner)
            wipe(&outer)
        }
        return HashToCurve.sha256(outer + HashToCurve.sha256(inner))
    }
}
