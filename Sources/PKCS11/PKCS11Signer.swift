import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// What a token needs a PIN for, so a prompt can say it.
public struct TokenPINRequest: Sendable {
    public let tokenLabel: String
    /// The key's own PIN-per-signature login (`CKA_ALWAYS_AUTHENTICATE`) rather than the token login.
    public let forEachSignature: Bool
    /// Token flags: failed tries were counted / one try is left.
    public let countLow: Bool
    public let finalTry: Bool
    public let signerName: String
}

/// Supplies token PINs; asked at most once per signature, never retried.
public protocol TokenPINProvider: Sendable {
    func pin(for request: TokenPINRequest) async throws -> SecretBytes
}

/// Signs with a private key on a PKCS#11 token: the hash is computed on the host and signed
/// raw on the token (`CKM_ECDSA`, `CKM_RSA_PKCS` over DigestInfo, `CKM_RSA_PKCS_PSS`), the set
/// every token has. The certificate (a public object) is read when the signer is made; the PIN
/// is asked at the first signature, and the session stays logged in for the next ones — except
/// for keys with `CKA_ALWAYS_AUTHENTICATE`, which take a PIN for every signature
/// (`C_SignInit`, `C_Login(CKU_CONTEXT_SPECIFIC)`, `C_Sign`). Logs out when released.
// unchecked: `loggedIn` is behind `state`; the session serialises itself
public final class PKCS11Signer: UnlockTimingSigner, @unchecked Sendable {
    public let token: PKCS11Tokens.Token
    public let keyID: [UInt8]
    public let algorithm: SignatureAlgorithm
    private let signingCertificate: Certificate
    private let session: PKCS11Session
    private let pinProvider: TokenPINProvider
    public let unlockClock = UnlockClock()
    private let state = Lock()
    nonisolated(unsafe) private var loggedIn = false  // guarded by `state`
    /// The private key's handle and whether it wants a PIN per signature, found after the first
    /// login: handles stay valid for the session's lifetime, which the signer owns.
    nonisolated(unsafe) private var key: (handle: UInt, alwaysAuthenticate: Bool)?  // guarded by `state`

    /// - Parameters:
    ///   - keyID: the `CKA_ID` of the key (and its certificate); nil when the token holds one certificate.
    ///   - pss: RSA keys sign with RSA-PSS (SHA-256, MGF1-SHA-256, 32-byte salt) instead of PKCS#1 v1.5.
    public init(
        token: PKCS11Tokens.Token, keyID: [UInt8]? = nil, pinProvider: TokenPINProvider, pss: Bool = false
    ) throws {
        self.token = token
        self.pinProvider = pinProvider
        session = try token.module.openSession(token.slot)
        let certificates = try session.objects().certificates
        let chosen: TokenObjects.CertificateObject
        if let keyID {
            guard let match = certificates.first(where: { $0.id == keyID }) else {
                throw PKCS11Error.certificateNotFound(token: token.info.label, id: Hex.encode(keyID))
            }
            chosen = match
        } else {
            // Several certificates: the signing one (nonRepudiation) if exactly one is.
            let signing = certificates.filter { $0.certificate.keyUsage?.contains(.nonRepudiation) ?? false }
            if certificates.count == 1 {
                chosen = certificates[0]
            } else if signing.count == 1 {
                chosen = signing[0]
            } else if certificates.isEmpty {
                throw PKCS11Error.keyNotFound(token: token.info.label, id: nil)
            } else {
                throw PKCS11Error.severalKeys(token: token.info.label, ids: certificates.map(\.idHex).sorted())
            }
        }
        self.keyID = chosen.id
        signingCertificate = chosen.certificate
        switch chosen.certificate.publicKey.type {
        case .ec(let curve): algorithm = .ecdsa(curve, curve.defaultDigest)
        case .rsa: algorithm = pss ? .rsaPSSSHA256 : .rsaPKCS1SHA256
        case .unsupported(let name): throw PKCS11Error.unsupportedKey(name)
        }
    }

    deinit {
        if state.withLock({ loggedIn }) { session.logout() }
    }

    public func certificate() async throws -> Certificate { signingCertificate }

    private func request(forEachSignature: Bool) throws -> TokenPINRequest {
        let info = try token.module.tokenInfo(token.slot)
        if info.pinLocked { throw PKCS11Error.pinLocked }
        return TokenPINRequest(
            tokenLabel: token.info.label, forEachSignature: forEachSignature, countLow: info.pinCountLow,
            finalTry: info.pinFinalTry, signerName: signingCertificate.commonName ?? signingCertificate.subject)
    }

    /// A wrong PIN, with what the token now says about its counter.
    private func rethrowWithFlags(_ error: Error) -> Error {
        guard case PKCS11Error.pinIncorrect = error, let info = try? token.module.tokenInfo(token.slot) else {
            return error
        }
        if info.pinLocked { return PKCS11Error.pinLocked }
        return PKCS11Error.pinIncorrect(countLow: info.pinCountLow, finalTry: info.pinFinalTry)
    }

    public func sign(digest: Digest) async throws -> Data {
        guard digest.algorithm == algorithm.digest else {
            throw CoreError.digestAlgorithmMismatch(expected: algorithm.digest, actual: digest.algorithm)
        }
        do {
            return try await signOnToken(digest)
        } catch PKCS11Error.failure(let function, let value) {
            // Modules answer a vanished token with all sorts of codes (SoftHSM: CKR_GENERAL_ERROR):
            // if the token is no longer listed, say that.
            let present = PKCS11Tokens.tokens(in: [token.module]).contains {
                $0.info.serialNumber == token.info.serialNumber && $0.info.label == token.info.label
            }
            throw present ? PKCS11Error.failure(function: function, returnValue: value) : PKCS11Error.tokenRemoved
        }
    }

