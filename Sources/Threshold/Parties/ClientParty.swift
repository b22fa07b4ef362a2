import FoundationEssentials
import Glibc
import TamgaCore

/// The public part of the device's share: all that commit and prove need (the seed's presign
/// runs without the PIN), loaded from the key store without unlocking anything.
public struct ClientPublicShare: Sendable, Equatable {
    public let keyID: [UInt8]
    public let clientPID: [UInt8]
    public let serverPID: [UInt8]
    public let publicKey: Point
    public let q2: Point
    public let ckey: BigInt
}

/// What the device keeps after enrollment. `secretKey` (the Paillier key) and `x1` are the
/// secrets the key store encrypts under the PIN; the rest is public.
public struct ClientKeyShare: Sendable {
    public let keyID: [UInt8]
    public let clientPID: [UInt8]
    public let serverPID: [UInt8]
    public let publicKey: Point
    public let q2: Point
    public let ckey: BigInt
    public let x1: BigInt
    public let secretKey: PaillierSecretKey

    public var publicShare: ClientPublicShare {
        ClientPublicShare(
            keyID: keyID, clientPID: clientPID, serverPID: serverPID, publicKey: publicKey, q2: q2, ckey: ckey)
    }
}

/// The client party (P1) of enrollment: commit to Q1, check the server's Q2 proof and its
/// ring-Pedersen parameters (their Π^prm on first contact; afterwards the pinned fingerprint
/// of parameters already verified), then prove N (NiCorrectKey, Π^mod, and Π^fac under the
/// server's parameters: no small factor, against BitForge's N = p·P·Q) and the PDL.
public final class ClientEnrollment {
    let pid: [UInt8]
    let random: RandomSource
    let pinnedRingPedersen: [UInt8]?
    private let nonce: [UInt8]
    private let x1: BigInt
    private let q1: Point
    private let blind: [UInt8]
    private var pending: (serverPID: [UInt8], q2: Point, secretKey: PaillierSecretKey, ckey: BigInt)?

    public init(pid: [UInt8], pinnedRingPedersen: [UInt8]? = nil, random: RandomSource = SystemRandom()) throws {
        self.pid = pid
        self.random = random
        self.pinnedRingPedersen = pinnedRingPedersen
        nonce = try random.bytes(32, label: "keygen.client_nonce")
        x1 = try random.nonZeroInteger(below: P256.order, label: "keygen.x1")
        q1 = try P256.multiplyGenerator(x1)
        blind = try random.bytes(32, label: "keygen.blind_Q1")
    }

    public var initRequest: ThresholdMessage.EnrollInitRequest {
        .init(
            clientPID: pid, clientNonce: nonce,
            commitmentQ1: Commitment(pid: pid, nonce: nonce, label: "keygen/Q1", payload: q1.compressed, blind: blind))
    }

    public func complete(
        _ response: ThresholdMessage.EnrollInitResponse
    ) throws -> ThresholdMessage.EnrollCompleteRequest {
        guard pending == nil else { throw ThresholdError.unexpectedMessage("enroll/init answered twice") }
        guard response.serverPID.count == 32, response.serverNonce.count == 32 else {
            throw ThresholdError.unexpectedMessage("enroll/init response sizes")
        }
        let sid = Transcript.sessionID(
            phase: "keygen", clientPID: pid, serverPID: response.serverPID, keyID: [],
            clientNonce: nonce, serverNonce: response.serverNonce)
        guard response.proofQ2.verify(statement: response.q2, sid: sid, label: "keygen/Q2", pid: response.serverPID)
        else {
            throw ThresholdError.proofRejected("the proof of x2")
        }
        if let pinnedRingPedersen {
            // Pinned: these are the parameters whose Π^prm this device verified before.
            guard pinnedRingPedersen == response.ringPedersen.fingerprint else {
                throw ThresholdError.proofRejected("the server's ring-Pedersen parameters are not the pinned ones")
            }
            try response.ringPedersen.validate()
        } else {
            // First contact: verify Π^prm (128 rounds, most of an enrollment's time); the caller
            // pins `response.ringPedersen.fingerprint` for next time.
            try response.ringPedersenProof.verify(response.ringPedersen, pid: response.serverPID)
        }
        let secretKey = try PaillierSecretKey.generate(random: random)
        let rho = try secretKey.publicKey.randomizer(random, label: "paillier.r_key")
        let ckey = secretKey.publicKey.encrypt(x1, randomizer: rho)
        let statement = PDLProof.Statement(
            paillier: secretKey.publicKey, ciphertext: ckey, point: q1, ringPedersen: response.ringPedersen)
        let request = ThresholdMessage.EnrollCompleteRequest(
            q1: q1, blind: blind,
            proofQ1: try SchnorrProof.prove(
                secret: x1, statement: q1, sid: sid, label: "keygen/Q1", pid: pid, random: random),
            paillierN: secretKey.publicKey.n, ckey: ckey,
            proofN: try PaillierModulusProof.prove(secretKey: secretKey, sid: sid),
            proofMod: try PaillierBlumProof.prove(secretKey: secretKey, sid: sid, random: random),
            proofFac: try NoSmallFactorProof.prove(
                n0: secretKey.publicKey.n, p: secretKey.p, q: secretKey.q, ringPedersen: response.ringPedersen,
                sid: sid, pid: pid, random: random),
            proofPDL: try PDLProof.prove(statement, x: x1, rho: rho, sid: sid, pid: pid, random: random))
        pending = (response.serverPID, response.q2, secretKey, ckey)
        return request
    }

