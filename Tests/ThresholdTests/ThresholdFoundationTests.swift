import Foundation
import TamgaCore
import XCTest

@testable import Threshold

/// A tape of bytes for deterministic tests: returns SHA-256-expanded bytes of a seed and the
/// label, so the same label sequence gives the same values.
struct SeededRandom: RandomSource {
    let seed: String
    func bytes(_ count: Int, label: String) throws -> [UInt8] {
        Transcript.expandMessageXMD(
            Array((seed + "/" + label + "/\(Self.counter.next())").utf8), domain: Array("tamga-test-rng".utf8),
            length: count)
    }
    final class Counter: @unchecked Sendable {  // unchecked: the lock guards `value`
        private let lock = NSLock()
        private var value = 0
        func next() -> Int {
            lock.withLock {
                value += 1
                return value
            }
        }
    }
    static let counter = Counter()
}

final class TranscriptTests: XCTestCase {
    func testExpandMessageXMDMatchesRFC9380AppendixK1() {
        let dst = Array("QUUX-V01-CS02-with-expander-SHA256-128".utf8)
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        XCTAssertEqual(
            hex(Transcript.expandMessageXMD([], domain: dst, length: 32)),
            "68a985b87eb6b46952128911f2a4412bbc302a9d759667f87f7a21d803f07235")
        XCTAssertEqual(
            hex(Transcript.expandMessageXMD(Array("abc".utf8), domain: dst, length: 32)),
            "d8ccab23b5985ccea865c6c97b6e5b8350e794e603b4b97902f53a8a0d605615")
        XCTAssertEqual(
            hex(Transcript.expandMessageXMD(Array("abcdef0123456789".utf8), domain: dst, length: 32)),
            "eff31487c770a893cfb36f912fbfcbff40d5661771ca4b2cb4eafe524333f5c1")
        XCTAssertEqual(
            String(hex(Transcript.expandMessageXMD([], domain: dst, length: 0x80)).prefix(64)),
            "af84c27ccfd45d41914fdff5df25293e221afc53d8ad2ac06d5e3e29485dadbe")
    }

    func testLengthPrefixingIsInjective() {
        // The α-shuffle of TSSHOCK: ("ab","c") and ("a","bc") must not hash alike.
        XCTAssertNotEqual(
            Transcript.taggedHash("t", [Array("ab".utf8), Array("c".utf8)]),
            Transcript.taggedHash("t", [Array("a".utf8), Array("bc".utf8)]))
        XCTAssertEqual(Transcript.lengthPrefixed([[1, 2], []]), [0, 0, 0, 2, 1, 2, 0, 0, 0, 0])
    }

    func testCommitmentsOpenOnlyToWhatWasCommitted() {
        let pid = [UInt8](repeating: 1, count: 32), nonce = [UInt8](repeating: 2, count: 32),
            blind = [UInt8](repeating: 3, count: 32)
        let commitment = Commitment(pid: pid, nonce: nonce, label: "keygen/Q1", payload: [9, 9], blind: blind)
        XCTAssertTrue(commitment.opens(pid: pid, nonce: nonce, label: "keygen/Q1", payload: [9, 9], blind: blind))
        XCTAssertFalse(commitment.opens(pid: pid, nonce: nonce, label: "keygen/Q1", payload: [9, 8], blind: blind))
        XCTAssertFalse(
            commitment.opens(
                pid: pid, nonce: nonce, label: "keygen/Q1", payload: [9, 9], blind: [UInt8](repeating: 4, count: 32)))
        XCTAssertFalse(commitment.opens(pid: pid, nonce: nonce, label: "sign/R1", payload: [9, 9], blind: blind))
    }
}

final class CurveTests: XCTestCase {
    func testGeneratorMultiplesMatchKnownValues() throws {
        XCTAssertEqual(
            try P256.multiplyGenerator(.one).x.hex, "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296")
        XCTAssertEqual(
            try P256.multiplyGenerator(BigInt(UInt(2))).x.hex,
            "7cf27b188d034f7e8a52380304b51ac3c08969e277f21b35a60b48fc47669978")
        let g = try P256.multiplyGenerator(.one)
        XCTAssertEqual(try g + g, try P256.multiplyGenerator(BigInt(UInt(2))))
        XCTAssertThrowsError(try P256.multiplyGenerator(P256.order), "q·G is the identity")
    }

