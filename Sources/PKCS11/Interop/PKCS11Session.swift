internal import CP11Kit
import FoundationEssentials
import Glibc
import TamgaCore

/// One PKCS#11 session: object search, attributes, login, signing. Closed in `deinit`. Calls
/// hold the module's lock. Login state belongs to the token (every session of this process
/// shares it), so `CKR_USER_ALREADY_LOGGED_IN` counts as success.
public final class PKCS11Session: @unchecked Sendable {  // unchecked: every call holds the module's lock
    let module: PKCS11Module
    let handle: CK_SESSION_HANDLE
    public let slot: Slot

    init(module: PKCS11Module, handle: UInt, slot: Slot) {
        self.module = module
        self.handle = CK_SESSION_HANDLE(handle)
        self.slot = slot
    }

    deinit {
        let functions = module.functions, handle = handle
        module.serialised { _ = functions.C_CloseSession!(handle) }
    }

    private var functions: CK_FUNCTION_LIST { module.functions }

    // MARK: Objects

    /// Handles of objects whose attributes equal the given ones (class, ID, …).
    func findObjects(_ match: [(CK_ATTRIBUTE_TYPE, [UInt8])]) throws -> [CK_OBJECT_HANDLE] {
        try module.serialised {
            var buffers = match.map(\.1)
            var found: [CK_OBJECT_HANDLE] = []
            try withTemplate(types: match.map(\.0), values: &buffers) { template, count in
                try PKCS11Module.check(functions.C_FindObjectsInit!(handle, template, count), "C_FindObjectsInit")
            }
            defer { _ = functions.C_FindObjectsFinal!(handle) }
            var batch = [CK_OBJECT_HANDLE](repeating: 0, count: 32)
            while true {
                var count: CK_ULONG = 0
                try PKCS11Module.check(
                    functions.C_FindObjects!(handle, &batch, CK_ULONG(batch.count), &count), "C_FindObjects")
                if count == 0 { break }
                found += batch.prefix(Int(count))
                if found.count > 10_000 { break }  // a bound against a misbehaving module
            }
            return found
        }
    }

    /// One attribute's bytes; nil when the object does not have it or it is sensitive.
    func attribute(_ type: CK_ATTRIBUTE_TYPE, of object: CK_OBJECT_HANDLE) throws -> [UInt8]? {
        try module.serialised {
            var query = CK_ATTRIBUTE(type: type, pValue: nil, ulValueLen: 0)
            let sizing = functions.C_GetAttributeValue!(handle, object, &query, 1)
            if sizing == CKR_ATTRIBUTE_SENSITIVE || sizing == CKR_ATTRIBUTE_TYPE_INVALID
                || query.ulValueLen == CP11_UNAVAILABLE_INFORMATION
            {
                return nil
            }
            try PKCS11Module.check(sizing, "C_GetAttributeValue")
            guard query.ulValueLen <= 1 << 20 else { return nil }
            var value = [UInt8](repeating: 0, count: Int(query.ulValueLen))
            let result = value.withUnsafeMutableBytes { raw -> CK_RV in
                var attribute = CK_ATTRIBUTE(type: type, pValue: raw.baseAddress, ulValueLen: CK_ULONG(raw.count))
                let rv = functions.C_GetAttributeValue!(handle, object, &attribute, 1)
                query.ulValueLen = attribute.ulValueLen
                return rv
            }
            try PKCS11Module.check(result, "C_GetAttributeValue")
            return Array(value.prefix(Int(query.ulValueLen)))
        }
    }

    func boolAttribute(_ type: CK_ATTRIBUTE_TYPE, of object: CK_OBJECT_HANDLE) throws -> Bool {
        (try attribute(type, of: object)?.first ?? 0) != 0
    }

    static func ulongBytes(_ value: UInt) -> [UInt8] { withUnsafeBytes(of: CK_ULONG(value)) { Array($0) } }
    static func ulong(_ bytes: [UInt8]?) -> UInt? {
        guard let bytes, bytes.count == MemoryLayout<CK_ULONG>.size else { return nil }
        return UInt(bytes.withUnsafeBytes { $0.loadUnaligned(as: CK_ULONG.self) })
    }

