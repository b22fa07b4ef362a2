import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// Asks for a threshold share's PIN (PIN2 for signing), once per signature.
public protocol ThresholdPINProvider: Sendable {
    func pin(role: ShareRole, account: String) async throws -> SecretBytes
}

/// Signs with the split key: opens a SIGN session for the digest on the co-signer (as the
/// relying party would) and approves it from this device — commit and prove without the PIN,
/// the PIN only to unlock the Paillier key at finish; the joint signature is verified on the
/// device before it is returned (and again by the co-signer).
public final class ThresholdSigner: UnlockTimingSigner, @unchecked Sendable {  // unchecked: immutable after init
    public let store: ShareKeyStore
    public let role: ShareRole
    public let account: String
    public let algorithm = SignatureAlgorithm.ecdsaP256SHA256
    private let pinProvider: ThresholdPINProvider
    public let unlockClock = UnlockClock()
    private let client: ThresholdClient
    private let registration: ThresholdClient.Registration
    /// The co-signer holding the other share.
    public var coSigner: String { registration.server }
    private let signingCertificate: Certificate
    /// How many PIN tries the co-signer allows this key without the right PIN, as its last
    /// evaluation said (the try it counted included); nil before a PIN was checked.
    public var coSignerPINTries: Int? { pinTries.value }
    private let pinTries = PINTryCount()
    /// Hears what a person should know that does not stop the signature (a `finish` the
    /// co-signer never confirmed).
    private let warning: @Sendable (String) -> Void

    public init(
        account: String, store: ShareKeyStore, role: ShareRole = .sign, pinProvider: ThresholdPINProvider,
        timeout: TimeInterval = 30,
        retry: RetryPolicy = RetryPolicy(), warning: @escaping @Sendable (String) -> Void = { _ in }
    ) throws {
        self.account = account
        self.warning = warning
        self.store = store
        self.role = role
        self.pinProvider = pinProvider
        registration = try store.registration(role)
        guard let server = URL(string: registration.server) else {
            throw ThresholdError.keyStore("the stored co-signer URL is not a URL")
        }
        client = ThresholdClient(
            server: server, transport: registration.transport(timeout: timeout),
            attestation: try store.deviceAttestation(), retry: retry)
        signingCertificate = try store.certificate(role)
    }

    public func certificate() async throws -> Certificate { signingCertificate }

    public func sign(digest: Digest) async throws -> Data {
        guard digest.algorithm == algorithm.digest else {
            throw CoreError.digestAlgorithmMismatch(expected: algorithm.digest, actual: digest.algorithm)
        }
        let share = try store.publicShare(role)
        let bytes = Array(digest.bytes)
        let (store, role, account, provider) = (self.store, self.role, self.account, self.pinProvider)
        let clock = unlockClock
        // Unlocked once per signature: a second session after a lost answer does not ask again.
        var unlocked: PaillierSecretKey?
        // The unlock includes the co-signer's PIN evaluation and confirmation (two round trips).
        let hardening = CountingPINHardening(
            inner: CoSignerPINHardening(client: client, token: registration.deviceToken), tries: pinTries)
        var attempt = 0
        while true {
            attempt += 1
            // The device opens the session for its own key (no relying party in between).
            let session = try await client.call(
                "POST", "v3/mobile/session",
                [
                    "keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(bytes),
                    "displayText": "Sign a document with tamga",
                ], token: registration.deviceToken)
            guard let id = session["sessionID"] as? String else {
                throw ThresholdError.unexpectedMessage("no signing session")
            }
            let approval: Approval
            do {
                approval = try await client.approveSession(
                    sessionID: id, digest: bytes, share: share, token: registration.deviceToken,
                    guard: store.shareGuard(role)
                ) {
                    if let unlocked { return unlocked }
                    let key = try await clock.measure {
                        try await store.unlock(
                            role, pin: try await provider.pin(role: role, account: account), hardening: hardening
                        ).secretKey
                    }
                    unlocked = key
                    return key
                }
            } catch ThresholdError.sessionAbandoned(let why) where attempt == 1 {
                // Nothing was decrypted and nothing locked (the co-signer's c3, or its answer
                // to commit, never arrived): one new session — new nonces, a new k2 — is safe.
                warning(
                    "warning: \(why); the session was abandoned without locking anything, signing once more with a new session"
                )
                continue
            }
            return delivered(approval, session: id)
        }
    }

    /// The signature's bytes, said when the co-signer never confirmed them.
    private func delivered(_ approval: Approval, session id: String) -> Data {
        // The session is this device's own and the signature verified here under the joint key:
        // it is good whether or not the co-signer heard `finish` (its session then expires,
        // unlocked), so a lost answer does not cost the signature.
        if let reason = approval.notDelivered {
            warning(
                "warning: the co-signer did not confirm the signature (\(reason)); it verified on this device and is used, and the co-signer's session \(id) will expire without locking the key"
            )
        }
        return Data(Scalar.encode(approval.r) + Scalar.encode(approval.s))
    }
}

/// The co-signer's PIN hardening, noting how many tries it allows (its answer's `attemptsLeft`
/// counts after the evaluation it answers, so the allowance is one more).
private struct CountingPINHardening: PINHardening {
    let inner: PINHardening
    let tries: PINTryCount

    func evaluate(_ request: PINMessages.EvaluateRequest) async throws -> PINMessages.EvaluateResponse {
        let answer = try await inner.evaluate(request)
        tries.value = answer.attemptsLeft + 1
        return answer
    }

    func confirm(_ request: PINMessages.ConfirmRequest) async throws { try await inner.confirm(request) }
}

/// One count, read and written from the signing task and whoever asks afterwards.
private final class PINTryCount: @unchecked Sendable {  // unchecked: `stored` behind `lock`
    private let lock = Lock()
    private var stored: Int?
    var value: Int? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
