import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import Threshold

/// A guard in memory with the file guard's transitions (the file-backed one is tested separately).
final class MemoryGuard: ShareGuard, @unchecked Sendable {  // unchecked: `stateLock` guards `state`
    private let stateLock = NSLock()
    private var state = "ready"
    var current: String { stateLock.withLock { state } }
    func isLocked() throws -> Bool { stateLock.withLock { state != "ready" } }
    func markInFlight() throws {
        try stateLock.withLock {
            guard state == "ready" else { throw ThresholdError.shareLocked }
            state = "in-flight"
        }
    }
    func clearInFlight() throws {
        try stateLock.withLock {
            guard state == "in-flight" else { throw ThresholdError.shareLocked }
            state = "ready"
        }
    }
    func lock() throws { stateLock.withLock { state = "locked" } }
    func reset() throws { stateLock.withLock { state = "ready" } }
}

/// Enrollment and signing between the two parties over message values, every check exercised.
final class PartyTests: XCTestCase {
    static let clientPID = Transcript.taggedHash("test/pid", [Array("device".utf8)])
    static let serverPID = Transcript.taggedHash("test/pid", [Array("co-signer".utf8)])
    static let server: ServerParty = try! ServerParty(pid: serverPID, ringPedersen: RangeProofTests.ringPedersen)
    static let enrolled: (ClientKeyShare, ServerKeyShare) = try! enroll()

    static func enroll() throws -> (ClientKeyShare, ServerKeyShare) {
        let client = try ClientEnrollment(pid: clientPID)
        let initResponse = try server.enrollInit(client.initRequest)
        let complete = try client.complete(initResponse)
        let (response, serverShare) = try server.enrollComplete(clientNonce: client.initRequest.clientNonce, complete)
        return (try client.finish(response), serverShare)
    }

    static func sign(
        _ text: String, client share: ClientKeyShare, server serverShare: ServerKeyShare, guard guardian: ShareGuard,
        bend: ((BigInt) -> BigInt)? = nil
    ) throws -> (r: BigInt, s: BigInt) {
        let digest = Array(Digest.compute(.sha256, over: Data(text.utf8)).bytes)
        let signing = try ClientSigning(share: share.publicShare, digest: digest, guard: guardian)
        let commit = try Self.server.signCommit(serverShare, signing.commitRequest)
        let prove = try signing.prove(commit)
        var response = try Self.server.signProve(serverShare, prove)
        if let bend { response = .init(c3: bend(response.c3)) }
        do {
            let signature = try signing.finish(response, secretKey: share.secretKey)
            _ = try Self.server.signFinish(serverShare, .init(signature: signature))
            return signature
        } catch {
            _ = try? Self.server.signFinish(serverShare, .init(signature: nil))
            throw error
        }
    }

    func testEnrolledKeySignsAndOpenSSLVerifiesEverySignature() throws {
        let (client, server) = Self.enrolled
        XCTAssertEqual(client.publicKey, server.publicKey)
        let guardian = MemoryGuard()
        for index in 0..<10 {
            let signature = try Self.sign("document \(index)", client: client, server: server, guard: guardian)
            XCTAssertTrue(
                TwoPartySigning.verify(
                    r: signature.r, s: signature.s,
                    digest: Digest.compute(.sha256, over: Data("document \(index)".utf8)),
                    publicKey: client.publicKey))
        }
        XCTAssertEqual(guardian.current, "ready")
        // The openssl command line, separately: the joint key as a PEM public key, the signature in DER.
        let folder = try TestEnvironment.temporaryFolder("threshold")
        defer { TestEnvironment.removeFolder(folder) }
        let message = Data("checked by openssl".utf8)
        let signature = try Self.sign("checked by openssl", client: client, server: server, guard: guardian)
        let der = try ECDSASignature.der(
            fromRaw: Data(signature.r.bytes(width: 32)! + signature.s.bytes(width: 32)!), curve: .p256)
        let spki = TwoPartySigning.subjectPublicKeyInfo(client.publicKey)
        try message.write(to: folder.appendingPathComponent("m"))
        try der.write(to: folder.appendingPathComponent("sig"))
        try spki.write(to: folder.appendingPathComponent("key.der"))
        let result = try TestEnvironment.run(
            "/usr/bin/openssl",
            [
                "dgst", "-sha256", "-keyform", "DER", "-verify", folder.appendingPathComponent("key.der").path,
                "-signature", folder.appendingPathComponent("sig").path, folder.appendingPathComponent("m").path,
            ])
        XCTAssertTrue(result.output.contains("Verified OK"), result.output + result.error)
    }

