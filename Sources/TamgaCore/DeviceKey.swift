internal import COpenSSL
import FoundationEssentials
import Glibc
import TamgaSupport

/// A P-256 key that identifies this device to a service (the co-signer's device attestation on
/// Linux, where there is no App Attest): made once, kept as an unencrypted PKCS#8 file with mode
/// 0600 (like an SSH key), used to sign challenge nonces.
public final class DeviceKey: @unchecked Sendable {  // unchecked: immutable after init
    let key: PKeyHandle

    /// Loads the key in `file`, or makes one there (0600) when there is none. The new key is
    /// written to a temporary file, synced and linked into place, so a crash leaves either no
    /// key or a whole one, and two processes making it at once end with one key both use. A key
    /// file that others can read is refused.
    public init(file: String) throws {
        if let loaded = try Self.load(file) {
            key = loaded
            return
        }
        guard let fresh = cossl_ec_generate_p256() else {
            throw CoreError.cryptoFailure(operation: "EC key generation", reason: openSSLErrorText())
        }
        let made = PKeyHandle(taking: fresh)
        guard let der = encodeDER({ i2d_PrivateKey(made.pointer, &$0) }) else {
            throw CoreError.cryptoFailure(operation: "i2d_PrivateKey", reason: openSSLErrorText())
        }
        let temporary = file + ".tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CoreError.unreadableFile(path: file, reason: "cannot create the device key") }
        defer { unlink(temporary) }
        let written = der.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == der.count && fsync(fd) == 0
        close(fd)
        guard written else { throw CoreError.unreadableFile(path: file, reason: "cannot write the device key") }
        if link(temporary, file) != 0 {
            // Another process made it first: use theirs.
            guard errno == EEXIST, let theirs = try Self.load(file) else {
                throw CoreError.unreadableFile(path: file, reason: "cannot put the device key in place")
            }
            key = theirs
            return
        }
        let folder = open(file.parentPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
        key = made
    }

    /// The key in `file`, nil when there is none.
    static func load(_ file: String) throws -> PKeyHandle? {
        var status = stat()
        guard stat(file, &status) == 0 else { return nil }
        guard status.st_mode & 0o077 == 0 else {
            throw CoreError.unreadableFile(
                path: file, reason: "the device key is readable by others; chmod 600 it (or delete it and enroll again)"
            )
        }
        guard let data = FileManager.default.contents(atPath: file), !data.isEmpty else {
            throw CoreError.unreadableFile(
                path: file, reason: "the device key is empty or unreadable; delete it and enroll again")
        }
        return try PKeyHandle.loadPrivateKey(data, password: nil)
    }

    /// The public key as a DER SubjectPublicKeyInfo.
    public var subjectPublicKeyInfo: Data { encodeDER { i2d_PUBKEY(key.pointer, &$0) } ?? Data() }

    /// ECDSA P-256 over SHA-256 of `message`, as raw r‖s.
    public func sign(_ message: Data) throws -> Data {
        try ECDSASignature.raw(
            fromDER: key.sign(digest: Digest.compute(.sha256, over: message), padding: .none), curve: .p256)
    }

    /// Checks a raw r‖s signature over SHA-256 of `message` under `subjectPublicKeyInfo`.
    public static func verify(_ signature: Data, message: Data, subjectPublicKeyInfo: Data) -> Bool {
        guard let key = try? PublicKey(subjectPublicKeyInfo: subjectPublicKeyInfo) else { return false }
        return key.verify(
            signature: signature, digest: Digest.compute(.sha256, over: message), algorithm: .ecdsaP256SHA256)
    }
}
