import FoundationEssentials
import Glibc
import TamgaSupport

/// The co-signer's key share after enrollment.
public struct ServerKeyShare: Sendable {
    /// Precomputed Paillier randomizers for this key's signatures (filled by the service).
    public let pool: RandomizerPool
    public let keyID: [UInt8]
    public let clientPID: [UInt8]
    let x2: BigInt
    public let q1: Point
    public let publicKey: Point
    public let paillier: PaillierPublicKey
    public let ckey: BigInt
}

/// The server party (P2): enrollment and signing as explicit state machines over message
/// values. Sessions are single-use; one signing session per key at a time; a second `prove`
/// is refused (never a second c3 for one k2); `k2` lives only in the session and is dropped
/// after `prove`.
/// Two ways to drive it: the stateless steps (`beginEnrollment`/`completeEnrollment`,
/// `commitSigning`/`checkProve`/`serverCiphertext`/`checkFinish`) hand the state back to the
/// caller — the co-signer service seals it into the database and moves it with
/// compare-and-set updates, so any instance continues any session — and the in-memory methods
/// (`enrollInit`, `signCommit`, …) keep it here, behind a lock, for a single process (the
/// protocol's own tests and golden vectors).
public final class ServerParty: @unchecked Sendable {  // unchecked: `lock` guards every mutable field
    public let pid: [UInt8]
    let ringPedersen: RingPedersenSecret
    let ringPedersenProof: RingPedersenProof
    let random: RandomSource
    private let lock = Lock()

    enum EnrollState { case initialised(PendingEnrollment, at: Date), consumed(at: Date) }
    /// Pending enrollments are forgotten after this long, and there are at most this many
    /// (whoever holds a code cannot grow the server's memory by looping init).
    static let enrollmentLifetime: TimeInterval = 600
    static let maximumPendingEnrollments = 10_000
    enum SignState {
        case committed(SigningSessionState.Committed, deadline: Date)
        /// c3 is being computed: still an open session for `signCommit`.
        case proving(deadline: Date)
        case proved(sid: [UInt8], request: ThresholdMessage.SignCommitRequest, r: BigInt, deadline: Date)
        case finished
    }

    /// How long a signing session may stay open. An expired session ends without locking the
    /// key, whether COMMITTED (its k2 is dropped) or PROVED: a c3 never followed by `finish`
    /// may be an answer lost on the network or a co-signer restart, which the server cannot tell
    /// from an attack, and the device locks its own share when it decrypted a c3 that failed.
    public let sessionLifetime: TimeInterval
    private var usedClientNonces: [[UInt8]: Set<[UInt8]>] = [:]  // by key id

    private var enrollments: [[UInt8]: EnrollState] = [:]  // by client nonce
    private var signings: [[UInt8]: SignState] = [:]  // by key id (one at a time)
    /// Keys locked in this process (read through `lockedKeys`, under the lock).
    private var locked: Set<[UInt8]> = []
    /// A snapshot of the locked keys. Read under the lock: the service reads it from request
    /// threads while others lock keys, and an unsynchronised read of a `Set` that another thread
    /// grows is a data race that can crash (it may retain storage the writer just freed).
    public var lockedKeys: Set<[UInt8]> { lock.withLock { locked } }
    /// Whether this process locked `keyID` (under the lock, like `lockedKeys`).
    public func isLocked(_ keyID: [UInt8]) -> Bool { lock.withLock { locked.contains(keyID) } }

    /// What clients pin after verifying Π^prm once.
    public var ringPedersenFingerprint: [UInt8] { ringPedersen.parameters.fingerprint }

    public init(
        pid: [UInt8], ringPedersen: RingPedersenSecret, random: RandomSource = SystemRandom(),
        sessionLifetime: TimeInterval = 300
    ) throws {
        self.pid = pid
        self.sessionLifetime = sessionLifetime
        self.ringPedersen = ringPedersen
        self.random = random
        ringPedersenProof = try RingPedersenProof.prove(ringPedersen, pid: pid, random: random)
    }

    // MARK: Enrollment