    func testEveryTamperedEnrollmentFieldIsRefused() throws {
        func attempt(
            _ change: (ThresholdMessage.EnrollCompleteRequest) throws -> ThresholdMessage.EnrollCompleteRequest
        ) throws -> Error? {
            let client = try ClientEnrollment(pid: Self.clientPID)
            let complete = try change(client.complete(try Self.server.enrollInit(client.initRequest)))
            do {
                _ = try Self.server.enrollComplete(clientNonce: client.initRequest.clientNonce, complete)
                return nil
            } catch { return error }
        }
        let other = try P256.multiplyGenerator(BigInt(UInt(12345)))
        func with(
            _ r: ThresholdMessage.EnrollCompleteRequest, q1: Point? = nil, blind: [UInt8]? = nil, n: BigInt? = nil,
            ckey: BigInt? = nil,
            proofN: PaillierModulusProof? = nil, proofMod: PaillierBlumProof? = nil,
            proofFac: NoSmallFactorProof? = nil,
            proofPDL: PDLProof? = nil, proofQ1: SchnorrProof? = nil
        ) -> ThresholdMessage.EnrollCompleteRequest {
            .init(
                q1: q1 ?? r.q1, blind: blind ?? r.blind, proofQ1: proofQ1 ?? r.proofQ1, paillierN: n ?? r.paillierN,
                ckey: ckey ?? r.ckey,
                proofN: proofN ?? r.proofN, proofMod: proofMod ?? r.proofMod, proofFac: proofFac ?? r.proofFac,
                proofPDL: proofPDL ?? r.proofPDL)
        }
        let cases:
            [(String, (ThresholdMessage.EnrollCompleteRequest) throws -> ThresholdMessage.EnrollCompleteRequest)] = [
                ("another Q1", { with($0, q1: other) }),
                ("another blind", { with($0, blind: [UInt8](repeating: 9, count: 32)) }),
                (
                    "a proof of x1 for another statement",
                    { r in
                        with(
                            r,
                            proofQ1: SchnorrProof(
                                commitment: r.proofQ1.commitment, response: (r.proofQ1.response + 1).modulo(P256.order))
                        )
                    }
                ),
                ("N of 2047 bits", { r in with(r, n: r.paillierN / BigInt(UInt(2))) }),
                (
                    "an N proof with a wrong root",
                    { r in
                        var roots = r.proofN.roots
                        roots[0] = roots[0] + 1
                        return with(r, proofN: PaillierModulusProof(roots: roots))
                    }
                ),
                (
                    "a Π^mod with a wrong fourth root",
                    { r in
                        var roots = r.proofMod.roots
                        roots[5] = roots[5] + 1
                        return with(
                            r,
                            proofMod: PaillierBlumProof(w: r.proofMod.w, roots: roots, a: r.proofMod.a, b: r.proofMod.b)
                        )
                    }
                ),
                (
                    "a Π^mod with a flipped sign bit",
                    { r in
                        var a = r.proofMod.a
                        a[7].toggle()
                        return with(
                            r,
                            proofMod: PaillierBlumProof(w: r.proofMod.w, roots: r.proofMod.roots, a: a, b: r.proofMod.b)
                        )
                    }
                ),
                (
                    "a Π^fac with z1 changed",
                    { r in
                        let f = r.proofFac
                        return with(
                            r,
                            proofFac: NoSmallFactorProof(
                                commitmentP: f.commitmentP, commitmentQ: f.commitmentQ, commitmentA: f.commitmentA,
                                commitmentB: f.commitmentB,
                                commitmentT: f.commitmentT, sigma: f.sigma, z1: f.z1 + 1, z2: f.z2, w1: f.w1, w2: f.w2,
                                v: f.v))
                    }
                ),
                ("ckey not a unit", { r in with(r, ckey: BigInt.zero) }),
                (
                    "ckey of another value",
                    { r in
                        with(
                            r,
                            ckey: PaillierPublicKey(n: r.paillierN).add(
                                r.ckey, PaillierPublicKey(n: r.paillierN).encrypt(.one, randomizer: BigInt(UInt(7)))))
                    }
                ),
                (
                    "a PDL with z1 over its bound",
                    { r in
                        let p = r.proofPDL
                        return with(
                            r,
                            proofPDL: PDLProof(
                                s: p.s, a: p.a, y: p.y, d: p.d, z1: BigInt.one.shiftedLeft(800), z2: p.z2, z3: p.z3))
                    }
                ),
            ]
        for (name, change) in cases {
            XCTAssertNotNil(try attempt(change), name)
        }
        // A replayed complete is refused: the session was consumed.
        let client = try ClientEnrollment(pid: Self.clientPID)
        let complete = try client.complete(try Self.server.enrollInit(client.initRequest))
        _ = try Self.server.enrollComplete(clientNonce: client.initRequest.clientNonce, complete)
        XCTAssertThrowsError(try Self.server.enrollComplete(clientNonce: client.initRequest.clientNonce, complete))
        XCTAssertThrowsError(try Self.server.enrollInit(client.initRequest), "a replayed init")
    }