    private func signOnToken(_ digest: Digest) async throws -> Data {
        let protectedPath = token.info.hasProtectedAuthenticationPath
        var pin: SecretBytes? = nil
        if !state.withLock({ loggedIn }) {
            pin = try await unlockClock.measure {
                let pin = protectedPath ? nil : try await pinProvider.pin(for: request(forEachSignature: false))
                do {
                    try session.login(pin: pin)
                } catch {
                    throw rethrowWithFlags(error)
                }
                return pin
            }
            state.withLock { loggedIn = true }
        }
        let found: (handle: UInt, alwaysAuthenticate: Bool)
        if let cached = state.withLock({ self.key }) {
            found = cached
        } else {
            // CKA_CLASS = CKO_PRIVATE_KEY, CKA_ID
            let keyHandles = try session.findObjects([(0x000, PKCS11Session.ulongBytes(3)), (0x102, keyID)])
            guard let handle = keyHandles.first else {
                throw PKCS11Error.keyNotFound(token: token.info.label, id: Hex.encode(keyID))
            }
            found = (UInt(handle), try session.boolAttribute(0x202, of: handle))  // CKA_ALWAYS_AUTHENTICATE
            state.withLock { self.key = found }
        }
        let key = found.handle, alwaysAuthenticate = found.alwaysAuthenticate
        var contextPIN: SecretBytes? = nil
        if alwaysAuthenticate && !protectedPath {
            // The PIN just given for the token login is the one this key wants (the eID PIN2 slot);
            // otherwise ask: one PIN per signature.
            if let pin {
                contextPIN = pin
            } else {
                contextPIN = try await unlockClock.measure {
                    try await pinProvider.pin(for: request(forEachSignature: true))
                }
            }
        }
        let (mechanism, input, pss) = try signingInput(digest)
        let raw: [UInt8]
        do {
            raw = try session.sign(
                input, key: .init(key), mechanism: mechanism, pss: pss,
                reauthenticate: alwaysAuthenticate
                    ? { [session] in try session.login(pin: contextPIN, contextSpecific: true) } : nil)
        } catch {
            state.withLock { self.key = nil }  // look the key up again next time
            throw rethrowWithFlags(error)
        }
        if let curve = algorithm.curve {
            guard raw.count == 2 * curve.fieldSize else {
                throw PKCS11Error.unsupportedKey("the token returned \(raw.count) bytes for ECDSA \(curve.rawValue)")
            }
        }
        return Data(raw)
    }

    /// What the token says of the signing key's protection (`tamga compare`'s report): read from
    /// the key found at the last signature (nil before one, or when the token will not say).
    public struct KeyProtection: Sendable, Equatable {
        /// CKA_SENSITIVE: the key's value is never revealed in plaintext.
        public let sensitive: Bool
        /// CKA_EXTRACTABLE: the key may be wrapped out of the token.
        public let extractable: Bool
        /// CKA_NEVER_EXTRACTABLE: it never could be (made on the token, not imported).
        public let neverExtractable: Bool
        /// CKA_ALWAYS_AUTHENTICATE: a PIN for every signature.
        public let pinForEverySignature: Bool
        /// CKF_PROTECTED_AUTHENTICATION_PATH: the PIN is typed on the token's own pad.
        public let pinPad: Bool
        /// The token's PIN counter flags now: count low, final try, locked.
        public let pinFlags: [String]
    }

    public func keyProtection() -> KeyProtection? {
        guard let key = state.withLock({ self.key }) else { return nil }
        let handle = key.handle
        guard let sensitive = try? session.boolAttribute(0x103, of: handle),  // CKA_SENSITIVE
            let extractable = try? session.boolAttribute(0x162, of: handle),  // CKA_EXTRACTABLE
            let never = try? session.boolAttribute(0x164, of: handle)
        else { return nil }  // CKA_NEVER_EXTRACTABLE
        let info = try? token.module.tokenInfo(token.slot)
        let flags = [(info?.pinCountLow, "count low"), (info?.pinFinalTry, "final try"), (info?.pinLocked, "locked")]
            .compactMap { $0.0 == true ? $0.1 : nil }
        return KeyProtection(
            sensitive: sensitive, extractable: extractable, neverExtractable: never,
            pinForEverySignature: key.alwaysAuthenticate,
            pinPad: token.info.hasProtectedAuthenticationPath, pinFlags: flags)
    }

    /// The mechanism and the bytes the token signs.
    private func signingInput(
        _ digest: Digest
    ) throws -> (Mechanism, [UInt8], (hash: UInt, mgf: UInt, saltLength: Int)?) {
        if algorithm.isECDSA { return (.ecdsa, Array(digest.bytes), nil) }
        if algorithm.isRSAPSS {
            // CKM_SHA256 and CKG_MGF1_SHA256, salt as long as the hash.
            return (.rsaPKCSPSS, Array(digest.bytes), (hash: 0x250, mgf: 0x2, saltLength: digest.bytes.count))
        }
        // PKCS#1 v1.5 over the DigestInfo; SHA-1 and SHA-224 are never signed with.
        guard !digest.algorithm.isWeak else {
            throw PKCS11Error.mechanismNotSupported("RSA PKCS#1 with \(digest.algorithm)")
        }
        return (.rsaPKCS, digest.algorithm.digestInfoPrefix + Array(digest.bytes), nil)
    }
}