    /// enroll/init without keeping anything: the answer and the state `complete` needs, for the
    /// caller to keep (the co-signer service seals it into the database).
    public func beginEnrollment(
        _ request: ThresholdMessage.EnrollInitRequest
    ) throws -> (ThresholdMessage.EnrollInitResponse, PendingEnrollment) {
        guard request.clientPID.count == 32, request.clientNonce.count == 32, request.commitmentQ1.value.count == 32
        else {
            throw ThresholdError.unexpectedMessage("enroll/init fields have the wrong sizes")
        }
        let serverNonce = try random.bytes(32, label: "keygen.server_nonce")
        let x2 = try random.nonZeroInteger(below: P256.order, label: "keygen.x2")
        let q2 = try P256.multiplyGenerator(x2)
        let sid = Transcript.sessionID(
            phase: "keygen", clientPID: request.clientPID, serverPID: pid, keyID: [],
            clientNonce: request.clientNonce, serverNonce: serverNonce)
        let proof = try SchnorrProof.prove(
            secret: x2, statement: q2, sid: sid, label: "keygen/Q2", pid: pid, random: random)
        return (
            .init(
                serverPID: pid, serverNonce: serverNonce, q2: q2, proofQ2: proof,
                ringPedersen: ringPedersen.parameters, ringPedersenProof: ringPedersenProof),
            PendingEnrollment(sid: sid, request: request, x2: x2)
        )
    }

    public func enrollInit(_ request: ThresholdMessage.EnrollInitRequest) throws -> ThresholdMessage.EnrollInitResponse
    {
        let (response, pending) = try beginEnrollment(request)
        try lock.withLock {
            let now = Date()
            enrollments = enrollments.filter { _, state in
                switch state {
                case .initialised(_, let at), .consumed(let at): now.timeIntervalSince(at) < Self.enrollmentLifetime
                }
            }
            guard enrollments.count < Self.maximumPendingEnrollments else {
                throw ThresholdError.unexpectedMessage("too many enrollments in progress; try again later")
            }
            guard enrollments[request.clientNonce] == nil else {
                throw ThresholdError.unexpectedMessage("enroll/init replayed")
            }
            enrollments[request.clientNonce] = .initialised(pending, at: now)
        }
        return response
    }

    /// Checks everything the client sent against state the server kept, and returns its share.
    public func enrollComplete(
        clientNonce: [UInt8], _ request: ThresholdMessage.EnrollCompleteRequest
    ) throws
        -> (ThresholdMessage.EnrollCompleteResponse, ServerKeyShare)
    {
        let pending = try lock.withLock { () throws -> PendingEnrollment in
            guard case .initialised(let pending, let at)? = enrollments[clientNonce],
                Date().timeIntervalSince(at) < Self.enrollmentLifetime
            else {
                throw ThresholdError.unexpectedMessage("enroll/complete without a pending init")
            }
            enrollments[clientNonce] = .consumed(at: at)  // single use, whatever the outcome
            return pending
        }
        return try completeEnrollment(pending, request)
    }

    /// enroll/complete against a pending enrollment the caller kept (and consumed: a pending
    /// enrollment completes at most once).
    public func completeEnrollment(
        _ pending: PendingEnrollment, _ request: ThresholdMessage.EnrollCompleteRequest
    ) throws
        -> (ThresholdMessage.EnrollCompleteResponse, ServerKeyShare)
    {
        let (sid, initRequest, x2) = (pending.sid, pending.request, pending.x2)
        guard
            initRequest.commitmentQ1.opens(
                pid: initRequest.clientPID, nonce: initRequest.clientNonce, label: "keygen/Q1",
                payload: request.q1.compressed, blind: request.blind)
        else {
            throw ThresholdError.commitmentMismatch("Q1")
        }
        guard request.proofQ1.verify(statement: request.q1, sid: sid, label: "keygen/Q1", pid: initRequest.clientPID)
        else {
            throw ThresholdError.proofRejected("the proof of x1")
        }
        try request.proofN.verify(n: request.paillierN, sid: sid)
        let paillier = try PaillierPublicKey.validated(request.paillierN)
        // N is p·q with p ≡ q ≡ 3 (mod 4) (Π^mod, with NiCorrectKey for square-freeness) and
        // neither factor is below 2^255 (Π^fac under this server's Ñ): a modulus with a small
        // prime factor (BitForge: N0 = p·P·Q, Enc(x1 + N0/p)) would leak v mod p per signature.
        try request.proofMod.verify(n: paillier.n, sid: sid)
        try request.proofFac.verify(
            n0: paillier.n, ringPedersen: ringPedersen.parameters, sid: sid, pid: initRequest.clientPID)
        try paillier.validateCiphertext(request.ckey)
        let statement = PDLProof.Statement(
            paillier: paillier, ciphertext: request.ckey, point: request.q1, ringPedersen: ringPedersen.parameters)
        try request.proofPDL.verify(statement, sid: sid, pid: initRequest.clientPID)
        let q = try request.q1.multiplied(by: x2)
        let keyID = Transcript.taggedHash("L17v1/key-id", [sid, q.compressed])
        let share = ServerKeyShare(
            pool: RandomizerPool(publicKey: paillier), keyID: keyID, clientPID: initRequest.clientPID, x2: x2,
            q1: request.q1, publicKey: q,
            paillier: paillier, ckey: request.ckey)
        return (.init(keyID: keyID, publicKey: q), share)
    }