    func testPointDecodingRejectsNonCanonicalInput() throws {
        let g = try P256.multiplyGenerator(.one).compressed
        XCTAssertNoThrow(try Point(compressed: g))
        XCTAssertThrowsError(try Point(compressed: [0x04] + Array(g.dropFirst())), "prefix 04")
        XCTAssertThrowsError(try Point(compressed: Array(g.dropLast())), "32 bytes")
        XCTAssertThrowsError(try Point(compressed: [0x02] + P256.prime.bytes(width: 32)!), "x = p")
        // x = 1 has no point on P-256 (1 − 3 + b is a quadratic non-residue mod p).
        XCTAssertThrowsError(try Point(compressed: [0x02] + [UInt8](repeating: 0, count: 31) + [1]), "off the curve")
        XCTAssertThrowsError(try Scalar.decode(P256.order.bytes(width: 32)!), "q is not a scalar")
    }
}

final class SchnorrProofTests: XCTestCase {
    let sid = [UInt8](repeating: 7, count: 32), pid = [UInt8](repeating: 8, count: 32)

    func testAValidProofVerifiesAndEveryBindingMatters() throws {
        let random = SystemRandom()
        let x = try random.nonZeroInteger(below: P256.order, label: "x")
        let statement = try P256.multiplyGenerator(x)
        let proof = try SchnorrProof.prove(
            secret: x, statement: statement, sid: sid, label: "keygen/Q2", pid: pid, random: random)
        XCTAssertTrue(proof.verify(statement: statement, sid: sid, label: "keygen/Q2", pid: pid))
        XCTAssertEqual(try SchnorrProof(encoded: proof.encoded), proof)
        XCTAssertFalse(
            proof.verify(statement: statement, sid: [UInt8](repeating: 6, count: 32), label: "keygen/Q2", pid: pid),
            "another session")
        XCTAssertFalse(proof.verify(statement: statement, sid: sid, label: "keygen/Q1", pid: pid), "another label")
        XCTAssertFalse(proof.verify(statement: statement, sid: sid, label: "keygen/Q2", pid: sid), "another prover")
        XCTAssertFalse(
            proof.verify(statement: try P256.multiplyGenerator(x + 1), sid: sid, label: "keygen/Q2", pid: pid),
            "another statement")
        let tampered = SchnorrProof(commitment: proof.commitment, response: (proof.response + 1).modulo(P256.order))
        XCTAssertFalse(tampered.verify(statement: statement, sid: sid, label: "keygen/Q2", pid: pid))
        XCTAssertThrowsError(
            try SchnorrProof(encoded: proof.commitment.compressed + P256.order.bytes(width: 32)!), "z ≥ q")
    }
}

final class PaillierTests: XCTestCase {
    static let key: PaillierSecretKey = try! PaillierSecretKey.generate(random: SystemRandom())

    func testGeneratedKeyHasTheRequiredForm() {
        let key = Self.key
        XCTAssertEqual(key.publicKey.n.bitWidth, 2048)
        XCTAssertEqual(key.p.remainder(dividingBy: 4), 3)
        XCTAssertEqual(key.q.remainder(dividingBy: 4), 3)
        XCTAssertNoThrow(try PaillierPublicKey.validated(key.publicKey.n))
    }

    func testEncryptDecryptAndHomomorphicOperations() throws {
        let key = Self.key, pk = key.publicKey, random = SystemRandom()
        let a = try random.integer(below: P256.order, label: "a"), b = try random.integer(below: P256.order, label: "b")
        let ca = try pk.encrypt(a, random: random, label: "r"), cb = try pk.encrypt(b, random: random, label: "r")
        XCTAssertEqual(try key.decrypt(ca), a)
        XCTAssertEqual(try key.decrypt(pk.add(ca, cb)), a + b)
        XCTAssertEqual(try key.decrypt(pk.multiply(ca, by: b)), a * b)
        XCTAssertNotEqual(try pk.encrypt(a, random: random, label: "r"), ca, "encryption is randomised")
    }

