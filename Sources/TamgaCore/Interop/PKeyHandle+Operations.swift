internal import COpenSSL
import FoundationEssentials
import Glibc

extension PKeyHandle {
    enum Padding { case none, pkcs1, pss }

    var keyType: PublicKey.KeyType {
        switch EVP_PKEY_get_base_id(pointer) {
        case EVP_PKEY_EC:
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1 else {
                return .unsupported("EC (unknown curve)")
            }
            switch string(fromNULTerminated: name) {
            case "prime256v1", "P-256", "secp256r1": return .ec(.p256)
            case "secp384r1", "P-384": return .ec(.p384)
            case "secp521r1", "P-521": return .ec(.p521)
            case let other: return .unsupported("EC \(other)")
            }
        case EVP_PKEY_RSA, EVP_PKEY_RSA_PSS:
            return .rsa(bits: Int(EVP_PKEY_get_bits(pointer)))
        case let id:
            return .unsupported(String(cString: OBJ_nid2sn(id)))
        }
    }

    private func configure(_ context: OpaquePointer, digest: Digest, padding: Padding) -> Bool {
        let md = digest.algorithm.evpMD
        switch padding {
        case .none:
            return cossl_pkey_ctx_set_signature_md(context, md) > 0
        case .pkcs1:
            return cossl_pkey_ctx_set_rsa_padding(context, RSA_PKCS1_PADDING) > 0
                && cossl_pkey_ctx_set_signature_md(context, md) > 0
        case .pss:
            // Salt as long as the hash, MGF1 with the same hash: RFC 6931 §2.3.10 and ETSI TS 119 312.
            return cossl_pkey_ctx_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING) > 0
                && cossl_pkey_ctx_set_signature_md(context, md) > 0
                && cossl_pkey_ctx_set_rsa_mgf1_md(context, md) > 0
                && cossl_pkey_ctx_set_rsa_pss_saltlen(context, Int32(digest.algorithm.length)) > 0
        }
    }

    /// Verifies a DER (ECDSA) or block (RSA) signature over a precomputed digest.
    func verify(signature: Data, digest: Digest, padding: Padding) -> Bool {
        guard let context = EVP_PKEY_CTX_new(pointer, nil) else { return false }
        defer {
            EVP_PKEY_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_PKEY_verify_init(context) == 1, configure(context, digest: digest, padding: padding) else {
            return false
        }
        let result = signature.withUnsafeBytes { sig in
            digest.bytes.withUnsafeBytes { tbs in
                EVP_PKEY_verify(
                    context, sig.bindMemory(to: UInt8.self).baseAddress, sig.count,
                    tbs.bindMemory(to: UInt8.self).baseAddress, tbs.count)
            }
        }
        return result == 1
    }

    /// Signs a precomputed digest; DER for ECDSA, the signature block for RSA.
    func sign(digest: Digest, padding: Padding) throws -> Data {
        guard let context = EVP_PKEY_CTX_new(pointer, nil) else {
            throw CoreError.cryptoFailure(operation: "EVP_PKEY_CTX_new", reason: openSSLErrorText())
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_sign_init(context) == 1, configure(context, digest: digest, padding: padding) else {
            throw CoreError.cryptoFailure(operation: "sign init", reason: openSSLErrorText())
        }
        return try digest.bytes.withUnsafeBytes { tbs in
            let tbsPointer = tbs.bindMemory(to: UInt8.self).baseAddress
            var length = 0
            guard EVP_PKEY_sign(context, nil, &length, tbsPointer, tbs.count) == 1 else {
                throw CoreError.cryptoFailure(operation: "EVP_PKEY_sign", reason: openSSLErrorText())
            }
            var out = [UInt8](repeating: 0, count: length)
            guard EVP_PKEY_sign(context, &out, &length, tbsPointer, tbs.count) == 1 else {
                throw CoreError.cryptoFailure(operation: "EVP_PKEY_sign", reason: openSSLErrorText())
            }
            return Data(out.prefix(length))
        }
    }

    /// Signs the bytes as given, with no digest bound: ECDSA over the value (truncated to the
    /// order's length, FIPS 186-5 §6.4), or an RSA PKCS#1 v1.5 type-1 block around a DigestInfo
    /// the caller built. This is what a card's PSO:CDS does; DER for ECDSA.
    func signValue(_ value: Data) throws -> Data {
        guard let context = EVP_PKEY_CTX_new(pointer, nil) else {
            throw CoreError.cryptoFailure(operation: "EVP_PKEY_CTX_new", reason: openSSLErrorText())
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_sign_init(context) == 1 else {
            throw CoreError.cryptoFailure(operation: "sign init", reason: openSSLErrorText())
        }
        if case .rsa = keyType, cossl_pkey_ctx_set_rsa_padding(context, RSA_PKCS1_PADDING) <= 0 {
            throw CoreError.cryptoFailure(operation: "RSA padding", reason: openSSLErrorText())
        }
        return try value.withUnsafeBytes { tbs in
            let tbsPointer = tbs.bindMemory(to: UInt8.self).baseAddress
            var length = 0
            guard EVP_PKEY_sign(context, nil, &length, tbsPointer, tbs.count) == 1 else {
                throw CoreError.cryptoFailure(operation: "EVP_PKEY_sign", reason: openSSLErrorText())
            }
            var out = [UInt8](repeating: 0, count: length)
            guard EVP_PKEY_sign(context, &out, &length, tbsPointer, tbs.count) == 1 else {
                throw CoreError.cryptoFailure(operation: "EVP_PKEY_sign", reason: openSSLErrorText())
            }
            return Data(out.prefix(length))
        }
    }

    /// True when this private key's public half equals `other`.
    func matches(_ other: PKeyHandle) -> Bool { EVP_PKEY_eq(pointer, other.pointer) == 1 }

    /// Loads a private key from PEM (PKCS#8, encrypted PKCS#8, traditional) or DER PKCS#8.
    static func loadPrivateKey(_ bytes: Data, password: SecretBytes?) throws -> PKeyHandle {
        // The callback hands OpenSSL the password once; a missing password is reported, not prompted.
        let box = PasswordBox(password)
        let callback: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = {
            buffer, size, _, user in
            guard let user, let buffer else { return -1 }
            let box = Unmanaged<PasswordBox>.fromOpaque(user).takeUnretainedValue()
            box.asked = true
            guard let secret = box.secret, secret.count <= Int(size) else { return -1 }
            secret.withUnsafeBytes { raw in
                if let base = raw.baseAddress { memcpy(buffer, base, raw.count) }
            }
            return Int32(secret.count)
        }
        let key: OpaquePointer? = withReadBIO(bytes) { bio in
            withExtendedLifetime(box) {
                PEM_read_bio_PrivateKey(bio, nil, callback, Unmanaged.passUnretained(box).toOpaque())
            }
        }
        if let key {
            ERR_clear_error()
            return PKeyHandle(taking: key)
        }
        let reason = openSSLErrorText()
        if box.asked {
            throw password == nil ? CoreError.passwordRequired : CoreError.wrongPassword
        }
        // Not PEM: try DER PKCS#8 (unencrypted).
        let der: OpaquePointer? = bytes.withUnsafeBytes { raw in
            var cursor: UnsafePointer<UInt8>? = raw.bindMemory(to: UInt8.self).baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, raw.count)
        }
        if let der {
            ERR_clear_error()
            return PKeyHandle(taking: der)
        }
        ERR_clear_error()
        throw CoreError.malformedKey(reason)
    }

    static func isPKCS12(_ bytes: Data) -> Bool {
        let p12: OpaquePointer? = bytes.withUnsafeBytes { raw in
            var cursor: UnsafePointer<UInt8>? = raw.bindMemory(to: UInt8.self).baseAddress
            return d2i_PKCS12(nil, &cursor, raw.count)
        }
        ERR_clear_error()
        guard let p12 else { return false }
        PKCS12_free(p12)
        return true
    }

    /// Loads the key, its certificate and any chain from a PKCS#12 file.
    static func loadPKCS12(
        _ bytes: Data, password: SecretBytes?
    ) throws -> (key: PKeyHandle, certificate: X509Handle, chain: [X509Handle]) {
        let p12: OpaquePointer? = bytes.withUnsafeBytes { raw in
            var cursor: UnsafePointer<UInt8>? = raw.bindMemory(to: UInt8.self).baseAddress
            return d2i_PKCS12(nil, &cursor, raw.count)
        }
        guard let p12 else {
            throw CoreError.malformedKey("not a PKCS#12 file: \(openSSLErrorText())")
        }
        defer { PKCS12_free(p12) }
        // PKCS12_parse wants a C string; copy the secret into a wiped buffer.
        var passwordBuffer = [CChar](repeating: 0, count: (password?.count ?? 0) + 1)
        defer { passwordBuffer.withUnsafeMutableBytes { wipeRaw($0) } }
        password?.withUnsafeBytes { raw in
            for (i, b) in raw.enumerated() { passwordBuffer[i] = CChar(bitPattern: b) }
        }
        if PKCS12_verify_mac(p12, passwordBuffer, -1) != 1 {
            ERR_clear_error()
            throw password == nil || password!.isEmpty ? CoreError.passwordRequired : CoreError.wrongPassword
        }
        var key: OpaquePointer? = nil
        var cert: OpaquePointer? = nil
        var ca: OpaquePointer? = nil
        guard PKCS12_parse(p12, passwordBuffer, &key, &cert, &ca) == 1, let key else {
            throw CoreError.malformedKey("PKCS#12: \(openSSLErrorText())")
        }
        let keyHandle = PKeyHandle(taking: key)
        guard let cert else { throw CoreError.malformedKey("the PKCS#12 file holds no certificate") }
        var chain: [X509Handle] = []
        if let ca {
            for i in 0..<cossl_x509_stack_count(ca) {
                if let x = cossl_x509_stack_value(ca, i), X509_up_ref(x) == 1 { chain.append(X509Handle(taking: x)) }
            }
            cossl_x509_stack_pop_free(ca)
        }
        return (keyHandle, X509Handle(taking: cert), chain)
    }
}

/// Carries the password into OpenSSL's PEM callback and records whether one was asked for.
private final class PasswordBox {
    let secret: SecretBytes?
    var asked = false
    init(_ secret: SecretBytes?) { self.secret = secret }
}
