import FoundationEssentials
import Glibc

/// Signs with a private key held in a file: PEM or DER PKCS#8 (optionally encrypted), a
/// traditional PEM key, or PKCS#12. The reference signer for tests and for people without
/// hardware. The key lives in process memory, so use a card, a token or the threshold key for
/// anything that matters.
public struct SoftwareSigner: Signer {
    private let key: PKeyHandle
    /// The certificate, available without `await` (a software key has nothing to fetch).
    public let signingCertificate: Certificate
    /// Extra certificates that came with the key (a PKCS#12 chain), issuer first when given so.
    public let chain: [Certificate]
    public let algorithm: SignatureAlgorithm

    /// Loads a PEM/PKCS#8 key and its certificate.
    /// - Parameters:
    ///   - keyPEM: the private key file's bytes.
    ///   - certificate: the matching certificate.
    ///   - password: for an encrypted key; never retried on failure.
    ///   - algorithm: overrides the default (for example RSA-PSS, or another hash); nil picks the
    ///     key's default (`PublicKey.defaultAlgorithm`).
    public init(
        key keyBytes: Data, certificate: Certificate, password: SecretBytes? = nil,
        algorithm: SignatureAlgorithm? = nil
    ) throws {
        let key = try PKeyHandle.loadPrivateKey(keyBytes, password: password)
        try self.init(key: key, certificate: certificate, chain: [], algorithm: algorithm)
    }

    /// Loads a PKCS#12 (.p12/.pfx) file holding the key, its certificate and optionally a chain.
    public init(pkcs12 bytes: Data, password: SecretBytes?, algorithm: SignatureAlgorithm? = nil) throws {
        let loaded = try PKeyHandle.loadPKCS12(bytes, password: password)
        try self.init(
            key: loaded.key, certificate: Certificate(handle: loaded.certificate),
            chain: loaded.chain.map { try Certificate(handle: $0) }, algorithm: algorithm)
    }

    /// True when the bytes are a DER PKCS#12 structure (decided without a password).
    public static func isPKCS12(_ bytes: Data) -> Bool { PKeyHandle.isPKCS12(bytes) }

    private init(key: PKeyHandle, certificate: Certificate, chain: [Certificate], algorithm: SignatureAlgorithm?) throws
    {
        guard key.matches(certificate.publicKey.handle) else { throw CoreError.keyCertificateMismatch }
        let resolved: SignatureAlgorithm
        switch certificate.publicKey.type {
        case .ec(let curve):
            resolved = algorithm ?? .ecdsa(curve, curve.defaultDigest)
            guard resolved.curve == curve else {
                throw CoreError.unsupportedAlgorithm("\(resolved) with an EC \(curve.rawValue) key")
            }
        case .rsa(let bits):
            guard bits >= 2048 else { throw CoreError.unsupportedKey("RSA \(bits) bits") }
            resolved = algorithm ?? .rsaPKCS1SHA256
            guard !resolved.isECDSA else { throw CoreError.unsupportedAlgorithm("\(resolved) with an RSA key") }
        case .unsupported(let name):
            throw CoreError.unsupportedKey(name)
        }
        self.key = key
        self.signingCertificate = certificate
        self.chain = chain
        self.algorithm = resolved
    }

    public func certificate() async throws -> Certificate { signingCertificate }

    public func sign(digest: Digest) async throws -> Data {
        try signSynchronously(digest: digest)
    }

    /// The same as `sign(digest:)` without suspension, for callers outside async code.
    public func signSynchronously(digest: Digest) throws -> Data {
        guard digest.algorithm == algorithm.digest else {
            throw CoreError.digestAlgorithmMismatch(expected: algorithm.digest, actual: digest.algorithm)
        }
        if let curve = algorithm.curve {
            return try ECDSASignature.raw(fromDER: key.sign(digest: digest, padding: .none), curve: curve)
        }
        return try key.sign(digest: digest, padding: algorithm.isRSAPSS ? .pss : .pkcs1)
    }

    /// Signs a value the way a smart card's PSO:CDS / INTERNAL AUTHENTICATE does: no hashing,
    /// ECDSA over the bytes given (already padded or truncated by the caller) returning raw
    /// r‖s, or an RSA PKCS#1 v1.5 block around the DigestInfo given. For card emulation
    /// (`tamga-vcard`) and tests; signing documents goes through `sign(digest:)`.
    public func signValueAsCard(_ value: Data) throws -> Data {
        let signature = try key.signValue(value)
        if let curve = algorithm.curve { return try ECDSASignature.raw(fromDER: signature, curve: curve) }
        return signature
    }
}