    /// Certificates (`CKO_CERTIFICATE`, X.509) and private keys on the token, paired by `CKA_ID`.
    /// Private keys are only visible after login on most tokens.
    public func objects() throws -> TokenObjects {
        let certificateHandles = try findObjects([
            (CK_ATTRIBUTE_TYPE(CKA_CLASS), Self.ulongBytes(UInt(CKO_CERTIFICATE)))
        ])
        var certificates: [TokenObjects.CertificateObject] = []
        for object in certificateHandles {
            guard let value = try attribute(CK_ATTRIBUTE_TYPE(CKA_VALUE), of: object),
                let certificate = try? Certificate(der: Data(value))
            else { continue }
            certificates.append(
                .init(
                    id: try attribute(CK_ATTRIBUTE_TYPE(CKA_ID), of: object) ?? [],
                    label: String(
                        decoding: try attribute(CK_ATTRIBUTE_TYPE(CKA_LABEL), of: object) ?? [], as: UTF8.self),
                    certificate: certificate))
        }
        let keyHandles = try findObjects([(CK_ATTRIBUTE_TYPE(CKA_CLASS), Self.ulongBytes(UInt(CKO_PRIVATE_KEY)))])
        var keys: [TokenObjects.KeyObject] = []
        for object in keyHandles {
            let type = Self.ulong(try attribute(CK_ATTRIBUTE_TYPE(CKA_KEY_TYPE), of: object))
            keys.append(
                .init(
                    id: try attribute(CK_ATTRIBUTE_TYPE(CKA_ID), of: object) ?? [],
                    label: String(
                        decoding: try attribute(CK_ATTRIBUTE_TYPE(CKA_LABEL), of: object) ?? [], as: UTF8.self),
                    keyType: type.map(TokenObjects.KeyObject.describe) ?? "unknown",
                    canSign: try boolAttribute(CK_ATTRIBUTE_TYPE(CKA_SIGN), of: object),
                    alwaysAuthenticate: try boolAttribute(CK_ATTRIBUTE_TYPE(CKA_ALWAYS_AUTHENTICATE), of: object),
                    handle: UInt(object)))
        }
        return TokenObjects(certificates: certificates, keys: keys)
    }

    // MARK: Login and signing

    /// `C_Login` as the user (`contextSpecific`: the PIN-per-signature re-login after
    /// `C_SignInit`). A nil PIN means the reader's PIN pad (protected authentication path).
    /// The PIN buffer is wiped after the call. Never retried.
    public func login(pin: SecretBytes?, contextSpecific: Bool = false) throws {
        let userType = CK_USER_TYPE(contextSpecific ? CKU_CONTEXT_SPECIFIC : CKU_USER)
        try module.serialised {
            var bytes: [UInt8] = pin.map { $0.withUnsafeBytes { Array($0) } } ?? []
            defer { bytes.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
            let rv: CK_RV =
                pin == nil
                ? functions.C_Login!(handle, userType, nil, 0)
                : bytes.withUnsafeMutableBufferPointer {
                    functions.C_Login!(handle, userType, $0.baseAddress, CK_ULONG($0.count))
                }
            if rv == CKR_USER_ALREADY_LOGGED_IN && !contextSpecific { return }
            try PKCS11Module.check(rv, "C_Login")
        }
    }

    public func logout() {
        module.serialised { _ = functions.C_Logout!(handle) }
    }

    /// One raw `C_SignInit` + `C_Sign` with `key` (no PIN handling): for benchmarks and tools
    /// that manage the login themselves.
    public func signRaw(_ data: [UInt8], key: TokenObjects.KeyObject, mechanism: Mechanism) throws -> [UInt8] {
        try sign(data, key: CK_OBJECT_HANDLE(key.handle), mechanism: mechanism)
    }

    /// `C_SignInit` with `mechanism` (and PSS parameters), then `reauthenticate` when the key
    /// needs a context-specific login, then `C_Sign` (length query first).
    func sign(
        _ data: [UInt8], key: CK_OBJECT_HANDLE, mechanism: Mechanism,
        pss: (hash: UInt, mgf: UInt, saltLength: Int)? = nil,
        reauthenticate: (() throws -> Void)? = nil
    ) throws -> [UInt8] {
        try module.serialised {
            var parameters = CK_RSA_PKCS_PSS_PARAMS(
                hashAlg: CK_MECHANISM_TYPE(pss?.hash ?? 0), mgf: CK_RSA_PKCS_MGF_TYPE(pss?.mgf ?? 0),
                sLen: CK_ULONG(pss?.saltLength ?? 0))
            let rv = withUnsafeMutableBytes(of: &parameters) { raw -> CK_RV in
                var ckMechanism = CK_MECHANISM(
                    mechanism: CK_MECHANISM_TYPE(mechanism.rawValue),
                    pParameter: pss == nil ? nil : raw.baseAddress,
                    ulParameterLen: pss == nil ? 0 : CK_ULONG(raw.count))
                return functions.C_SignInit!(handle, &ckMechanism, key)
            }
            try PKCS11Module.check(rv, "C_SignInit")
        }
        if let reauthenticate { try reauthenticate() }
        return try module.serialised {
            var input = data
            var length: CK_ULONG = 0
            try PKCS11Module.check(functions.C_Sign!(handle, &input, CK_ULONG(input.count), nil, &length), "C_Sign")
            var signature = [UInt8](repeating: 0, count: Int(length))
            try PKCS11Module.check(
                functions.C_Sign!(handle, &input, CK_ULONG(input.count), &signature, &length), "C_Sign")
            return Array(signature.prefix(Int(length)))
        }
    }
}

// MARK: AES-GCM with a secret key kept on the token (wrapping small secrets at rest)

extension PKCS11Session {
    /// The handle of the token's secret key labelled `label`, if there is one.
    public func secretKey(label: String) throws -> UInt? {
        try findObjects([
            (CK_ATTRIBUTE_TYPE(CKA_CLASS), Self.ulongBytes(UInt(CKO_SECRET_KEY))),
            (CK_ATTRIBUTE_TYPE(CKA_LABEL), Array(label.utf8)),
        ]).first.map(UInt.init)
    }

