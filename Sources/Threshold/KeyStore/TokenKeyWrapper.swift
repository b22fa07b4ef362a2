import FoundationEssentials
import Glibc
import PKCS11
import TamgaCore

/// Wraps a small secret (the co-signer's 32-byte server key) with AES-256-GCM under an AES key
/// that never leaves a PKCS#11 token (an HSM; SoftHSM in tests), found by its label. The
/// token does the cipher (`C_Encrypt`/`C_Decrypt` with `CKM_AES_GCM`): `C_WrapKey` would
/// leave the unwrapped secret a token object, but the co-signer needs its bytes to seal rows
/// with OpenSSL on every request. SoftHSM 2.6 offers `CKM_AES_KEY_WRAP` only for
/// `C_WrapKey` and no `CKM_AES_KEY_WRAP_PAD`; AES-GCM is offered by SoftHSM and common HSMs.
///
/// Opening logs in with the token's user PIN, once (never retried: a wrong PIN is reported
/// with the token's try-counter flags), and refuses a key that could leave the token.
// unchecked: the session serialises every call; the rest is immutable
public final class TokenKeyWrapper: @unchecked Sendable {
    public let token: PKCS11Tokens.Token
    public let keyLabel: String
    /// The token's label, for messages.
    public var tokenLabel: String { token.info.label }
    private let session: PKCS11Session
    private let key: UInt
    private let random: RandomSource
    private let loggedIn: Bool

    /// Logs in to `token` with `pin` (nil for a token that needs no login) and finds the key
    /// labelled `keyLabel`, which must be one AES-256 key, sensitive, not extractable, allowed
    /// to encrypt and decrypt.
    public init(
        token: PKCS11Tokens.Token, keyLabel: String, pin: SecretBytes?, random: RandomSource = SystemRandom()
    ) throws {
        self.token = token
        self.keyLabel = keyLabel
        self.random = random
        let session = try Self.loggedInSession(token, pin: pin, readWrite: false)
        // A refused key leaves no login behind (deinit does not run for an init that throws).
        do {
            key = try Self.findKey(keyLabel, on: session, token: token)
        } catch {
            if pin != nil { session.logout() }
            throw error
        }
        self.session = session
        loggedIn = pin != nil
    }

    /// The one secret key labelled `label`, if it may guard the server key.
    private static func findKey(_ label: String, on session: PKCS11Session, token: PKCS11Tokens.Token) throws -> UInt {
        let found = try session.secretKeys(label: label)
        guard let key = found.first else {
            throw ThresholdError.serverKeyNotFound("Token \(token.info.label) has no secret key labelled \(label)")
        }
        guard found.count == 1 else {
            throw ThresholdError.serverKeyNotFound(
                "Token \(token.info.label) has \(found.count) secret keys labelled \(label), and which one guards the server key cannot be told"
            )
        }
        if let refusal = refusal(try session.secretKeyAttributes(key)) {
            throw ThresholdError.serverKeyUnsafe("(\(label) on token \(token.info.label)) \(refusal)")
        }
        return key
    }

    /// Logs the token out when the wrapper goes (PKCS#11 login state is per token and process).
    deinit { if loggedIn { session.logout() } }

    /// Why a key is refused, or nil when it may guard the server key. Extractable or readable
    /// keys are refused because whoever can copy the token key can open every share the
    /// co-signer holds, and keeping it in the HSM is the point.
    static func refusal(_ attributes: SecretKeyAttributes) -> String? {
        if attributes.extractable {
            return "is extractable (CKA_EXTRACTABLE=true): its value can be wrapped out of the token"
        }
        if !attributes.sensitive {
            return "is not sensitive (CKA_SENSITIVE=false): its value can be read from the token"
        }
        if attributes.keyType != SecretKeyAttributes.aesKeyType { return "is not an AES key" }
        if let length = attributes.valueLength, length != 32 { return "is AES-\(length * 8), not AES-256" }
        if !attributes.canEncrypt || !attributes.canDecrypt {
            return "may not encrypt and decrypt (CKA_ENCRYPT, CKA_DECRYPT)"
        }
        return nil
    }