    func testTheClientRefusesUnpinnedRingPedersenParameters() throws {
        let client = try ClientEnrollment(pid: Self.clientPID, pinnedRingPedersen: [UInt8](repeating: 0, count: 32))
        XCTAssertThrowsError(try client.complete(try Self.server.enrollInit(client.initRequest))) {
            guard case ThresholdError.proofRejected(let why)? = $0 as? ThresholdError else { return XCTFail("\($0)") }
            XCTAssertTrue(why.contains("pinned"), why)
        }
        let pinned = try ClientEnrollment(
            pid: Self.clientPID, pinnedRingPedersen: RangeProofTests.ringPedersen.parameters.fingerprint)
        XCTAssertNoThrow(try pinned.complete(try Self.server.enrollInit(pinned.initRequest)))
    }

    func testSigningSessionsAreSingleUseAndSequential() throws {
        let (client, server) = try Self.enroll()
        let digest = Array(Digest.compute(.sha256, over: Data("x".utf8)).bytes)
        let first = try ClientSigning(share: client.publicShare, digest: digest, guard: MemoryGuard())
        let commit = try Self.server.signCommit(server, first.commitRequest)
        let second = try ClientSigning(share: client.publicShare, digest: digest, guard: MemoryGuard())
        XCTAssertThrowsError(try Self.server.signCommit(server, second.commitRequest), "one open session per key")
        let prove = try first.prove(commit)
        _ = try Self.server.signProve(server, prove)
        XCTAssertThrowsError(try Self.server.signProve(server, prove), "never a second c3 for one k2")
        // The client reports a failure: the server locks the key for review and opens no new session.
        _ = try? Self.server.signFinish(server, .init(signature: nil))
        let third = try ClientSigning(share: client.publicShare, digest: digest, guard: MemoryGuard())
        XCTAssertThrowsError(try Self.server.signCommit(server, third.commitRequest)) {
            XCTAssertEqual($0 as? ThresholdError, .shareLocked)
        }
    }

    func testAProveWhoseR1DoesNotOpenTheCommitmentIsRefused() throws {
        let (client, server) = try Self.enroll()
        let signing = try ClientSigning(
            share: client.publicShare, digest: [UInt8](repeating: 3, count: 32), guard: MemoryGuard())
        let prove = try signing.prove(try Self.server.signCommit(server, signing.commitRequest))
        let other = ThresholdMessage.SignProveRequest(
            r1: try P256.multiplyGenerator(BigInt(UInt(5))), blind: prove.blind, proofR1: prove.proofR1)
        XCTAssertThrowsError(try Self.server.signProve(server, other)) {
            XCTAssertEqual($0 as? ThresholdError, .commitmentMismatch("R1"))
        }
    }

    func testTheClientChecksTheServersNonceProof() throws {
        let (client, server) = try Self.enroll()
        let signing = try ClientSigning(
            share: client.publicShare, digest: [UInt8](repeating: 1, count: 32), guard: MemoryGuard())
        let commit = try Self.server.signCommit(server, signing.commitRequest)
        let forged = ThresholdMessage.SignCommitResponse(
            serverNonce: commit.serverNonce, r2: try P256.multiplyGenerator(BigInt(UInt(99))), proofR2: commit.proofR2)
        XCTAssertThrowsError(try signing.prove(forged))
    }