    /// Generates a 256-bit AES key on the token: a private, sensitive, non-extractable token
    /// object usable only to encrypt and decrypt. Needs a read-write session, logged in.
    public func generateAESKey(label: String) throws -> UInt {
        try module.serialised {
            let yes: [UInt8] = [1], no: [UInt8] = [0]
            var values: [[UInt8]] = [
                Self.ulongBytes(UInt(CKO_SECRET_KEY)), Self.ulongBytes(UInt(CKK_AES)), Self.ulongBytes(32),
                yes, yes, yes, no, yes, yes, Array(label.utf8),
            ]
            let types: [CK_ATTRIBUTE_TYPE] = [
                CK_ATTRIBUTE_TYPE(CKA_CLASS), CK_ATTRIBUTE_TYPE(CKA_KEY_TYPE), CK_ATTRIBUTE_TYPE(CKA_VALUE_LEN),
                CK_ATTRIBUTE_TYPE(CKA_TOKEN), CK_ATTRIBUTE_TYPE(CKA_PRIVATE), CK_ATTRIBUTE_TYPE(CKA_SENSITIVE),
                CK_ATTRIBUTE_TYPE(CKA_EXTRACTABLE), CK_ATTRIBUTE_TYPE(CKA_ENCRYPT), CK_ATTRIBUTE_TYPE(CKA_DECRYPT),
                CK_ATTRIBUTE_TYPE(CKA_LABEL),
            ]
            var key: CK_OBJECT_HANDLE = 0
            try withTemplate(types: types, values: &values) { template, count in
                var mechanism = CK_MECHANISM(
                    mechanism: CK_MECHANISM_TYPE(CKM_AES_KEY_GEN), pParameter: nil, ulParameterLen: 0)
                try PKCS11Module.check(
                    functions.C_GenerateKey!(handle, &mechanism, template, count, &key), "C_GenerateKey")
            }
            return UInt(key)
        }
    }

