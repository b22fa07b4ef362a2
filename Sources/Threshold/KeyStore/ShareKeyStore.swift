import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// Which of an account's two independent threshold keys (the seed's SDK has both).
public enum ShareRole: String, Sendable, CaseIterable {
    /// Authentication, unlocked with PIN1.
    case auth
    /// Signing, unlocked with PIN2.
    case sign
}

/// The device side's key store (the seed's `SecureKeyStore`, on Linux): per account a folder
/// (0700) under `$XDG_DATA_HOME/tamga/threshold` holding, per role, the public part of the share,
/// the secret part (x1 and the Paillier primes) sealed under a key that needs both the PIN and
/// the co-signer (`PINKeys`: PBKDF2 of the PIN and the co-signer's OPRF over it; AES-256-GCM
/// with the account, role and key id as additional data; `[2 | salt | iv | ciphertext | tag]`,
/// or `[3 | wrapped]` when a PKCS#11 token wraps it once more), the terminal-abort state, and a
/// wrong-PIN counter. Ten consecutive wrong PINs delete the sealed share; the counter survives
/// that and restarts. The co-signer keeps its own count and blocks the PIN sooner
/// (docs/threshold-pin.md). Files are 0600 and written atomically. Shares sealed by older
/// versions under the PIN alone (`0`, `1`) are refused: a copy of them can be searched offline.
// unchecked: every operation is a whole-file read or atomic write
public final class ShareKeyStore: @unchecked Sendable {
    public static let maximumWrongPINs = 10
    /// The sealed share's first byte: sealed with a PIN key hardened by the co-signer, plain or
    /// wrapped by a token. 0 and 1 were the PIN-only formats before.
    static let sealedFormat: UInt8 = 2, wrappedFormat: UInt8 = 3
    public let folder: URL
    /// The account's name (the folder's), bound into the sealed share.
    public let account: String
    let random: RandomSource

    /// `root` defaults to `$XDG_DATA_HOME/tamga/threshold` (or `~/.local/share/tamga/threshold`).
    public init(
        account: String, root: URL? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        random: RandomSource = SystemRandom()
    ) throws {
        guard !account.isEmpty, !account.contains("/"), account != ".", account != ".." else {
            throw ThresholdError.keyStore("the account name \(account) is not a file name")
        }
        folder = Self.root(root, environment: environment).appendingPathComponent(account)
        self.account = account
        self.random = random
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        chmod(folder.path, 0o700)
    }