    /// A session on `token`, logged in with `pin` once. A wrong PIN is not tried again; the
    /// error carries what the token's flags say of its try counter (count low, final try, locked).
    static func loggedInSession(_ token: PKCS11Tokens.Token, pin: SecretBytes?, readWrite: Bool) throws -> PKCS11Session
    {
        let session = try token.module.openSession(token.slot, readWrite: readWrite)
        guard let pin else { return session }
        // A locked PIN is not tried at all (some tokens count a try against a locked PIN).
        if (try? token.module.tokenInfo(token.slot))?.pinLocked == true { throw PKCS11Error.pinLocked }
        do {
            try session.login(pin: pin)
        } catch PKCS11Error.pinIncorrect {
            guard let info = try? token.module.tokenInfo(token.slot) else {
                throw PKCS11Error.pinIncorrect(countLow: false, finalTry: false)
            }
            if info.pinLocked { throw PKCS11Error.pinLocked }
            throw PKCS11Error.pinIncorrect(countLow: info.pinCountLow, finalTry: info.pinFinalTry)
        }
        return session
    }

    /// Makes the token key: AES-256, generated on the token, a private, sensitive,
    /// non-extractable token object that may only encrypt and decrypt. Refuses a label that
    /// is taken (two keys with one label could not be told apart at start).
    public static func makeKey(token: PKCS11Tokens.Token, label: String, pin: SecretBytes?) throws {
        let session = try loggedInSession(token, pin: pin, readWrite: true)
        defer { if pin != nil { session.logout() } }
        guard try session.secretKeys(label: label).isEmpty else {
            throw ThresholdError.serverKeyUnsafe(
                "(\(label) on token \(token.info.label)) is a label already taken; a second key with it could not be told from the first. Choose another label"
            )
        }
        _ = try session.generateAESKey(label: label)
    }

    /// The wrapped form: `[1 | iv 12 | ciphertext | tag 16]`, `additionalData` bound in.
    public func wrap(_ secret: [UInt8], additionalData: [UInt8]) throws -> [UInt8] {
        let iv = try random.bytes(12, label: "cosigner.server-key.iv")
        return [Self.format] + iv
            + (try session.aesGCM(encrypt: true, key: key, iv: iv, input: secret, additionalData: additionalData))
    }

    /// The secret `wrap` wrapped, or nil when the wrapped bytes do not open with this token key
    /// and `additionalData` (another key, or altered bytes). The caller wipes the result.
    public func unwrap(_ wrapped: [UInt8], additionalData: [UInt8]) throws -> [UInt8]? {
        guard let parts = Self.parse(wrapped) else { return nil }
        do {
            return try session.aesGCM(
                encrypt: false, key: key, iv: parts.iv, input: parts.sealed, additionalData: additionalData)
        } catch PKCS11Error.failure(let function, let value)
            where function == "C_Decrypt" && [0x05, 0x40, 0x41].contains(value)
        {
            // A tag that does not verify: PKCS#11 3.0 says CKR_ENCRYPTED_DATA_INVALID (0x40) or
            // _LEN_RANGE (0x41); SoftHSM 2.6 answers CKR_GENERAL_ERROR (0x5). Either way the
            // bytes were not wrapped by this key (or were altered).
            return nil
        }
    }

    static let format: UInt8 = 1

    /// The IV and the ciphertext with its tag, or nil for bytes of another format or length.
    /// (These bytes come from the database, which is outside: no trap on any input; fuzzed
    /// in FuzzWireMessages.)
    public static func parse(_ wrapped: [UInt8]) -> (iv: [UInt8], sealed: [UInt8])? {
        guard wrapped.count >= 1 + 12 + 16, wrapped.count <= 1 + 12 + 1024 + 16, wrapped[0] == format else {
            return nil
        }
        return (Array(wrapped[1..<13]), Array(wrapped[13...]))
    }
}