    /// AES-GCM (96-bit IV, 128-bit tag) with the token key `key`: encrypt or decrypt `input`,
    /// authenticating `additionalData` too. The working copies of the input and of the output
    /// are wiped here (one of them is plaintext); the returned array is the caller's to wipe.
    public func aesGCM(
        encrypt: Bool, key: UInt, iv: [UInt8], input: [UInt8], additionalData: [UInt8] = []
    ) throws -> [UInt8] {
        try module.serialised {
            var ivBytes = iv, aad = additionalData
            return try ivBytes.withUnsafeMutableBufferPointer { ivPointer in
                try aad.withUnsafeMutableBufferPointer { aadPointer in
                    var parameters = CK_GCM_PARAMS(
                        pIv: ivPointer.baseAddress, ulIvLen: CK_ULONG(ivPointer.count),
                        ulIvBits: CK_ULONG(ivPointer.count * 8),
                        pAAD: aadPointer.count == 0 ? nil : aadPointer.baseAddress,
                        ulAADLen: CK_ULONG(aadPointer.count),
                        ulTagBits: 128)
                    try withUnsafeMutableBytes(of: &parameters) { raw in
                        var mechanism = CK_MECHANISM(
                            mechanism: CK_MECHANISM_TYPE(CKM_AES_GCM), pParameter: raw.baseAddress,
                            ulParameterLen: CK_ULONG(raw.count))
                        let rv =
                            encrypt
                            ? functions.C_EncryptInit!(handle, &mechanism, CK_OBJECT_HANDLE(key))
                            : functions.C_DecryptInit!(handle, &mechanism, CK_OBJECT_HANDLE(key))
                        try PKCS11Module.check(rv, encrypt ? "C_EncryptInit" : "C_DecryptInit")
                    }
                    var data = input
                    var length: CK_ULONG = CK_ULONG(input.count + 16)
                    var output = [UInt8](repeating: 0, count: Int(length))
                    defer {
                        wipe(&data)
                        wipe(&output)
                    }
                    let rv =
                        encrypt
                        ? functions.C_Encrypt!(handle, &data, CK_ULONG(data.count), &output, &length)
                        : functions.C_Decrypt!(handle, &data, CK_ULONG(data.count), &output, &length)
                    try PKCS11Module.check(rv, encrypt ? "C_Encrypt" : "C_Decrypt")
                    return Array(output.prefix(Int(min(length, CK_ULONG(output.count)))))
                }
            }
        }
    }

    /// Every secret key labelled `label` (a label is not unique on a token: callers that want
    /// one key must refuse several).
    public func secretKeys(label: String) throws -> [UInt] {
        try findObjects([
            (CK_ATTRIBUTE_TYPE(CKA_CLASS), Self.ulongBytes(UInt(CKO_SECRET_KEY))),
            (CK_ATTRIBUTE_TYPE(CKA_LABEL), Array(label.utf8)),
        ]).map(UInt.init)
    }

    /// What a secret key may do and whether its value can leave the token.
    public func secretKeyAttributes(_ key: UInt) throws -> SecretKeyAttributes {
        let object = CK_OBJECT_HANDLE(key)
        return SecretKeyAttributes(
            keyType: Self.ulong(try attribute(CK_ATTRIBUTE_TYPE(CKA_KEY_TYPE), of: object)),
            valueLength: Self.ulong(try attribute(CK_ATTRIBUTE_TYPE(CKA_VALUE_LEN), of: object)),
            sensitive: try boolAttribute(CK_ATTRIBUTE_TYPE(CKA_SENSITIVE), of: object),
            extractable: try boolAttribute(CK_ATTRIBUTE_TYPE(CKA_EXTRACTABLE), of: object),
            canEncrypt: try boolAttribute(CK_ATTRIBUTE_TYPE(CKA_ENCRYPT), of: object),
            canDecrypt: try boolAttribute(CK_ATTRIBUTE_TYPE(CKA_DECRYPT), of: object),
            isPrivate: try boolAttribute(CK_ATTRIBUTE_TYPE(CKA_PRIVATE), of: object))
    }
}

/// Builds a `CK_ATTRIBUTE` array over `values` (kept alive for the call).
private func withTemplate<T>(
    types: [CK_ATTRIBUTE_TYPE], values: inout [[UInt8]],
    _ body: (UnsafeMutablePointer<CK_ATTRIBUTE>?, CK_ULONG) throws -> T
) throws -> T {
    var pointers: [UnsafeMutableRawPointer?] = []
    for index in values.indices {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(values[index].count, 1), alignment: 8)
        values[index].withUnsafeBytes {
            if let base = $0.baseAddress { buffer.copyMemory(from: base, byteCount: $0.count) }
        }
        pointers.append(buffer)
    }
    defer { pointers.forEach { $0?.deallocate() } }
    var template = zip(types, zip(pointers, values)).map { type, pair in
        CK_ATTRIBUTE(type: type, pValue: pair.0, ulValueLen: CK_ULONG(pair.1.count))
    }
    return try template.withUnsafeMutableBufferPointer { try body($0.baseAddress, CK_ULONG($0.count)) }
}