    func testInvalidCiphertextsAndModuliAreRefused() throws {
        let key = Self.key, pk = key.publicKey
        XCTAssertThrowsError(try pk.validateCiphertext(.zero))
        XCTAssertThrowsError(try pk.validateCiphertext(pk.nSquared))
        XCTAssertThrowsError(try pk.validateCiphertext(key.p * BigInt(UInt(5))), "shares the factor p")
        XCTAssertThrowsError(try key.decrypt(key.q))
        // A 2047-bit modulus, and a 2048-bit one with the small factor 6373.
        XCTAssertThrowsError(try PaillierPublicKey.validated(pk.n / BigInt(UInt(2)))) {
            guard case ThresholdError.invalidPaillierModulus(let why)? = $0 as? ThresholdError else {
                return XCTFail("\($0)")
            }
            XCTAssertTrue(why.contains("2047 bits"), why)
        }
        // 6373 · p · r with r prime: exactly 2048 bits, odd, no factor below 6373.
        let factor = BigInt(UInt(6373)) * key.p
        var r = BigInt.one.shiftedLeft(2047) / factor + 1  // the smallest r with 2048 bits
        if !r.isOdd { r = r + 1 }
        while !r.isProbablePrime(rounds: 20) { r = r + 2 }
        let withSmallFactor = factor * r
        XCTAssertEqual(withSmallFactor.bitWidth, 2048)
        XCTAssertThrowsError(try PaillierPublicKey.validated(withSmallFactor)) {
            XCTAssertEqual($0 as? ThresholdError, .invalidPaillierModulus("divisible by 6373"))
        }
    }
}

/// The Lindell 2017 arithmetic end to end (no messages yet): both shares, the server's c3, the
/// client's (r, s), checked by OpenSSL's ECDSA verification against the joint key.
final class TwoPartySigningTests: XCTestCase {
    func testJointSignaturesVerifyWithOpenSSL() throws {
        let random = SystemRandom(), q = P256.order
        let key = PaillierTests.key
        let x1 = try random.nonZeroInteger(below: q, label: "keygen.x1"),
            x2 = try random.nonZeroInteger(below: q, label: "keygen.x2")
        let q1 = try P256.multiplyGenerator(x1), q2 = try P256.multiplyGenerator(x2)
        let joint = try q2.multiplied(by: x1)
        XCTAssertEqual(joint, try q1.multiplied(by: x2), "x1·Q2 = x2·Q1")
        let ckey = try key.publicKey.encrypt(x1, random: random, label: "paillier.r_key")
        for index in 0..<20 {
            let digest = Digest.compute(.sha256, over: Data("document \(index)".utf8))
            let m = BigInt(bytes: digest.bytes).modulo(q)
            let k1 = try random.nonZeroInteger(below: q, label: "sign.k1"),
                k2 = try random.nonZeroInteger(below: q, label: "sign.k2")
            let r1 = try P256.multiplyGenerator(k1), r2 = try P256.multiplyGenerator(k2)
            let rServer = try r1.multiplied(by: k2), rClient = try r2.multiplied(by: k1)
            XCTAssertEqual(rServer, rClient)
            let r = rClient.x.modulo(q)
            let c3 = try TwoPartySigning.serverCiphertext(
                message: m, r: r, k2: k2, x2: x2, ckey: ckey, publicKey: key.publicKey, random: random)
            let signature = try TwoPartySigning.clientSignature(c3: c3, r: r, k1: k1, secretKey: key)
            XCTAssertTrue(
                TwoPartySigning.verify(r: signature.r, s: signature.s, digest: digest, publicKey: joint),
                "signature \(index)")
            XCTAssertLessThanOrEqual(signature.s, q / BigInt(UInt(2)), "low s")
            // A c3 bent by the server (one more ⊙ckey) gives a signature that does not verify.
            let bent = key.publicKey.add(c3, ckey)
            let wrong = try TwoPartySigning.clientSignature(c3: bent, r: r, k1: k1, secretKey: key)
            XCTAssertFalse(TwoPartySigning.verify(r: wrong.r, s: wrong.s, digest: digest, publicKey: joint))
        }
    }