    /// Checks the server's joint key against x1·Q2.
    public func finish(_ response: ThresholdMessage.EnrollCompleteResponse) throws -> ClientKeyShare {
        guard let pending else { throw ThresholdError.unexpectedMessage("enroll/complete answered before init") }
        guard try pending.q2.multiplied(by: x1) == response.publicKey else {
            throw ThresholdError.proofRejected("the joint public key is not x1·Q2")
        }
        return ClientKeyShare(
            keyID: response.keyID, clientPID: pid, serverPID: pending.serverPID, publicKey: response.publicKey,
            q2: pending.q2, ckey: pending.ckey, x1: x1, secretKey: pending.secretKey)
    }
}

/// The client party (P1) of one signature: commit → prove need no secret (the seed's presign);
/// `finish` takes the Paillier key (unlocked by the PIN) and the server's c3. From the moment
/// c3 is handled, any failure locks the share through the guard.
public final class ClientSigning {
    let share: ClientPublicShare
    let digest: [UInt8]
    let guardian: ShareGuard
    let random: RandomSource
    private let nonce: [UInt8]
    private var k1: BigInt?
    private let r1: Point
    private let blind: [UInt8]
    private var r: BigInt?

    public init(
        share: ClientPublicShare, digest: [UInt8], guard guardian: ShareGuard, random: RandomSource = SystemRandom()
    ) throws {
        guard digest.count == 32 else { throw ThresholdError.unexpectedMessage("the digest must be 32 bytes") }
        guard try !guardian.isLocked() else { throw ThresholdError.shareLocked }
        self.share = share
        self.digest = digest
        self.guardian = guardian
        self.random = random
        nonce = try random.bytes(32, label: "sign.client_nonce")
        let k1 = try random.nonZeroInteger(below: P256.order, label: "sign.k1")
        self.k1 = k1
        r1 = try P256.multiplyGenerator(k1)
        blind = try random.bytes(32, label: "sign.blind_R1")
    }

    private var commitment: Commitment {
        Commitment(
            pid: share.clientPID, nonce: nonce, label: "sign/R1",
            payload: Transcript.lengthPrefixed([share.keyID, digest, r1.compressed]), blind: blind)
    }

    public var commitRequest: ThresholdMessage.SignCommitRequest {
        .init(keyID: share.keyID, clientNonce: nonce, digest: digest, commitmentR1: commitment)
    }

    public func prove(_ response: ThresholdMessage.SignCommitResponse) throws -> ThresholdMessage.SignProveRequest {
        guard let k1, r == nil else { throw ThresholdError.unexpectedMessage("sign/commit answered twice") }
        guard response.serverNonce.count == 32 else {
            throw ThresholdError.unexpectedMessage("sign/commit response sizes")
        }
        let sid = Transcript.sessionID(
            phase: "sign", clientPID: share.clientPID, serverPID: share.serverPID, keyID: share.keyID,
            clientNonce: nonce, serverNonce: response.serverNonce, extra: [digest, commitment.value])
        guard response.proofR2.verify(statement: response.r2, sid: sid, label: "sign/R2", pid: share.serverPID) else {
            throw ThresholdError.proofRejected("the proof of k2")
        }
        let r = try response.r2.multiplied(by: k1).x.modulo(P256.order)
        guard !r.isZero else { throw ThresholdError.invalidScalar("r = 0") }
        self.r = r
        return .init(
            r1: r1, blind: blind,
            proofR1: try SchnorrProof.prove(
                secret: k1, statement: r1, sid: sid, label: "sign/R1", pid: share.clientPID, random: random))
    }

    /// Decrypts c3, assembles (r, s), verifies it under the joint key, and only then returns it.
    /// Any failure here locks the share (and k1 is dropped either way).
    public func finish(
        _ response: ThresholdMessage.SignProveResponse, secretKey: PaillierSecretKey
    ) throws -> (r: BigInt, s: BigInt) {
        guard let k1, let r else { throw ThresholdError.unexpectedMessage("sign/prove answered before commit") }
        self.k1 = nil
        // ready → in-flight, compare-and-set: a share locked (or another c3 being handled) since
        // this session began is not touched, and the c3 is never decrypted.
        try guardian.markInFlight()
        do {
            let signature = try TwoPartySigning.clientSignature(c3: response.c3, r: r, k1: k1, secretKey: secretKey)
            guard
                TwoPartySigning.verify(
                    r: signature.r, s: signature.s, digest: try Digest(algorithm: .sha256, bytes: Data(digest)),
                    publicKey: share.publicKey)
            else {
                throw ThresholdError.signatureCheckFailed
            }
            try guardian.clearInFlight()
            return signature
        } catch {
            try? guardian.lock()
            throw error
        }
    }
}