    /// Why terminal abort matters: a malicious server that bends c3 to test a guess about the
    /// client's secret learns one bit from whether the signature works — and is stopped at once,
    /// because the first failure locks the share.
    func testAMaliciousServerIsStoppedAfterItsFirstFailedSignature() throws {
        let (client, server) = try Self.enroll()
        let folder = try TestEnvironment.temporaryFolder("share-guard")
        defer { TestEnvironment.removeFolder(folder) }
        let guardian = ShareStateFile(path: folder.appendingPathComponent("share.state").path)
        _ = try Self.sign("honest", client: client, server: server, guard: guardian)
        XCTAssertThrowsError(
            try Self.sign(
                "bent", client: client, server: server, guard: guardian,
                bend: { client.secretKey.publicKey.add($0, client.ckey) })
        ) {
            XCTAssertEqual($0 as? ThresholdError, .signatureCheckFailed)
        }
        XCTAssertTrue(try guardian.isLocked())
        XCTAssertEqual(try String(contentsOfFile: guardian.path, encoding: .utf8), "locked\n")
        XCTAssertThrowsError(
            try ClientSigning(share: client.publicShare, digest: [UInt8](repeating: 2, count: 32), guard: guardian)
        ) {
            XCTAssertEqual($0 as? ThresholdError, .shareLocked, "no second guess")
        }
        // A c3 that decrypts out of the honest range is a failure too.
        let fresh = ShareStateFile(path: folder.appendingPathComponent("other.state").path)
        let (client2, server2) = try Self.enroll()
        XCTAssertThrowsError(
            try Self.sign(
                "huge", client: client2, server: server2, guard: fresh,
                bend: { c3 in
                    client2.secretKey.publicKey.add(
                        c3,
                        client2.secretKey.publicKey.encrypt(BigInt.one.shiftedLeft(1500), randomizer: BigInt(UInt(3))))
                }))
        XCTAssertTrue(try fresh.isLocked())
    }

    func testAnInterruptedSignatureFoundAfterACrashLocksTheShare() throws {
        let folder = try TestEnvironment.temporaryFolder("share-guard")
        defer { TestEnvironment.removeFolder(folder) }
        let guardian = ShareStateFile(path: folder.appendingPathComponent("share.state").path)
        XCTAssertFalse(try guardian.isLocked())
        try guardian.markInFlight()  // the process died after c3 arrived
        XCTAssertTrue(try ShareStateFile(path: guardian.path).isLocked())
    }
}

