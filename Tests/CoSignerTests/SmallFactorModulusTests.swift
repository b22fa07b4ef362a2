import CoSigner
import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

/// The small-factor regression: a malicious device enrolls a modulus `N0 = p·P·Q` with a prime
/// p of about 20 bits (BitForge: with `Enc(x1 + N0/p)` every later signature would leak
/// `v mod p`). It produces every proof it honestly can — NiCorrectKey (gcd(N0, φ(N0)) = 1 holds),
/// Π^log*, Π^fac for the split `(p·P, Q)` (both halves near √N0) — and the best Π^mod it can
/// (a fourth root wherever one exists). The co-signer over HTTP, with its SQLite store, refuses
/// the enrollment with 422 `threshold-proof-rejected`, because of Π^mod.
final class SmallFactorModulusTests: CoSignerHTTPTestCase {
    /// A random prime ≡ 3 (mod 4) of exactly `bits` bits (top two set), by GMP's test.
    static func blumPrime(bits: Int) throws -> BigInt {
        let random = SystemRandom()
        while true {
            var candidate =
                try random.integer(below: BigInt.one.shiftedLeft(bits - 2), label: "test.prime")
                + BigInt(UInt(3)).shiftedLeft(bits - 2)
            candidate = candidate - BigInt(UInt(candidate.remainder(dividingBy: 4))) + BigInt(UInt(3))
            for _ in 0..<20_000 where candidate.bitWidth == bits {
                if candidate.isProbablePrime(rounds: 30) { return candidate }
                candidate = candidate + 4
            }
        }
    }

    /// The three primes: p of 20 bits, P and Q so that N0 has exactly 2048 bits.
    static func threePrimeModulus() throws -> (small: BigInt, big1: BigInt, big2: BigInt, n: BigInt) {
        var small = BigInt(UInt((1 << 19) + 3))
        while !small.isProbablePrime(rounds: 30) { small = small + 4 }
        while true {
            let big1 = try blumPrime(bits: 1014), big2 = try blumPrime(bits: 1015)
            let n = small * big1 * big2
            if n.bitWidth == 2048 { return (small, big1, big2, n) }
        }
    }

    /// The best Π^mod a prover with three prime factors can make: in each round, an (a, b)
    /// that makes y' a residue modulo all three primes if one exists (about half the rounds),
    /// and its fourth root by CRT; otherwise any answer.
    static func bestEffortBlumProof(primes: [BigInt], n: BigInt, sid: [UInt8]) throws -> PaillierBlumProof {
        let random = SystemRandom()
        var w: BigInt
        repeat { w = try random.nonZeroInteger(below: n, label: "test.w") } while w.jacobi(n) != -1
        var roots: [BigInt] = [], aBits: [Bool] = [], bBits: [Bool] = []
        for y in PaillierBlumProof.challenges(n: n, w: w, sid: sid) {
            var answer: (BigInt, Bool, Bool) = (.one, false, false)
            search: for a in [false, true] {
                for b in [false, true] {
                    let withW = b ? (y * w).modulo(n) : y
                    let target = a ? (n - withW).modulo(n) : withW
                    guard primes.allSatisfy({ target.modulo($0).jacobi($0) == 1 }) else { continue }
                    // Fourth roots modulo each prime, joined by CRT.
                    var root = BigInt.zero, modulus = BigInt.one
                    for prime in primes {
                        let quarter = (prime + 1) / BigInt(UInt(4))
                        let local = target.modulo(prime).power(
                            (quarter * quarter).modulo(prime - 1), modulo: prime, exponentIsSecret: false)
                        // root ≡ root (mod modulus), ≡ local (mod prime)
                        let inverse = try XCTUnwrap(modulus.inverse(modulo: prime))
                        let step = ((local + prime - root.modulo(prime)) * inverse).modulo(prime)
                        root = root + modulus * step
                        modulus = modulus * prime
                    }
                    answer = (root, a, b)
                    break search
                }
            }
            roots.append(answer.0)
            aBits.append(answer.1)
            bBits.append(answer.2)
        }
        return PaillierBlumProof(w: w, roots: roots, a: aBits, b: bBits)
    }