    /// k1⁻¹ and k2⁻¹ are k^(q−2) mod q by `mpz_powm_sec` (the secret in the base), the same
    /// values `mpz_invert` gave, and never by a variable-time routine.
    func testNonceInversesAreFermatInConstantTimeAndEqualTheExtendedEuclidOnes() throws {
        let random = SystemRandom(), q = P256.order
        XCTAssertEqual(
            BigInt.powerRoutine(exponent: q - 2, modulus: q, secret: true), .constantTime,
            "q odd, q−2 positive: mpz_powm_sec")
        var values = [BigInt.one, BigInt(UInt(2)), q - 1, q - 2]
        for _ in 0..<500 { values.append(try random.nonZeroInteger(below: q, label: "test.k")) }
        for k in values {
            let before = BigInt.constantTimePowers.count
            let inverse = try XCTUnwrap(TwoPartySigning.nonceInverse(k))
            XCTAssertGreaterThan(BigInt.constantTimePowers.count, before, "the inverse of \(k) ran mpz_powm_sec")
            XCTAssertEqual(inverse, k.inverse(modulo: q), "\(k)")
            XCTAssertEqual((inverse * k).modulo(q), .one)
        }
        XCTAssertNil(TwoPartySigning.nonceInverse(.zero))
        XCTAssertNil(TwoPartySigning.nonceInverse(q), "a multiple of q has no inverse")
        // The helper refuses where mpz_powm_sec cannot run rather than fall back to mpz_powm.
        XCTAssertEqual(BigInt.powerRoutine(exponent: q - 2, modulus: q + 1, secret: true), .variableTime)
        XCTAssertNil(BigInt(UInt(3)).secretInverse(modulo: q + 1), "even modulus: no constant-time routine, no answer")
    }
}

final class PaillierModulusProofTests: XCTestCase {
    let sid = [UInt8](repeating: 0x5A, count: 32)

    func testTheKeyHolderProvesAndTheProofIsBoundToTheSession() throws {
        let key = PaillierTests.key
        let proof = try PaillierModulusProof.prove(secretKey: key, sid: sid)
        XCTAssertNoThrow(try proof.verify(n: key.publicKey.n, sid: sid))
        XCTAssertThrowsError(
            try proof.verify(n: key.publicKey.n, sid: [UInt8](repeating: 0x5B, count: 32)), "another session")
        XCTAssertThrowsError(
            try PaillierModulusProof(roots: Array(proof.roots.dropLast())).verify(n: key.publicKey.n, sid: sid),
            "10 roots")
        var bent = proof.roots
        bent[3] = bent[3] + 1
        XCTAssertThrowsError(try PaillierModulusProof(roots: bent).verify(n: key.publicKey.n, sid: sid), "a wrong root")
    }

    func testAModulusWithSquareFactorsCannotBeProven() throws {
        // N = p²·r has gcd(N, φ(N)) = p: no N-th roots exist for most ρ, and the prover cannot
        // even form the exponent.
        let key = PaillierTests.key
        let p = key.p
        var r = BigInt.one.shiftedLeft(2047) / (p * p) + 1
        if !r.isOdd { r = r + 1 }
        while !r.isProbablePrime(rounds: 20) { r = r + 2 }
        let n = p * p * r
        let phi = p * (p - 1) * (r - 1)
        XCTAssertNil(n.inverse(modulo: phi))
        // A forger who submits roots of its own choosing fails the verifier's check.
        let fake = PaillierModulusProof(roots: (0..<11).map { BigInt(UInt($0 + 2)) })
        XCTAssertThrowsError(try fake.verify(n: n, sid: sid))
    }
}

final class RangeProofTests: XCTestCase {
    static let ringPedersen: RingPedersenSecret = try! RingPedersenSecret.generate(random: SystemRandom())
    let sid = [UInt8](repeating: 0x33, count: 32), client = [UInt8](repeating: 0xC1, count: 32),
        server = [UInt8](repeating: 0x5E, count: 32)