/// Signing messages tampered field by field, the BitForge-style parity attack against an
/// un-aborting client, and many random signatures.
final class SigningAttackTests: XCTestCase {
    func testEveryTamperedSigningFieldIsRefusedAndAfterC3TheShareLocks() throws {
        let (client, server) = try PartyTests.enroll()
        let digest = [UInt8](repeating: 0x42, count: 32)
        let party = PartyTests.server

        // commit request fields (server side)
        let signing = try ClientSigning(share: client.publicShare, digest: digest, guard: MemoryGuard())
        let commit = signing.commitRequest
        for bad in [
            ThresholdMessage.SignCommitRequest(
                keyID: [UInt8](repeating: 0, count: 32), clientNonce: commit.clientNonce, digest: commit.digest,
                commitmentR1: commit.commitmentR1),
            ThresholdMessage.SignCommitRequest(
                keyID: commit.keyID, clientNonce: [1], digest: commit.digest, commitmentR1: commit.commitmentR1),
            ThresholdMessage.SignCommitRequest(
                keyID: commit.keyID, clientNonce: commit.clientNonce, digest: [1, 2], commitmentR1: commit.commitmentR1),
            ThresholdMessage.SignCommitRequest(
                keyID: commit.keyID, clientNonce: commit.clientNonce, digest: commit.digest,
                commitmentR1: Commitment(value: [1])),
        ] {
            XCTAssertThrowsError(try party.signCommit(server, bad))
        }
        // commit response fields (client side): another nonce changes the session id, so the proof fails.
        let response = try party.signCommit(server, commit)
        let otherPoint = try P256.multiplyGenerator(BigInt(UInt(77)))
        for bad in [
            ThresholdMessage.SignCommitResponse(
                serverNonce: [UInt8](repeating: 0, count: 32), r2: response.r2, proofR2: response.proofR2),
            ThresholdMessage.SignCommitResponse(
                serverNonce: response.serverNonce, r2: otherPoint, proofR2: response.proofR2),
            ThresholdMessage.SignCommitResponse(
                serverNonce: response.serverNonce, r2: response.r2,
                proofR2: SchnorrProof(commitment: otherPoint, response: response.proofR2.response)),
        ] {
            XCTAssertThrowsError(
                try ClientSigning(share: client.publicShare, digest: digest, guard: MemoryGuard()).prove(bad))
        }
        // prove request fields (server side): a blind that does not open the commitment ends the
        // session (no c3 is ever computed for it).
        let prove = try signing.prove(response)
        XCTAssertThrowsError(
            try party.signProve(
                server,
                ThresholdMessage.SignProveRequest(
                    r1: prove.r1, blind: [UInt8](repeating: 1, count: 32), proofR1: prove.proofR1)))
        XCTAssertThrowsError(try party.signProve(server, prove), "the session is over")

        // prove response (client side): c3 out of range, sharing a factor with N, decrypting out
        // of range, or making the signature fail: each locks the share.
        let pk = client.secretKey.publicKey
        let bends: [(String, (BigInt) -> BigInt)] = [
            ("zero", { _ in .zero }),
            ("N²", { _ in pk.nSquared }),
            ("a multiple of p", { _ in client.secretKey.p }),
            (
                "out of the honest range",
                { pk.add($0, pk.encrypt(BigInt.one.shiftedLeft(1400), randomizer: BigInt(UInt(3)))) }
            ),
            ("a wrong signature", { pk.add($0, pk.encrypt(.one, randomizer: BigInt(UInt(3)))) }),
        ]
        for (name, bend) in bends {
            let (client2, server2) = try PartyTests.enroll()
            let guardian = MemoryGuard()
            XCTAssertThrowsError(
                try PartyTests.sign("x", client: client2, server: server2, guard: guardian, bend: bend), name)
            XCTAssertEqual(guardian.current, "locked", name)
        }
    }

    /// BitForge (CVE-2023-33242) against Lindell 2017: the server adds `(q·2^-k mod N) ⊙ ckey`
    /// to c3. The result decrypts to `s' + q·x1·2^-k (mod N)`, a valid signature exactly when
    /// 2^k divides x1, so each signing answers one guess about x1's low bits. Without terminal
    /// abort the server would learn x1 bit by bit; with it, the first failure locks the share.
    func testTheParityAttackGetsNoFurtherThanItsFirstFailure() throws {
        let (client, server) = try PartyTests.enroll()
        let pk = client.secretKey.publicKey
        let guardian = MemoryGuard()
        var leaked = 0
        for k in 1...8 {
            let twoToMinusK = BigInt(UInt(1) << UInt(k)).inverse(modulo: pk.n)!
            let t = (P256.order * twoToMinusK).modulo(pk.n)
            do {
                _ = try PartyTests.sign(
                    "attack \(k)", client: client, server: server, guard: guardian,
                    bend: { pk.add($0, pk.multiply(client.ckey, by: t)) })
                leaked += 1  // the signature worked: the server learnt that 2^k divides x1
            } catch {
                XCTAssertEqual(guardian.current, "locked")
                break
            }
        }
        var trailingZeros = 0
        while trailingZeros < 8 && !client.x1.bit(trailingZeros) { trailingZeros += 1 }
        XCTAssertEqual(leaked, min(trailingZeros, 8), "each success is exactly one true guess")
        if leaked < 8 {
            XCTAssertThrowsError(
                try ClientSigning(share: client.publicShare, digest: [UInt8](repeating: 9, count: 32), guard: guardian)
            ) {
                XCTAssertEqual($0 as? ThresholdError, .shareLocked, "no second failed guess")
            }
        }
    }

    func testManyRandomSignaturesAllVerify() throws {
        let (client, server) = try PartyTests.enroll()
        let count = Int(ProcessInfo.processInfo.environment["TAMGA_THRESHOLD_SIGNINGS"] ?? "") ?? 1000
        try server.pool.fill(count, random: SystemRandom())
        let guardian = MemoryGuard()
        for index in 0..<count {
            let signature = try PartyTests.sign(
                "random \(index) \(UUID().uuidString)", client: client, server: server, guard: guardian)
            XCTAssertTrue(signature.s <= P256.order / BigInt(UInt(2)))
        }
        XCTAssertEqual(guardian.current, "ready")
    }
}

