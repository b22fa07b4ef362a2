import Foundation
import TamgaCore

/// Which of an account's two independent threshold keys (the seed's SDK has both).
public enum ShareRole: String, Sendable, CaseIterable {
    /// Authentication, unlocked with PIN1.
    case auth
    /// Signing, unlocked with PIN2.
    case sign
}

/// The device side's key store (the seed's `SecureKeyStore`, on Linux): per account a folder
/// (0700) under `$XDG_DATA_HOME/tamga/threshold` holding, per role, the public part of the share,
/// the secret part (x1 and the Paillier primes) sealed under the PIN (PBKDF2-HMAC-SHA256
/// 210,000 iterations → AES-256-GCM, `[0 | salt | iv | ciphertext | tag]`, or `[1 | wrapped]`
/// when a PKCS#11 token wraps it once more), the terminal-abort state, and a
/// wrong-PIN counter. Ten consecutive wrong PINs delete the sealed share; the counter survives
/// that and restarts. Files are 0600 and written atomically.
public final class ShareKeyStore: @unchecked Sendable {   // unchecked: every operation is a whole-file read or atomic write
    public static let maximumWrongPINs = 10
    public let folder: URL
    let random: RandomSource

    /// `root` defaults to `$XDG_DATA_HOME/tamga/threshold` (or `~/.local/share/tamga/threshold`).
    public init(account: String, root: URL? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
                random: RandomSource = SystemRandom()) throws {
        guard !account.isEmpty, !account.contains("/"), account != ".", account != ".." else { throw ThresholdError.keyStore("the account name \(account) is not a file name") }
        let base = root ?? {
            if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return URL(fileURLWithPath: data) }
            return URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".local/share")
        }().appendingPathComponent("tamga/threshold")
        folder = base.appendingPathComponent(account)
        self.random = random
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(folder.path, 0o700)
    }

    private func file(_ role: ShareRole, _ kind: String) -> String { folder.appendingPathComponent("\(role.rawValue).\(kind)").path }

    /// The terminal-abort guard of a role's share.
    public func shareGuard(_ role: ShareRole) -> ShareStateFile { ShareStateFile(path: file(role, "state")) }

    public func isEnrolled(_ role: ShareRole) -> Bool { FileManager.default.fileExists(atPath: file(role, "public")) }

    // MARK: Writing

    private func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ThresholdError.keyStore("cannot write \(path)") }
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ThresholdError.keyStore("cannot write \(path)")
        }
        let directory = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 { fsync(directory); close(directory) }
    }

    struct PublicPart: Codable {
        let keyID: String, clientPID: String, serverPID: String, publicKey: String, q2: String, ckey: String, paillierN: String
    }

    private static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    private static func unhex(_ text: String) throws -> [UInt8] {
        guard let value = BigInt(hex: text), text.count % 2 == 0 else { throw ThresholdError.keyStore("a stored value is not hex") }
        return value.bytes(width: text.count / 2) ?? []
    }

    /// Stores a freshly enrolled share, sealed under `pin` (and wrapped by `wrapper` when the
    /// user configured a token); resets the wrong-PIN counter and the guard.
    public func store(_ share: ClientKeyShare, role: ShareRole, pin: SecretBytes, wrapper: ShareWrapper? = nil) throws {
        var secret = Scalar.encode(share.x1) + (share.secretKey.p.bytes(width: 128) ?? []) + (share.secretKey.q.bytes(width: 128) ?? [])
        defer { wipe(&secret) }
        guard secret.count == 32 + 256 else { throw ThresholdError.keyStore("the share does not have the expected sizes") }
        let sealed = try SealedBox.seal(secret, pin: pin, random: random)
        let publicPart = PublicPart(keyID: Self.hex(share.keyID), clientPID: Self.hex(share.clientPID), serverPID: Self.hex(share.serverPID),
                                    publicKey: Self.hex(share.publicKey.compressed), q2: Self.hex(share.q2.compressed),
                                    ckey: share.ckey.hex, paillierN: share.secretKey.publicKey.n.hex)
        try writeAtomically(try wrapper.map { [1] + (try $0.wrap(sealed)) } ?? ([0] + sealed), to: file(role, "share"))
        try writeAtomically(Array(try JSONEncoder().encode(publicPart)), to: file(role, "public"))
        try writeAtomically(Array("0\n".utf8), to: file(role, "pin-failures"))
        try shareGuard(role).clearInFlight()
    }

    // MARK: PIN

    private func failures(_ role: ShareRole) -> Int {
        Int((try? String(contentsOfFile: file(role, "pin-failures"), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "0") ?? 0
    }

    /// Opens the share with `pin` (one attempt). A wrong PIN is counted; the tenth deletes the
    /// sealed share. A locked share (terminal abort) does not open at all.
    public func unlock(_ role: ShareRole, pin: SecretBytes, wrapper: ShareWrapper? = nil) throws -> ClientKeyShare {
        guard isEnrolled(role) else { throw ThresholdError.notEnrolled }
        if try shareGuard(role).isLocked() { throw ThresholdError.shareLocked }
        guard let stored = FileManager.default.contents(atPath: file(role, "share")) else { throw ThresholdError.shareLocked }   // deleted after ten wrong PINs
        let bytes = Array(stored)
        guard let first = bytes.first, first <= 1 else { throw ThresholdError.keyStore("the sealed share has an unknown format") }
        let sealed: [UInt8]
        if first == 1 {
            guard let wrapper else { throw ThresholdError.keyStore("this share is wrapped by a PKCS#11 token: connect it and give its PIN") }
            sealed = try wrapper.unwrap(Array(bytes.dropFirst()))
        } else {
            sealed = Array(bytes.dropFirst())
        }
        guard var secret = try SealedBox.open(sealed, pin: pin) else {
            let count = failures(role) + 1
            try writeAtomically(Array("\(count)\n".utf8), to: file(role, "pin-failures"))
            if count >= Self.maximumWrongPINs {
                unlink(file(role, "share"))
                throw ThresholdError.shareLocked
            }
            throw ThresholdError.wrongPIN(triesLeft: Self.maximumWrongPINs - count)
        }
        defer { wipe(&secret) }
        if failures(role) != 0 { try writeAtomically(Array("0\n".utf8), to: file(role, "pin-failures")) }
        guard secret.count == 288, let data = FileManager.default.contents(atPath: file(role, "public")) else {
            throw ThresholdError.keyStore("the stored share is damaged")
        }
        let publicPart = try JSONDecoder().decode(PublicPart.self, from: data)
        let secretKey = try PaillierSecretKey(p: BigInt(bytes: secret[32..<160]), q: BigInt(bytes: secret[160..<288]))
        guard secretKey.publicKey.n.hex == publicPart.paillierN else { throw ThresholdError.keyStore("the stored share is damaged") }
        return ClientKeyShare(keyID: try Self.unhex(publicPart.keyID), clientPID: try Self.unhex(publicPart.clientPID),
                              serverPID: try Self.unhex(publicPart.serverPID), publicKey: try Point(compressed: Self.unhex(publicPart.publicKey)),
                              q2: try Point(compressed: Self.unhex(publicPart.q2)), ckey: BigInt(hex: publicPart.ckey) ?? .zero,
                              x1: BigInt(bytes: secret[0..<32]), secretKey: secretKey)
    }

    /// True when `pin` opens the share (counting a wrong one like `unlock`).
    public func verifyPIN(_ role: ShareRole, pin: SecretBytes, wrapper: ShareWrapper? = nil) throws {
        _ = try unlock(role, pin: pin, wrapper: wrapper)
    }

    /// Re-seals the share under a new PIN; the public key and everything public stay as they are.
    public func changePIN(_ role: ShareRole, old: SecretBytes, new: SecretBytes, wrapper: ShareWrapper? = nil) throws {
        let share = try unlock(role, pin: old, wrapper: wrapper)
        var secret = Scalar.encode(share.x1) + (share.secretKey.p.bytes(width: 128) ?? []) + (share.secretKey.q.bytes(width: 128) ?? [])
        defer { wipe(&secret) }
        let sealed = try SealedBox.seal(secret, pin: new, random: random)
        try writeAtomically(try wrapper.map { [1] + (try $0.wrap(sealed)) } ?? ([0] + sealed), to: file(role, "share"))
    }

    /// Removes this account's local registration (the co-signer keeps its half until told).
    public func deleteRegistration() throws {
        try FileManager.default.removeItem(at: folder)
    }
}
