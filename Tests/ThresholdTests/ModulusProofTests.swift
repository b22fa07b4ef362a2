import Foundation
import TamgaCore
import XCTest

@testable import Threshold

/// Π^mod (Paillier–Blum modulus) and Π^fac (no small factor), against BitForge: an honest key
/// proves, every binding matters, every tampered value and every bad modulus is refused.
final class PaillierBlumProofTests: XCTestCase {
    let sid = [UInt8](repeating: 0x6D, count: 32)

    func testTheKeyHolderProvesAndTheProofIsBoundToTheSessionAndTheModulus() throws {
        let key = PaillierTests.key
        let proof = try PaillierBlumProof.prove(secretKey: key, sid: sid, random: SystemRandom())
        XCTAssertEqual(proof.roots.count, 128)
        XCTAssertNoThrow(try proof.verify(n: key.publicKey.n, sid: sid))
        XCTAssertThrowsError(
            try proof.verify(n: key.publicKey.n, sid: [UInt8](repeating: 0x6E, count: 32)), "another session")
        let other = try PaillierSecretKey.generate(random: SystemRandom())
        XCTAssertThrowsError(try proof.verify(n: other.publicKey.n, sid: sid), "another modulus")
    }

    func testEveryTamperedValueIsRefused() throws {
        let key = PaillierTests.key, n = key.publicKey.n
        let proof = try PaillierBlumProof.prove(secretKey: key, sid: sid, random: SystemRandom())
        func refused(_ variant: PaillierBlumProof, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertThrowsError(try variant.verify(n: n, sid: sid), name, file: file, line: line) {
                guard case ThresholdError.proofRejected(let why)? = $0 as? ThresholdError else {
                    return XCTFail("\($0)", file: file, line: line)
                }
                XCTAssertTrue(why.hasPrefix("Π^mod"), why, file: file, line: line)
            }
        }
        var roots = proof.roots
        roots[17] = roots[17] + 1
        refused(PaillierBlumProof(w: proof.w, roots: roots, a: proof.a, b: proof.b), "a wrong fourth root")
        roots = proof.roots
        roots[3] = (n - roots[3])  // −x has the same fourth power: still valid, the proof is not unique in x
        XCTAssertNoThrow(try PaillierBlumProof(w: proof.w, roots: roots, a: proof.a, b: proof.b).verify(n: n, sid: sid))
        roots[3] = n
        refused(PaillierBlumProof(w: proof.w, roots: roots, a: proof.a, b: proof.b), "a root out of range")
        var a = proof.a
        a[0].toggle()
        refused(PaillierBlumProof(w: proof.w, roots: proof.roots, a: a, b: proof.b), "a flipped a bit")
        var b = proof.b
        b[127].toggle()
        refused(PaillierBlumProof(w: proof.w, roots: proof.roots, a: proof.a, b: b), "a flipped b bit")
        refused(
            PaillierBlumProof(
                w: proof.w, roots: Array(proof.roots.dropLast()), a: Array(proof.a.dropLast()),
                b: Array(proof.b.dropLast())),
            "127 rounds: the count is the suite's, not the prover's")
        // w with Jacobi symbol +1 (w² is a square), or w = N − 1 (−1, Jacobi +1 for a Blum N): refused before any round.
        refused(
            PaillierBlumProof(w: (proof.w * proof.w).modulo(n), roots: proof.roots, a: proof.a, b: proof.b),
            "w a square")
        refused(PaillierBlumProof(w: n - 1, roots: proof.roots, a: proof.a, b: proof.b), "w = −1")
        refused(PaillierBlumProof(w: .zero, roots: proof.roots, a: proof.a, b: proof.b), "w = 0")
    }

    func testAPrimeModulusIsRefused() throws {
        // A 2048-bit prime ≡ 3 (mod 4) has a fourth root for half of ±y and the rest is easy:
        // the verifier's primality check stops it first.
        var prime = BigInt.one.shiftedLeft(2047) + 3
        while !prime.isProbablePrime(rounds: 25) { prime = prime + 4 }
        let fake = PaillierBlumProof(
            w: BigInt(UInt(2)), roots: Array(repeating: .one, count: 128), a: Array(repeating: false, count: 128),
            b: Array(repeating: false, count: 128))
        XCTAssertThrowsError(try fake.verify(n: prime, sid: sid)) {
            XCTAssertTrue("\($0)".contains("prime"), "\($0)")
        }
    }
}

final class NoSmallFactorProofTests: XCTestCase {
    let sid = [UInt8](repeating: 0x46, count: 32), pid = [UInt8](repeating: 0xC1, count: 32)
    var parameters: RingPedersenParameters { RangeProofTests.ringPedersen.parameters }