/// Findings of the security review, each pinned by a test.
final class ReviewRegressionTests: XCTestCase {
    /// Two sessions started while the share was ready: after A's failure locks the share, B's
    /// honest c3 must not be decrypted nor unlock the share.
    func testASecondSessionCannotUndoALock() throws {
        let (client, server) = try PartyTests.enroll()
        let folder = try TestEnvironment.temporaryFolder("guard")
        defer { TestEnvironment.removeFolder(folder) }
        let guardian = ShareStateFile(path: folder.appendingPathComponent("s.state").path)
        // A malicious server runs two sessions at once (a second party object on the same share).
        let other = try ServerParty(pid: PartyTests.serverPID, ringPedersen: RangeProofTests.ringPedersen)
        func open(_ text: String, on party: ServerParty) throws -> (ClientSigning, ThresholdMessage.SignProveResponse) {
            let signing = try ClientSigning(
                share: client.publicShare, digest: Array(Digest.compute(.sha256, over: Data(text.utf8)).bytes),
                guard: guardian)
            let prove = try signing.prove(party.signCommit(server, signing.commitRequest))
            return (signing, try party.signProve(server, prove))
        }
        let (a, c3a) = try open("A", on: PartyTests.server)
        let (b, c3b) = try open("B", on: other)  // both began while the share was ready
        let pk = client.secretKey.publicKey
        XCTAssertThrowsError(
            try a.finish(
                .init(c3: pk.add(c3a.c3, pk.encrypt(.one, randomizer: BigInt(UInt(3))))), secretKey: client.secretKey))
        XCTAssertTrue(try guardian.isLocked())
        XCTAssertThrowsError(try b.finish(c3b, secretKey: client.secretKey)) {
            XCTAssertEqual($0 as? ThresholdError, .shareLocked, "B's honest c3 is not even decrypted")
        }
        XCTAssertEqual(try String(contentsOfFile: guardian.path, encoding: .utf8), "locked\n", "and the lock stays")
        _ = try? PartyTests.server.signFinish(server, .init(signature: nil))
        _ = try? other.signFinish(server, .init(signature: nil))
    }

    func testAbandonedAndUnfinishedSessionsEndWithoutLockingAndReplayedCommitsAreRefused() throws {
        let server = try ServerParty(
            pid: PartyTests.serverPID, ringPedersen: RangeProofTests.ringPedersen, sessionLifetime: 0.3)
        let client = try ClientEnrollment(pid: PartyTests.clientPID)
        let complete = try client.complete(try server.enrollInit(client.initRequest))
        let (response, share) = try server.enrollComplete(clientNonce: client.initRequest.clientNonce, complete)
        let clientShare = try client.finish(response)
        // Abandoned after commit: after the lifetime, a new commit is accepted.
        let first = try ClientSigning(
            share: clientShare.publicShare, digest: [UInt8](repeating: 1, count: 32), guard: MemoryGuard())
        _ = try server.signCommit(share, first.commitRequest)
        XCTAssertThrowsError(
            try server.signCommit(
                share,
                try ClientSigning(
                    share: clientShare.publicShare, digest: [UInt8](repeating: 2, count: 32), guard: MemoryGuard()
                ).commitRequest))
        usleep(400_000)
        let second = try ClientSigning(
            share: clientShare.publicShare, digest: [UInt8](repeating: 3, count: 32), guard: MemoryGuard())
        let commit = try server.signCommit(share, second.commitRequest)
        // The same commit request again later: refused as a replay.
        _ = try server.signProve(share, second.prove(commit))
        // A c3 went out and no finish came: after the lifetime the session ends without locking
        // the key (a lost answer or a restart looks the same to the server).
        usleep(400_000)
        let third = try ClientSigning(
            share: clientShare.publicShare, digest: [UInt8](repeating: 4, count: 32), guard: MemoryGuard())
        let thirdCommit = try server.signCommit(share, third.commitRequest)
        // Abandoned by the device (its c3 never arrived): the session ends at once, unlocked,
        // and it cannot be proved any more (never a second c3 for one k2).
        let thirdProve = try third.prove(thirdCommit)
        _ = try server.signProve(share, thirdProve)
        server.signAbandon(share)
        XCTAssertThrowsError(try server.signProve(share, thirdProve))
        let fourth = try ClientSigning(
            share: clientShare.publicShare, digest: [UInt8](repeating: 6, count: 32), guard: MemoryGuard())
        XCTAssertNoThrow(try server.signCommit(share, fourth.commitRequest), "no lock, no session left open")
    }

