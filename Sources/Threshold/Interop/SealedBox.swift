internal import COpenSSL
import TamgaCore

/// AES-256-GCM sealing (12-byte IV, 16-byte tag) under a 32-byte key: `[iv 12 | ciphertext |
/// tag 16]`, the additional data binding the sealed bytes to their place (the co-signer binds a
/// share to its key id; the device its share to account, role and key id). `deriveKey` is the
/// PBKDF2-HMAC-SHA256 (210,000 iterations) half of a PIN's key; the co-signer's OPRF is the
/// other half (`PINKeys`). Derived keys and plaintext buffers are wiped after use.
public enum SealedBox {
    static let iterations: Int32 = 210_000

    static func deriveKey(pin: SecretBytes, salt: [UInt8]) throws -> [UInt8] {
        var key = [UInt8](repeating: 0, count: 32)
        let ok = pin.withUnsafeBytes { raw in
            PKCS5_PBKDF2_HMAC(
                raw.bindMemory(to: CChar.self).baseAddress, Int32(raw.count), salt, Int32(salt.count), iterations,
                EVP_sha256(), 32, &key)
        }
        guard ok == 1 else { throw ThresholdError.keyStore("key derivation failed") }
        return key
    }

    /// Seals under a 32-byte key: `[iv 12 | ciphertext | tag 16]`.
    public static func seal(
        _ plaintext: [UInt8], key: [UInt8], additionalData: [UInt8], random: RandomSource
    ) throws -> [UInt8] {
        guard key.count == 32 else { throw ThresholdError.keyStore("an AES-256 key has 32 bytes") }
        let iv = try random.bytes(12, label: "keystore.iv")
        guard let context = EVP_CIPHER_CTX_new() else { throw ThresholdError.keyStore("no cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var length: Int32 = 0
        guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, iv) == 1 else {
            throw ThresholdError.keyStore("encryption failed")
        }
        if !additionalData.isEmpty {
            guard EVP_EncryptUpdate(context, nil, &length, additionalData, Int32(additionalData.count)) == 1 else {
                throw ThresholdError.keyStore("encryption failed")
            }
        }
        guard EVP_EncryptUpdate(context, &out, &length, plaintext, Int32(plaintext.count)) == 1 else {
            throw ThresholdError.keyStore("encryption failed")
        }
        var total = Int(length)
        let finished = out.withUnsafeMutableBufferPointer {
            EVP_EncryptFinal_ex(context, $0.baseAddress! + total, &length)
        }
        guard finished == 1 else { throw ThresholdError.keyStore("encryption failed") }
        total += Int(length)
        var tag = [UInt8](repeating: 0, count: 16)
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, &tag) == 1 else {
            throw ThresholdError.keyStore("no GCM tag")
        }
        return iv + Array(out.prefix(total)) + tag
    }

    /// Opens `[iv | ciphertext | tag]`; nil when the key or the additional data is wrong.
    public static func open(_ blob: [UInt8], key: [UInt8], additionalData: [UInt8]) throws -> [UInt8]? {
        guard key.count == 32 else { throw ThresholdError.keyStore("an AES-256 key has 32 bytes") }
        guard blob.count >= 12 + 16 else { throw ThresholdError.keyStore("the sealed data is truncated") }
        let iv = Array(blob[0..<12]), ciphertext = Array(blob[12..<(blob.count - 16)])
        var tag = Array(blob.suffix(16))
        guard let context = EVP_CIPHER_CTX_new() else { throw ThresholdError.keyStore("no cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var length: Int32 = 0
        guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, iv) == 1 else {
            throw ThresholdError.keyStore("decryption failed")
        }
        if !additionalData.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &length, additionalData, Int32(additionalData.count)) == 1 else {
                throw ThresholdError.keyStore("decryption failed")
            }
        }
        guard EVP_DecryptUpdate(context, &out, &length, ciphertext, Int32(ciphertext.count)) == 1,
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, &tag) == 1
        else { throw ThresholdError.keyStore("decryption failed") }
        let total = Int(length)
        let finished = out.withUnsafeMutableBufferPointer {
            EVP_DecryptFinal_ex(context, $0.baseAddress! + total, &length)
        }
        ERR_clear_error()
        guard finished == 1 else {
            wipe(&out)
            return nil
        }
        let plaintext = Array(out.prefix(total + Int(length)))
        wipe(&out)
        return plaintext
    }
}
