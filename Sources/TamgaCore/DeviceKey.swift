internal import COpenSSL
import Foundation

/// A P-256 key that identifies this device to a service (the co-signer's device attestation on
/// Linux, where there is no App Attest): made once, kept as an unencrypted PKCS#8 file with mode
/// 0600 (like an SSH key), used to sign challenge nonces.
public final class DeviceKey: @unchecked Sendable {   // unchecked: immutable after init
    let key: PKeyHandle

    /// Loads the key in `file`, or makes one there (0600) when there is none.
    public init(file: String) throws {
        if let data = FileManager.default.contents(atPath: file) {
            key = try PKeyHandle.loadPrivateKey(data, password: nil)
            return
        }
        guard let fresh = cossl_ec_generate_p256() else { throw CoreError.cryptoFailure(operation: "EC key generation", reason: openSSLErrorText()) }
        key = PKeyHandle(taking: fresh)
        guard let der = encodeDER({ i2d_PrivateKey(key.pointer, &$0) }) else { throw CoreError.cryptoFailure(operation: "i2d_PrivateKey", reason: openSSLErrorText()) }
        let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CoreError.unreadableFile(path: file, reason: "cannot create the device key") }
        defer { close(fd) }
        guard der.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == der.count, fsync(fd) == 0 else {
            throw CoreError.unreadableFile(path: file, reason: "cannot write the device key")
        }
    }

    /// The public key as a DER SubjectPublicKeyInfo.
    public var subjectPublicKeyInfo: Data { encodeDER { i2d_PUBKEY(key.pointer, &$0) } ?? Data() }

    /// ECDSA P-256 over SHA-256 of `message`, as raw r‖s.
    public func sign(_ message: Data) throws -> Data {
        try ECDSASignature.raw(fromDER: key.sign(digest: Digest.compute(.sha256, over: message), padding: .none), curve: .p256)
    }

    /// Checks a raw r‖s signature over SHA-256 of `message` under `subjectPublicKeyInfo`.
    public static func verify(_ signature: Data, message: Data, subjectPublicKeyInfo: Data) -> Bool {
        guard let key = try? PublicKey(subjectPublicKeyInfo: subjectPublicKeyInfo) else { return false }
        return key.verify(signature: signature, digest: Digest.compute(.sha256, over: message), algorithm: .ecdsaP256SHA256)
    }
}
