internal import COpenSSL
import TamgaCore

/// PIN-sealed bytes: PBKDF2-HMAC-SHA256 (210,000 iterations, 16-byte salt) derives an AES-256
/// key; AES-256-GCM seals with a 12-byte IV. Layout `[salt 16 | iv 12 | ciphertext | tag 16]`.
/// The derived key and every plaintext buffer are wiped after use.
enum SealedBox {
    static let iterations: Int32 = 210_000

    static func deriveKey(pin: SecretBytes, salt: [UInt8]) throws -> [UInt8] {
        var key = [UInt8](repeating: 0, count: 32)
        let ok = pin.withUnsafeBytes { raw in
            PKCS5_PBKDF2_HMAC(raw.bindMemory(to: CChar.self).baseAddress, Int32(raw.count), salt, Int32(salt.count), iterations, EVP_sha256(), 32, &key)
        }
        guard ok == 1 else { throw ThresholdError.keyStore("key derivation failed") }
        return key
    }

    static func seal(_ plaintext: [UInt8], pin: SecretBytes, random: RandomSource) throws -> [UInt8] {
        let salt = try random.bytes(16, label: "keystore.salt"), iv = try random.bytes(12, label: "keystore.iv")
        var key = try deriveKey(pin: pin, salt: salt)
        defer { wipe(&key) }
        guard let context = EVP_CIPHER_CTX_new() else { throw ThresholdError.keyStore("no cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var length: Int32 = 0, total = 0
        guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, iv) == 1,
              EVP_EncryptUpdate(context, &out, &length, plaintext, Int32(plaintext.count)) == 1 else { throw ThresholdError.keyStore("encryption failed") }
        total = Int(length)
        let finished = out.withUnsafeMutableBufferPointer { EVP_EncryptFinal_ex(context, $0.baseAddress! + total, &length) }
        guard finished == 1 else { throw ThresholdError.keyStore("encryption failed") }
        total += Int(length)
        var tag = [UInt8](repeating: 0, count: 16)
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1 else { throw ThresholdError.keyStore("no GCM tag") }
        return salt + iv + Array(out.prefix(total)) + tag
    }

    /// Nil when the PIN is wrong (the GCM tag does not verify); throws for a malformed blob.
    static func open(_ blob: [UInt8], pin: SecretBytes) throws -> [UInt8]? {
        guard blob.count >= 16 + 12 + 16 + 1 else { throw ThresholdError.keyStore("the sealed share is truncated") }
        let salt = Array(blob[0..<16]), iv = Array(blob[16..<28])
        let ciphertext = Array(blob[28..<(blob.count - 16)])
        var tag = Array(blob.suffix(16))
        var key = try deriveKey(pin: pin, salt: salt)
        defer { wipe(&key) }
        guard let context = EVP_CIPHER_CTX_new() else { throw ThresholdError.keyStore("no cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var length: Int32 = 0
        guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, iv) == 1,
              EVP_DecryptUpdate(context, &out, &length, ciphertext, Int32(ciphertext.count)) == 1,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1 else { throw ThresholdError.keyStore("decryption failed") }
        let total = Int(length)
        let finished = out.withUnsafeMutableBufferPointer { EVP_DecryptFinal_ex(context, $0.baseAddress! + total, &length) }
        ERR_clear_error()
        guard finished == 1 else { wipe(&out); return nil }
        let plaintext = Array(out.prefix(total + Int(length)))
        wipe(&out)
        return plaintext
    }
}