    func testAModulusWithATwentyBitFactorIsRefusedAtEnrollment() async throws {
        let (small, big1, big2, n0) = try Self.threePrimeModulus()
        XCTAssertEqual(small.bitWidth, 20)
        XCTAssertNoThrow(try PaillierPublicKey.validated(n0), "the old form checks let this modulus through")

        let code = try service.store.issueEnrollmentCode(documentNumber: "38001085718")
        let device = try newDevice()
        let client = ThresholdClient(server: URL(string: base)!, transport: transport, attestation: device)
        let random = SystemRandom()
        let pid = Transcript.taggedHash("device", [Array("malicious".utf8)])
        let nonce = try random.bytes(32, label: "test.nonce"), blind = try random.bytes(32, label: "test.blind")
        let x1 = try random.nonZeroInteger(below: P256.order, label: "test.x1")
        let q1 = try P256.multiplyGenerator(x1)
        let initRequest = ThresholdMessage.EnrollInitRequest(
            clientPID: pid, clientNonce: nonce,
            commitmentQ1: Commitment(pid: pid, nonce: nonce, label: "keygen/Q1", payload: q1.compressed, blind: blind))
        let first = try await client.call(
            "POST", "v3/enrollment/init", ["code": code, "role": "sign", "message": WireFormat.encode(initRequest)])
        let m1 = try XCTUnwrap(first["message"] as? [String: Any])
        let initResponse = try WireFormat.decodeEnrollInitResponse(
            m1.compactMapValues { $0 as? String }, m1.compactMapValues { $0 as? [String] })
        let sid = Transcript.sessionID(
            phase: "keygen", clientPID: pid, serverPID: initResponse.serverPID, keyID: [],
            clientNonce: nonce, serverNonce: initResponse.serverNonce)

        let paillier = PaillierPublicKey(n: n0)
        let rho = try paillier.randomizer(random, label: "test.rho")
        let ckey = paillier.encrypt(x1, randomizer: rho)
        let statement = PDLProof.Statement(
            paillier: paillier, ciphertext: ckey, point: q1, ringPedersen: initResponse.ringPedersen)
        let request = ThresholdMessage.EnrollCompleteRequest(
            q1: q1, blind: blind,
            proofQ1: try SchnorrProof.prove(
                secret: x1, statement: q1, sid: sid, label: "keygen/Q1", pid: pid, random: random),
            paillierN: n0, ckey: ckey,
            proofN: try PaillierModulusProof.prove(n: n0, phi: (small - 1) * (big1 - 1) * (big2 - 1), sid: sid),
            proofMod: try Self.bestEffortBlumProof(primes: [small, big1, big2], n: n0, sid: sid),
            proofFac: try NoSmallFactorProof.prove(
                n0: n0, p: small * big1, q: big2, ringPedersen: initResponse.ringPedersen, sid: sid, pid: pid,
                random: random),
            proofPDL: try PDLProof.prove(statement, x: x1, rho: rho, sid: sid, pid: pid, random: random))

        // Every proof but Π^mod holds for this modulus: without Π^mod the enrollment passed.
        XCTAssertNoThrow(try request.proofN.verify(n: n0, sid: sid), "NiCorrectKey")
        XCTAssertNoThrow(try request.proofPDL.verify(statement, sid: sid, pid: pid), "Π^log*")
        XCTAssertNoThrow(
            try request.proofFac.verify(n0: n0, ringPedersen: initResponse.ringPedersen, sid: sid, pid: pid),
            "Π^fac alone: the split (p·P, Q) has two halves of fitting size")
        XCTAssertThrowsError(try request.proofMod.verify(n: n0, sid: sid)) {
            XCTAssertTrue("\($0)".contains("Π^mod: round"), "\($0)")
        }

        let (object, lists) = try WireFormat.encode(request)
        var message: [String: Any] = object
        for (key, value) in lists { message[key] = value }
        do {
            _ = try await client.call(
                "POST", "v3/enrollment/complete",
                [
                    "code": code, "role": "sign", "clientNonce": WireFormat.hex(nonce),
                    "deviceKey": WireFormat.hex(Array(device.key.subjectPublicKeyInfo)), "message": message,
                ])
            XCTFail("the co-signer enrolled a modulus with a 20-bit factor")
        } catch CoreError.serviceRefused(_, _, let status, let code, let text) {
            XCTAssertEqual(status, 422)
            XCTAssertEqual(code, "threshold-proof-rejected")
            XCTAssertTrue(text.contains("Π^mod"), text)
        }
        // Nothing was stored and the code is still usable for an honest enrollment.
        XCTAssertEqual(try service.store.database.query("SELECT COUNT(*) FROM keys", []).first?.first?.integer, 0)
        XCTAssertNotNil(try service.store.enrollmentCode(code, allows: .sign))
    }
}
