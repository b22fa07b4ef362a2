import FoundationEssentials
import Glibc
import PKCS11
import TamgaCore

/// An extra layer around the PIN-sealed share, held by hardware: the Linux stand-in for the
/// seed's Secure Enclave wrap. A share stored with a wrapper starts with byte 1 and cannot be
/// opened without the same wrapper, whatever the PIN.
public protocol ShareWrapper: Sendable {
    func wrap(_ bytes: [UInt8]) throws -> [UInt8]
    func unwrap(_ bytes: [UInt8]) throws -> [UInt8]
}

/// Wraps with AES-256-GCM under a non-extractable key on a PKCS#11 token (labelled
/// `tamga-share-wrap`, made on first use): `[iv 12 | ciphertext | tag 16]`. The token must be
/// present, and logged in with its user PIN, to store or open the share.
// unchecked: the session serialises every call
public final class PKCS11ShareWrapper: ShareWrapper, @unchecked Sendable {
    public static let keyLabel = "tamga-share-wrap"
    private let session: PKCS11Session
    private let key: UInt
    private let random: RandomSource

    /// Logs in to `token` with `pin` and finds (or makes) the wrapping key.
    public init(token: PKCS11Tokens.Token, pin: SecretBytes, random: RandomSource = SystemRandom()) throws {
        session = try token.module.openSession(token.slot, readWrite: true)
        try session.login(pin: pin)
        key = try session.secretKey(label: Self.keyLabel) ?? session.generateAESKey(label: Self.keyLabel)
        self.random = random
    }

    /// Logs the token out when the wrapper goes (PKCS#11 login state is per token and process).
    deinit { session.logout() }

    public func wrap(_ bytes: [UInt8]) throws -> [UInt8] {
        let iv = try random.bytes(12, label: "keystore.wrap.iv")
        return iv + (try session.aesGCM(encrypt: true, key: key, iv: iv, input: bytes))
    }

    public func unwrap(_ bytes: [UInt8]) throws -> [UInt8] {
        guard bytes.count > 12 + 16 else { throw ThresholdError.keyStore("the wrapped share is truncated") }
        do {
            return try session.aesGCM(
                encrypt: false, key: key, iv: Array(bytes.prefix(12)), input: Array(bytes.dropFirst(12)))
        } catch {
            throw ThresholdError.keyStore("the token could not unwrap the share (another token or key?): \(error)")
        }
    }
}