    func testTheKeyHolderProvesUnderTheVerifiersParametersAndEveryBindingMatters() throws {
        let key = PaillierTests.key
        let proof = try NoSmallFactorProof.prove(
            n0: key.publicKey.n, p: key.p, q: key.q, ringPedersen: parameters, sid: sid, pid: pid,
            random: SystemRandom())
        XCTAssertNoThrow(try proof.verify(n0: key.publicKey.n, ringPedersen: parameters, sid: sid, pid: pid))
        XCTAssertThrowsError(
            try proof.verify(
                n0: key.publicKey.n, ringPedersen: parameters, sid: [UInt8](repeating: 0x47, count: 32), pid: pid),
            "another session")
        XCTAssertThrowsError(
            try proof.verify(
                n0: key.publicKey.n, ringPedersen: parameters, sid: sid, pid: [UInt8](repeating: 0xC2, count: 32)),
            "another prover")
        let swapped = RingPedersenParameters(n: parameters.n, s: parameters.t, t: parameters.s)
        XCTAssertThrowsError(
            try proof.verify(n0: key.publicKey.n, ringPedersen: swapped, sid: sid, pid: pid), "other parameters")
        let other = try PaillierSecretKey.generate(random: SystemRandom())
        XCTAssertThrowsError(
            try proof.verify(n0: other.publicKey.n, ringPedersen: parameters, sid: sid, pid: pid), "another modulus")
        // The proof fits its wire widths.
        XCTAssertLessThanOrEqual(proof.z1.bytes.count, NoSmallFactorProof.zBytes)
        XCTAssertLessThanOrEqual(proof.v.bytes.count, NoSmallFactorProof.vBytes)
        XCTAssertLessThanOrEqual(proof.sigma.bytes.count, NoSmallFactorProof.sigmaBytes)
        XCTAssertLessThanOrEqual(proof.w1.bytes.count, NoSmallFactorProof.wBytes)
    }

    func testEveryTamperedValueIsRefused() throws {
        let key = PaillierTests.key, n0 = key.publicKey.n, ntilde = parameters.n
        let f = try NoSmallFactorProof.prove(
            n0: n0, p: key.p, q: key.q, ringPedersen: parameters, sid: sid, pid: pid, random: SystemRandom())
        func variant(
            P: BigInt? = nil, Q: BigInt? = nil, A: BigInt? = nil, B: BigInt? = nil, T: BigInt? = nil,
            sigma: BigInt? = nil,
            z1: BigInt? = nil, z2: BigInt? = nil, w1: BigInt? = nil, w2: BigInt? = nil, v: BigInt? = nil
        ) -> NoSmallFactorProof {
            NoSmallFactorProof(
                commitmentP: P ?? f.commitmentP, commitmentQ: Q ?? f.commitmentQ, commitmentA: A ?? f.commitmentA,
                commitmentB: B ?? f.commitmentB,
                commitmentT: T ?? f.commitmentT, sigma: sigma ?? f.sigma, z1: z1 ?? f.z1, z2: z2 ?? f.z2,
                w1: w1 ?? f.w1, w2: w2 ?? f.w2, v: v ?? f.v)
        }
        let bounds = NoSmallFactorProof.Bounds(n0: n0, ntilde: ntilde)
        let two = BigInt(UInt(2))
        let cases: [(String, NoSmallFactorProof)] = [
            ("P", variant(P: (f.commitmentP * two).modulo(ntilde))),
            ("Q", variant(Q: (f.commitmentQ * two).modulo(ntilde))),
            ("A", variant(A: (f.commitmentA * two).modulo(ntilde))),
            ("B", variant(B: (f.commitmentB * two).modulo(ntilde))),
            ("T", variant(T: (f.commitmentT * two).modulo(ntilde))), ("sigma", variant(sigma: f.sigma + 1)),
            ("z1", variant(z1: f.z1 + 1)), ("z2", variant(z2: f.z2 + 1)), ("w1", variant(w1: f.w1 + 1)),
            ("w2", variant(w2: f.w2 + 1)), ("v", variant(v: f.v + 1)),
            ("P = 0", variant(P: .zero)), ("T = Ñ", variant(T: ntilde)),
            ("z1 past its bound", variant(z1: bounds.z + 1)), ("w2 past its bound", variant(w2: bounds.w)),
            ("v past its bound", variant(v: bounds.v)),
            ("sigma past its bound", variant(sigma: bounds.sigma)),
        ]
        for (name, proof) in cases {
            XCTAssertThrowsError(try proof.verify(n0: n0, ringPedersen: parameters, sid: sid, pid: pid), name) {
                guard case ThresholdError.proofRejected(let why)? = $0 as? ThresholdError else {
                    return XCTFail("\(name): \($0)")
                }
                XCTAssertTrue(why.hasPrefix("Π^fac"), "\(name): \(why)")
            }
        }
    }

    /// A split with a small factor — N = p·(N/p) with p of 20 bits, the form BitForge needs —
    /// cannot stay inside the bound: the big cofactor pushes z2 far past 2^(ℓ+ε)·√N.
    func testASplitWithASmallFactorLeavesTheBound() throws {
        let key = PaillierTests.key
        var small = BigInt(UInt(1 << 19) + 3)
        while !small.isProbablePrime(rounds: 25) { small = small + 2 }
        // N0 = small · (p·q / small rounded to a fitting odd cofactor): any N with that factor.
        var cofactor = key.publicKey.n / small
        if !cofactor.isOdd { cofactor = cofactor + 1 }
        let n0 = small * cofactor
        XCTAssertThrowsError(
            try NoSmallFactorProof.prove(
                n0: n0, p: small, q: cofactor, ringPedersen: parameters, sid: sid, pid: pid, random: SystemRandom()
            )
            .verify(n0: n0, ringPedersen: parameters, sid: sid, pid: pid)
        ) {
            XCTAssertTrue("\($0)".contains("z2 over its bound"), "\($0)")
        }
    }
}