    func testRingPedersenParametersComeWithAProofTheClientChecks() throws {
        let secret = Self.ringPedersen
        let proof = try RingPedersenProof.prove(secret, pid: server, random: SystemRandom())
        XCTAssertNoThrow(try proof.verify(secret.parameters, pid: server))
        XCTAssertThrowsError(try proof.verify(secret.parameters, pid: client), "bound to the server's identity")
        XCTAssertThrowsError(
            try RingPedersenProof(
                commitments: Array(proof.commitments.dropLast()), responses: Array(proof.responses.dropLast())
            )
            .verify(secret.parameters, pid: server), "the round count is a constant, not the prover's choice")
        // 128 binary rounds (2^-128; 80 could be ground offline); 80-round proofs are refused.
        XCTAssertEqual(proof.commitments.count, 128)
        XCTAssertThrowsError(
            try RingPedersenProof(
                commitments: Array(proof.commitments.prefix(80)), responses: Array(proof.responses.prefix(80))
            )
            .verify(secret.parameters, pid: server), "80 rounds")
        // s outside ⟨t⟩: a random unit the prover knows no λ for.
        let forged = RingPedersenParameters(n: secret.parameters.n, s: secret.parameters.s + 2, t: secret.parameters.t)
        XCTAssertThrowsError(try proof.verify(forged, pid: server))
    }

    func testPDLProvesTheEnrolledCiphertextEncryptsTheShare() throws {
        let random = SystemRandom(), key = PaillierTests.key
        let x1 = try random.nonZeroInteger(below: P256.order, label: "keygen.x1")
        let rho = try key.publicKey.randomizer(random, label: "paillier.r_key")
        let ckey = key.publicKey.encrypt(x1, randomizer: rho)
        let statement = PDLProof.Statement(
            paillier: key.publicKey, ciphertext: ckey, point: try P256.multiplyGenerator(x1),
            ringPedersen: Self.ringPedersen.parameters)
        let proof = try PDLProof.prove(statement, x: x1, rho: rho, sid: sid, pid: client, random: random)
        XCTAssertNoThrow(try proof.verify(statement, sid: sid, pid: client))
        XCTAssertThrowsError(
            try proof.verify(statement, sid: [UInt8](repeating: 0x34, count: 32), pid: client), "another session")

        // The ciphertext of another value (x1 + 1) under the same point: no honest proof exists,
        // and a proof made with the wrong witness fails.
        let other = key.publicKey.encrypt(x1 + 1, randomizer: rho)
        let lying = PDLProof.Statement(
            paillier: key.publicKey, ciphertext: other, point: statement.point, ringPedersen: statement.ringPedersen)
        let forged = try PDLProof.prove(lying, x: x1, rho: rho, sid: sid, pid: client, random: random)
        XCTAssertThrowsError(try forged.verify(lying, sid: sid, pid: client))

        // Every response field tampered in turn is rejected.
        let big = BigInt.one.shiftedLeft(PDLProof.l + PDLProof.epsilon + 1)
        let variants = [
            PDLProof(s: proof.s, a: proof.a, y: proof.y, d: proof.d, z1: proof.z1 + 1, z2: proof.z2, z3: proof.z3),
            PDLProof(s: proof.s, a: proof.a, y: proof.y, d: proof.d, z1: big, z2: proof.z2, z3: proof.z3),
            PDLProof(
                s: proof.s, a: proof.a, y: proof.y, d: proof.d, z1: proof.z1,
                z2: (proof.z2 + 1).modulo(key.publicKey.n), z3: proof.z3),
            PDLProof(s: proof.s, a: proof.a, y: proof.y, d: proof.d, z1: proof.z1, z2: proof.z2, z3: proof.z3 + 1),
            PDLProof(
                s: (proof.s * proof.s).modulo(statement.ringPedersen.n), a: proof.a, y: proof.y, d: proof.d,
                z1: proof.z1, z2: proof.z2, z3: proof.z3),
            PDLProof(
                s: proof.s, a: proof.a, y: try proof.y + proof.y, d: proof.d, z1: proof.z1, z2: proof.z2, z3: proof.z3),
            PDLProof(
                s: proof.s, a: key.publicKey.add(proof.a, ckey), y: proof.y, d: proof.d, z1: proof.z1, z2: proof.z2,
                z3: proof.z3),
            PDLProof(
                s: proof.s, a: proof.a, y: proof.y, d: (proof.d * BigInt(UInt(2))).modulo(statement.ringPedersen.n),
                z1: proof.z1, z2: proof.z2, z3: proof.z3),
        ]
        for (index, variant) in variants.enumerated() {
            XCTAssertThrowsError(try variant.verify(statement, sid: sid, pid: client), "variant \(index)")
        }
    }
}