    func testAReplayedCommitIsRefused() throws {
        let (client, server) = try PartyTests.enroll()
        let signing = try ClientSigning(
            share: client.publicShare, digest: [UInt8](repeating: 5, count: 32), guard: MemoryGuard())
        let commit = try PartyTests.server.signCommit(server, signing.commitRequest)
        let prove = try signing.prove(commit)
        let c3 = try PartyTests.server.signProve(server, prove)
        let signature = try signing.finish(c3, secretKey: client.secretKey)
        _ = try PartyTests.server.signFinish(server, .init(signature: signature))
        XCTAssertThrowsError(try PartyTests.server.signCommit(server, signing.commitRequest)) {
            XCTAssertEqual($0 as? ThresholdError, .unexpectedMessage("sign/commit replayed"))
        }
    }

    func testPresignNeedsNoPINAndTheStoreChecksItsPublicPart() async throws {
        let hardening = InProcessPINHardening()
        let root = try TestEnvironment.temporaryFolder("presign")
        defer { TestEnvironment.removeFolder(root) }
        let (client, server) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "presign", root: root)
        try await store.store(client, role: .sign, pin: SecretBytes(Array("24680".utf8)), hardening: hardening)
        // commit and prove from the public part only…
        let signing = try ClientSigning(
            share: try store.publicShare(.sign), digest: [UInt8](repeating: 6, count: 32),
            guard: store.shareGuard(.sign))
        let c3 = try PartyTests.server.signProve(
            server, signing.prove(PartyTests.server.signCommit(server, signing.commitRequest)))
        // …the PIN only at finish.
        let unlocked = try await store.unlock(.sign, pin: SecretBytes(Array("24680".utf8)), hardening: hardening)
        _ = try PartyTests.server.signFinish(
            server, .init(signature: try signing.finish(c3, secretKey: unlocked.secretKey)))
        // A public part changed on disk (another joint key) is caught at unlock.
        let publicFile = store.folder.appendingPathComponent("sign.public")
        var text = try String(contentsOf: publicFile, encoding: .utf8)
        let other = Transcript.taggedHash("x", []).prefix(0)
        _ = other
        let otherKey = try P256.multiplyGenerator(BigInt(UInt(424242))).compressed.map { String(format: "%02x", $0) }
            .joined()
        let currentKey = client.publicKey.compressed.map { String(format: "%02x", $0) }.joined()
        text = text.replacingOccurrences(of: currentKey, with: otherKey)
        try text.write(to: publicFile, atomically: true, encoding: .utf8)
        await assertThrowsAsync({
            _ = try await store.unlock(.sign, pin: SecretBytes(Array("24680".utf8)), hardening: hardening)
        }) {
            guard case ThresholdError.keyStore(let why)? = $0 as? ThresholdError else { return XCTFail("\($0)") }
            XCTAssertTrue(why.contains("does not match"), why)
        }
    }

    func testParallelWrongPINsAreEachCounted() async throws {
        let hardening = InProcessPINHardening()
        let root = try TestEnvironment.temporaryFolder("parallel")
        defer { TestEnvironment.removeFolder(root) }
        let (client, _) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "parallel", root: root)
        try await store.store(client, role: .auth, pin: SecretBytes(Array("1234".utf8)), hardening: hardening)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    _ = try? await store.verifyPIN(.auth, pin: SecretBytes(Array("0000".utf8)), hardening: hardening)
                }
            }
        }
        XCTAssertEqual(
            try String(contentsOf: store.folder.appendingPathComponent("auth.pin-failures"), encoding: .utf8), "4\n")
        // An unreadable counter counts as exhausted (fail closed).
        try "garbage".write(
            to: store.folder.appendingPathComponent("auth.pin-failures"), atomically: true, encoding: .utf8)
        await assertThrowsAsync({
            try await store.verifyPIN(.auth, pin: SecretBytes(Array("1234".utf8)), hardening: hardening)
        }) { XCTAssertEqual($0 as? ThresholdError, .shareLocked) }
    }
}