    static func root(_ root: URL?, environment: [String: String]) -> URL {
        root
            ?? {
                if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return URL(fileURLWithPath: data) }
                return URL(fileURLWithPath: environment["HOME"] ?? UserAccount.homeFolder()).appendingPathComponent(
                    ".local/share")
            }().appendingPathComponent("tamga/threshold")
    }

    /// The accounts on this device with a `role` key enrolled, sorted.
    public static func accounts(
        role: ShareRole, root: URL? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        let base = Self.root(root, environment: environment)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
        return names.filter {
            FileManager.default.fileExists(atPath: base.appendingPathComponent("\($0)/\(role.rawValue).public").path)
        }.sorted()
    }

    private func file(_ role: ShareRole, _ kind: String) -> String {
        folder.appendingPathComponent("\(role.rawValue).\(kind)").path
    }

    /// The terminal-abort guard of a role's share.
    public func shareGuard(_ role: ShareRole) -> ShareStateFile { ShareStateFile(path: file(role, "state")) }

    public func isEnrolled(_ role: ShareRole) -> Bool { FileManager.default.fileExists(atPath: file(role, "public")) }

    // MARK: Writing

    private func writeAtomically(_ bytes: [UInt8], to path: String) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ThresholdError.keyStore("cannot write \(path)") }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ThresholdError.keyStore("cannot write \(path)")
        }
        let directory = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    struct PublicPart: Codable {
        let keyID: String, clientPID: String, serverPID: String, publicKey: String, q2: String, ckey: String,
            paillierN: String
    }

    private static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }
    private static func unhex(_ text: String) throws -> [UInt8] {
        guard !text.isEmpty, let bytes = Hex.bytes(text) else {
            throw ThresholdError.keyStore("a stored value is not hex")
        }
        return bytes
    }

    /// What the sealed share is bound to: moved to another account, role or key, it does not open.
    func additionalData(role: ShareRole, keyID: [UInt8]) -> [UInt8] {
        var data = Array("tamga-share-v2".utf8)
        for part in [Array(account.utf8), Array(role.rawValue.utf8), keyID] {
            data += [UInt8(part.count >> 8 & 0xff), UInt8(part.count & 0xff)] + part
        }
        return data
    }

    static func secretBytes(_ share: ClientKeyShare) -> [UInt8] {
        Scalar.encode(share.x1) + (share.secretKey.p.bytes(width: 128) ?? [])
            + (share.secretKey.q.bytes(width: 128) ?? [])
    }

    /// The co-signer's OPRF over `pin` for this key, finalized: one evaluation, counted by the
    /// co-signer. Anything but an answer is `coSignerNeeded` (nothing opens offline).
    func harden(
        _ pin: SecretBytes, role: ShareRole, keyID: [UInt8], hardening: PINHardening
    ) async throws -> (hardened: [UInt8], attempt: [UInt8], left: Int) {
        var input = PINKeys.oprfInput(pin: pin, account: account, role: role, keyID: keyID)
        defer { wipe(&input) }
        let blinded = try OPRF.blind(input, random: random)
        let answer = try await hardening.evaluate(PINMessages.EvaluateRequest(keyID: keyID, blinded: blinded.element))
        return (
            try OPRF.finalize(input, blind: blinded.blind, evaluated: answer.evaluated), answer.attempt,
            answer.attemptsLeft
        )
    }

    /// `[format | salt 16 | iv | ciphertext | tag]` (the salt and what follows wrapped when a
    /// token is given) and the keys it was sealed with.
    func seal(
        _ secret: [UInt8], pin: SecretBytes, hardened: [UInt8], role: ShareRole, keyID: [UInt8], wrapper: ShareWrapper?
    ) throws -> (bytes: [UInt8], keys: PINKeys) {
        let salt = try random.bytes(16, label: "keystore.salt")
        var keys = try PINKeys.derive(pin: pin, salt: salt, hardened: hardened)
        do {
            let sealed =
                salt
                + (try SealedBox.seal(
                    secret, key: keys.sealKey, additionalData: additionalData(role: role, keyID: keyID), random: random))
            return (
                try wrapper.map { [Self.wrappedFormat] + (try $0.wrap(sealed)) } ?? ([Self.sealedFormat] + sealed), keys
            )
        } catch {
            keys.erase()
            throw error
        }
    }

    /// Stores a freshly enrolled share, sealed under `pin` hardened by the co-signer (and
    /// wrapped by `wrapper` when the user configured a token); registers the PIN's verifier
    /// with the co-signer; resets the wrong-PIN counter and the guard. The PIN's length is
    /// checked first.
    public func store(
        _ share: ClientKeyShare, role: ShareRole, pin: SecretBytes, hardening: PINHardening,
        wrapper: ShareWrapper? = nil
    ) async throws {
        try PINPolicy.check(pin, role: role)
        var secret = Self.secretBytes(share)
        defer { wipe(&secret) }
        guard secret.count == 32 + 256 else {
            throw ThresholdError.keyStore("the share does not have the expected sizes")
        }
        // Secrets are wiped in place (through the tuples that own them: a copy would be wiped
        // instead of the original buffer).
        var evaluation = try await harden(pin, role: role, keyID: share.keyID, hardening: hardening)
        defer { wipe(&evaluation.hardened) }
        var sealing = try seal(
            secret, pin: pin, hardened: evaluation.hardened, role: role, keyID: share.keyID, wrapper: wrapper)
        defer { sealing.keys.erase() }
        try await confirm(
            hardening, keyID: share.keyID, attempt: evaluation.attempt, proofKey: sealing.keys.authKey,
            verifier: sealing.keys.authKey)
        let publicPart = PublicPart(
            keyID: Self.hex(share.keyID), clientPID: Self.hex(share.clientPID), serverPID: Self.hex(share.serverPID),
            publicKey: Self.hex(share.publicKey.compressed), q2: Self.hex(share.q2.compressed),
            ckey: share.ckey.hex, paillierN: share.secretKey.publicKey.n.hex)
        try writeAtomically(sealing.bytes, to: file(role, "share"))
        try writeAtomically(Array(try JSONEncoder().encode(publicPart)), to: file(role, "public"))
        try writeAtomically(Array("0\n".utf8), to: file(role, "pin-failures"))
        try shareGuard(role).reset()
    }

    /// Tells the co-signer the PIN was right (its count restarts), registering `verifier` as
    /// the PIN's new verifier when given.
    func confirm(
        _ hardening: PINHardening, keyID: [UInt8], attempt: [UInt8], proofKey: [UInt8], verifier: [UInt8]?
    ) async throws {
        try await hardening.confirm(
            PINMessages.ConfirmRequest(
                keyID: keyID, attempt: attempt,
                proof: PINKeys.proof(authKey: proofKey, keyID: keyID, attempt: attempt), verifier: verifier))
    }

    // MARK: PIN

    /// Wrong PINs so far; a counter that cannot be read counts as the maximum (fail closed).
    private func failures(_ role: ShareRole) -> Int {
        let path = file(role, "pin-failures")
        guard let data = FileManager.default.contents(atPath: path) else {
            return FileManager.default.fileExists(atPath: path) ? Self.maximumWrongPINs : 0
        }
        return Int(String(decoding: data, as: UTF8.self).trimmed()) ?? Self.maximumWrongPINs
    }

    /// Runs `body` holding an exclusive lock on the role's PIN lock file, so parallel attempts
    /// are counted one by one.
    private func exclusively<T>(_ role: ShareRole, _ body: () throws -> T) throws -> T {
        let fd = open(file(role, "pin-lock"), O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ThresholdError.keyStore("cannot lock the share") }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { throw ThresholdError.keyStore("cannot lock the share") }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// The public part of the share, for commit and prove (no PIN); refuses a locked share.
    public func publicShare(_ role: ShareRole) throws -> ClientPublicShare {
        guard isEnrolled(role), let data = FileManager.default.contents(atPath: file(role, "public")) else {
            throw ThresholdError.notEnrolled
        }
        if try shareGuard(role).isLocked() { throw ThresholdError.shareLocked }
        let part = try JSONDecoder().decode(PublicPart.self, from: data)
        return ClientPublicShare(
            keyID: try Self.unhex(part.keyID), clientPID: try Self.unhex(part.clientPID),
            serverPID: try Self.unhex(part.serverPID),
            publicKey: try Point(compressed: Self.unhex(part.publicKey)),
            q2: try Point(compressed: Self.unhex(part.q2)),
            ckey: BigInt(hex: part.ckey) ?? .zero)
    }

    /// Opens the share with `pin` (one attempt) and tells the co-signer the PIN was right.
    /// The PIN's length is checked before anything is sent; then the co-signer evaluates the
    /// OPRF over it (counting the attempt; unreachable: `coSignerNeeded`, nothing counted here);
    /// the attempt is counted on disk *before* the share is tried (a process killed mid-attempt
    /// has used its try) and uncounted when it was right; the tenth wrong one deletes the
    /// sealed share. A locked share does not open at all. The public part is checked against
    /// the secrets (x1·Q2 = Q, Dec(ckey) = x1).
    public func unlock(
        _ role: ShareRole, pin: SecretBytes, hardening: PINHardening, wrapper: ShareWrapper? = nil
    ) async throws -> ClientKeyShare {
        var opened = try await openShare(role, pin: pin, hardening: hardening, wrapper: wrapper)
        defer { opened.keys.erase() }
        try await confirm(
            hardening, keyID: opened.share.keyID, attempt: opened.attempt, proofKey: opened.keys.authKey, verifier: nil)
        return opened.share
    }

    /// `unlock` without the confirmation: the share, the keys it opened with, the attempt.
    func openShare(
        _ role: ShareRole, pin: SecretBytes, hardening: PINHardening, wrapper: ShareWrapper?
    ) async throws -> (share: ClientKeyShare, keys: PINKeys, attempt: [UInt8]) {
        try PINPolicy.check(pin, role: role)
        guard isEnrolled(role) else { throw ThresholdError.notEnrolled }
        if try shareGuard(role).isLocked() { throw ThresholdError.shareLocked }
        // Everything that can be refused locally is refused before the co-signer counts a try.
        guard let stored = FileManager.default.contents(atPath: file(role, "share")) else {
            throw ThresholdError.shareLocked
        }  // deleted after ten wrong PINs
        guard let format = stored.first, format == Self.sealedFormat || format == Self.wrappedFormat else {
            if let format = stored.first, format <= 1 { throw ThresholdError.outdatedShareFormat }
            throw ThresholdError.keyStore("the sealed share has an unknown format")
        }
        if format == Self.wrappedFormat && wrapper == nil {
            throw ThresholdError.keyStore("this share is wrapped by a PKCS#11 token: connect it and give its PIN")
        }
        guard failures(role) < Self.maximumWrongPINs else {
            unlink(file(role, "share"))
            throw ThresholdError.shareLocked
        }
        guard let data = FileManager.default.contents(atPath: file(role, "public")) else {
            throw ThresholdError.keyStore("the stored share is damaged")
        }
        let publicPart = try JSONDecoder().decode(PublicPart.self, from: data)
        let keyID = try Self.unhex(publicPart.keyID)
        var evaluation = try await harden(pin, role: role, keyID: keyID, hardening: hardening)
        defer { wipe(&evaluation.hardened) }
        let attempt = evaluation.attempt, serverLeft = evaluation.left
        return try exclusively(role) {
            guard let stored = FileManager.default.contents(atPath: file(role, "share")) else {
                throw ThresholdError.shareLocked
            }
            let count = failures(role)
            guard count < Self.maximumWrongPINs else {
                unlink(file(role, "share"))
                throw ThresholdError.shareLocked
            }
            try writeAtomically(Array("\(count + 1)\n".utf8), to: file(role, "pin-failures"))
            let bytes = Array(stored)
            let sealed: [UInt8]
            if bytes.first == Self.wrappedFormat {
                guard let wrapper else {
                    throw ThresholdError.keyStore(
                        "this share is wrapped by a PKCS#11 token: connect it and give its PIN")
                }
                sealed = try wrapper.unwrap(Array(bytes.dropFirst()))
            } else {
                sealed = Array(bytes.dropFirst())
            }
            guard sealed.count >= 16 + 12 + 16 + 1 else {
                throw ThresholdError.keyStore("the sealed share is truncated")
            }
            var keys = try PINKeys.derive(pin: pin, salt: Array(sealed.prefix(16)), hardened: evaluation.hardened)
            guard
                var secret = try SealedBox.open(
                    Array(sealed.dropFirst(16)), key: keys.sealKey,
                    additionalData: additionalData(role: role, keyID: keyID))
            else {
                keys.erase()
                if count + 1 >= Self.maximumWrongPINs {
                    unlink(file(role, "share"))
                    throw ThresholdError.shareLocked
                }
                // The co-signer blocks sooner than the device deletes: say what is nearer.
                throw ThresholdError.wrongPIN(triesLeft: min(Self.maximumWrongPINs - count - 1, serverLeft))
            }
            defer { wipe(&secret) }
            try writeAtomically(Array("0\n".utf8), to: file(role, "pin-failures"))
            do {
                return (try share(from: secret, publicPart: publicPart), keys, attempt)
            } catch {
                keys.erase()
                throw error
            }
        }
    }

    /// The share from its opened secret part and its public part, checked against each other.
    private func share(from secret: [UInt8], publicPart: PublicPart) throws -> ClientKeyShare {
        guard secret.count == 288 else { throw ThresholdError.keyStore("the stored share is damaged") }
        let secretKey = try PaillierSecretKey(p: BigInt(bytes: secret[32..<160]), q: BigInt(bytes: secret[160..<288]))
        let x1 = BigInt(bytes: secret[0..<32])
        let share = ClientKeyShare(
            keyID: try Self.unhex(publicPart.keyID), clientPID: try Self.unhex(publicPart.clientPID),
            serverPID: try Self.unhex(publicPart.serverPID),
            publicKey: try Point(compressed: Self.unhex(publicPart.publicKey)),
            q2: try Point(compressed: Self.unhex(publicPart.q2)), ckey: BigInt(hex: publicPart.ckey) ?? .zero,
            x1: x1, secretKey: secretKey)
        // The public part is not authenticated on disk: check it against the secrets.
        guard secretKey.publicKey.n.hex == publicPart.paillierN,
            try share.q2.multiplied(by: x1) == share.publicKey,
            (try? secretKey.decrypt(share.ckey)) == x1
        else {
            throw ThresholdError.keyStore("the stored public key material does not match the share")
        }
        return share
    }

    /// Opens the share with `pin` (counting a wrong one like `unlock`).
    public func verifyPIN(
        _ role: ShareRole, pin: SecretBytes, hardening: PINHardening, wrapper: ShareWrapper? = nil
    ) async throws {
        _ = try await unlock(role, pin: pin, hardening: hardening, wrapper: wrapper)
    }

    /// Re-seals the share under a new PIN; the public key and everything public stay as they
    /// are. Both PINs' lengths are checked first. The co-signer evaluates the old PIN and the
    /// new one, then takes the new verifier with a proof made with the old PIN's key; only then
    /// is the new sealed share written (docs/threshold-pin.md says what a crash between does).
    public func changePIN(
        _ role: ShareRole, old: SecretBytes, new: SecretBytes, hardening: PINHardening, wrapper: ShareWrapper? = nil
    ) async throws {
        try PINPolicy.check(old, role: role)
        try PINPolicy.check(new, role: role)
        var opened = try await openShare(role, pin: old, hardening: hardening, wrapper: wrapper)
        defer { opened.keys.erase() }
        let share = opened.share
        var secret = Self.secretBytes(share)
        defer { wipe(&secret) }
        var evaluation = try await harden(new, role: role, keyID: share.keyID, hardening: hardening)
        defer { wipe(&evaluation.hardened) }
        var sealing = try seal(
            secret, pin: new, hardened: evaluation.hardened, role: role, keyID: share.keyID, wrapper: wrapper)
        defer { sealing.keys.erase() }
        try await confirm(
            hardening, keyID: share.keyID, attempt: evaluation.attempt, proofKey: opened.keys.authKey,
            verifier: sealing.keys.authKey)
        try writeAtomically(sealing.bytes, to: file(role, "share"))
    }

    // MARK: Registration and certificate (public)

    /// The device key that attests this account's calls to the co-signer (`device.key`, 0600,
    /// made on first use; both roles share it).
    public func deviceAttestation() throws -> DeviceAttestation {
        DeviceAttestation(key: try DeviceKey(file: folder.appendingPathComponent("device.key").path))
    }

    public func saveRegistration(_ registration: ThresholdClient.Registration, role: ShareRole) throws {
        try writeAtomically(Array(try JSONEncoder().encode(registration)), to: file(role, "registration"))
    }

    public func registration(_ role: ShareRole) throws -> ThresholdClient.Registration {
        guard let data = FileManager.default.contents(atPath: file(role, "registration")) else {
            throw ThresholdError.notEnrolled
        }
        return try JSONDecoder().decode(ThresholdClient.Registration.self, from: data)
    }

    public func saveCertificate(_ certificate: Certificate, role: ShareRole) throws {
        try writeAtomically(Array(certificate.der), to: file(role, "cert.der"))
    }

    public func certificate(_ role: ShareRole) throws -> Certificate {
        guard let data = FileManager.default.contents(atPath: file(role, "cert.der")) else {
            throw ThresholdError.notEnrolled
        }
        return try Certificate(der: data)
    }

    /// Removes this account's local registration (the co-signer keeps its half until told).
    public func deleteRegistration() throws {
        try FileManager.default.removeItem(at: folder)
    }
}