    // MARK: Signing

    /// sign/commit without keeping anything: the answer and the committed state (holding the
    /// nonce share k2) for the caller to keep until `prove`.
    public func commitSigning(
        _ share: ServerKeyShare, _ request: ThresholdMessage.SignCommitRequest
    ) throws
        -> (ThresholdMessage.SignCommitResponse, SigningSessionState.Committed)
    {
        guard request.keyID == share.keyID else { throw ThresholdError.unexpectedMessage("another key") }
        guard request.clientNonce.count == 32, request.digest.count == 32, request.commitmentR1.value.count == 32 else {
            throw ThresholdError.unexpectedMessage("sign/commit fields have the wrong sizes")
        }
        let serverNonce = try random.bytes(32, label: "sign.server_nonce")
        let k2 = try random.nonZeroInteger(below: P256.order, label: "sign.k2")
        let r2 = try P256.multiplyGenerator(k2)
        let sid = Transcript.sessionID(
            phase: "sign", clientPID: share.clientPID, serverPID: pid, keyID: share.keyID,
            clientNonce: request.clientNonce, serverNonce: serverNonce,
            extra: [request.digest, request.commitmentR1.value])
        let proof = try SchnorrProof.prove(
            secret: k2, statement: r2, sid: sid, label: "sign/R2", pid: pid, random: random)
        return (.init(serverNonce: serverNonce, r2: r2, proofR2: proof), .init(sid: sid, request: request, k2: k2))
    }

    /// The first half of sign/prove: opens the device's commitment to R1, checks its proof of
    /// k1 and returns r. Reveals nothing: the caller moves the session to PROVED (consuming k2)
    /// before `serverCiphertext`, so only the request that wins that move gets a c3.
    public func checkProve(
        _ share: ServerKeyShare, _ committed: SigningSessionState.Committed,
        _ request: ThresholdMessage.SignProveRequest
    ) throws -> BigInt {
        let commit = committed.request
        let payload = Transcript.lengthPrefixed([share.keyID, commit.digest, request.r1.compressed])
        guard
            commit.commitmentR1.opens(
                pid: share.clientPID, nonce: commit.clientNonce, label: "sign/R1", payload: payload,
                blind: request.blind)
        else {
            throw ThresholdError.commitmentMismatch("R1")
        }
        guard request.proofR1.verify(statement: request.r1, sid: committed.sid, label: "sign/R1", pid: share.clientPID)
        else {
            throw ThresholdError.proofRejected("the proof of k1")
        }
        let r = try request.r1.multiplied(by: committed.k2).x.modulo(P256.order)
        guard !r.isZero else { throw ThresholdError.invalidScalar("r = 0") }
        return r
    }

    /// The second half of sign/prove: c3 for r under the committed k2 (call once per k2).
    public func serverCiphertext(
        _ share: ServerKeyShare, _ committed: SigningSessionState.Committed, r: BigInt
    ) throws -> ThresholdMessage.SignProveResponse {
        let m = BigInt(bytes: committed.request.digest).modulo(P256.order)
        return .init(
            c3: try TwoPartySigning.serverCiphertext(
                message: m, r: r, k2: committed.k2, x2: share.x2, ckey: share.ckey,
                publicKey: share.paillier, random: random, pool: share.pool))
    }

    /// sign/finish's check: the device's signature has the session's r and verifies under the
    /// key for `digest`. Throws `signatureCheckFailed` otherwise (the caller locks the key).
    public static func checkFinish(
        _ share: ServerKeyShare, digest: [UInt8], r: BigInt?, _ request: ThresholdMessage.SignFinishRequest
    ) throws -> (r: BigInt, s: BigInt) {
        guard let signature = request.signature, r.map({ $0 == signature.r }) ?? true,
            TwoPartySigning.verify(
                r: signature.r, s: signature.s, digest: try .init(algorithm: .sha256, bytes: Data(digest)),
                publicKey: share.publicKey)
        else {
            throw ThresholdError.signatureCheckFailed
        }
        return signature
    }

    public func signCommit(
        _ share: ServerKeyShare, _ request: ThresholdMessage.SignCommitRequest
    ) throws -> ThresholdMessage.SignCommitResponse {
        let (response, committed) = try commitSigning(share, request)
        try lock.withLock {
            guard !locked.contains(share.keyID) else { throw ThresholdError.shareLocked }
            let now = Date()
            switch signings[share.keyID] {
            case .committed(_, let deadline)? where deadline < now:
                signings[share.keyID] = .finished  // abandoned before prove: k2 dropped
            case .proved(_, _, _, let deadline)? where deadline < now:
                // A c3 went out and no finish came back: expired, not locked (see sessionLifetime).
                signings[share.keyID] = .finished
            case .committed?, .proving?, .proved?:
                throw ThresholdError.unexpectedMessage("another signing session for this key is open")
            default:
                break
            }
            // A client nonce is good for one session per key: a replayed commit is refused.
            guard !(usedClientNonces[share.keyID]?.contains(request.clientNonce) ?? false) else {
                throw ThresholdError.unexpectedMessage("sign/commit replayed")
            }
            usedClientNonces[share.keyID, default: []].insert(request.clientNonce)
            signings[share.keyID] = .committed(committed, deadline: now.addingTimeInterval(sessionLifetime))
        }
        return response
    }

    public func signProve(
        _ share: ServerKeyShare, _ request: ThresholdMessage.SignProveRequest
    ) throws -> ThresholdMessage.SignProveResponse {
        // COMMITTED → PROVED atomically: a second prove finds PROVED and is refused.
        let committed = try lock.withLock { () throws -> SigningSessionState.Committed in
            guard case .committed(let committed, let deadline)? = signings[share.keyID] else {
                throw ThresholdError.unexpectedMessage("sign/prove without a committed session (or a second prove)")
            }
            guard deadline >= Date() else {
                signings[share.keyID] = .finished
                throw ThresholdError.unexpectedMessage("the signing session expired")
            }
            signings[share.keyID] = .proving(deadline: deadline)
            return committed
        }
        // Any failure before c3 goes out ends the session (no c3 was computed for this k2).
        let c3: ThresholdMessage.SignProveResponse, r: BigInt
        do {
            r = try checkProve(share, committed, request)
            c3 = try serverCiphertext(share, committed, r: r)
        } catch {
            lock.withLock { signings[share.keyID] = .finished }
            throw error
        }
        try lock.withLock {
            guard case .proving(let deadline)? = signings[share.keyID] else {
                throw ThresholdError.unexpectedMessage("the session changed while c3 was computed")
            }
            signings[share.keyID] = .proved(sid: committed.sid, request: committed.request, r: r, deadline: deadline)
        }
        return c3
    }

    /// Ends a COMMITTED session before any c3 exists (the device's PIN was wrong, or the person
    /// declined): k2 is dropped, the key stays usable. Refused once prove has started.
    /// The digest of the key's open signing session (committed or proved), if one is open: the
    /// service checks it is the session's before prove and finish, so a step sent to one session
    /// cannot ride on another session of the same key.
    public func openSessionDigest(_ keyID: [UInt8]) -> [UInt8]? {
        lock.withLock {
            switch signings[keyID] {
            case .committed(let committed, _)?: committed.request.digest
            case .proved(_, let request, _, _)?: request.digest
            default: nil
            }
        }
    }

    /// Ends the key's open session, whatever step it is at, without locking: the device says it
    /// never decrypted a c3 (the answer to `prove` was lost, or the co-signer restarted). k2 is
    /// dropped, so the session cannot be proved again (never a second c3 for one k2); a prove
    /// still computing finds its session gone and does not hand out its c3.
    public func signAbandon(_ share: ServerKeyShare) {
        lock.withLock {
            switch signings[share.keyID] {
            case .committed?, .proving?, .proved?: signings[share.keyID] = .finished
            default: break
            }
        }
    }

    public func signCancel(_ share: ServerKeyShare) throws {
        try lock.withLock {
            guard case .committed? = signings[share.keyID] else {
                throw ThresholdError.unexpectedMessage("only a committed session can be cancelled")
            }
            signings[share.keyID] = .finished
        }
    }

    /// Re-verifies the signature under Q and checks its r; a failure report or a bad signature
    /// locks the key for review.
    public func signFinish(
        _ share: ServerKeyShare, _ request: ThresholdMessage.SignFinishRequest
    ) throws -> (r: BigInt, s: BigInt) {
        let (commit, r) = try lock.withLock { () throws -> (ThresholdMessage.SignCommitRequest, BigInt) in
            guard case .proved(_, let commit, let r, _)? = signings[share.keyID] else {
                throw ThresholdError.unexpectedMessage("sign/finish without a proved session")
            }
            signings[share.keyID] = .finished
            return (commit, r)
        }
        do {
            return try Self.checkFinish(share, digest: commit.digest, r: r, request)
        } catch {
            _ = lock.withLock { locked.insert(share.keyID) }
            throw error
        }
    }
}
