/// Π^mod (CGGMP21 Fig. 16, Paillier–Blum modulus): N is the product of exactly two distinct
/// primes, both ≡ 3 (mod 4). The prover publishes `w` with Jacobi symbol (w/N) = −1 and, for
/// each hash-derived challenge `y_i`, a fourth root `x_i` of `y'_i = (−1)^a_i · w^b_i · y_i`.
/// For a Blum N exactly one of `±y, ±w·y` is a quadratic residue and every residue is a fourth
/// power, so the honest prover always answers; for an N with a third prime factor (BitForge's
/// `p·P·Q`) or a factor ≡ 1 (mod 4), at most half of the `y` have an answer, so each round
/// catches a bad N with probability ≥ 1/2 and 128 rounds leave 2^-128.
///
/// Fig. 16's other half, an N-th root `z_i` per round (square-freeness, `gcd(N, φ(N)) = 1`), is
/// `PaillierModulusProof` (NiCorrectKey) sent beside this proof: its 11 roots reach 2^-128
/// because N has no prime factor below 6379 (a bad N leaves at most 1/6379 of the `ρ` with a
/// root), where Fig. 16's one root per round would cost the verifier 128 exponentiations by N
/// (about 0.4 s) for the same bound. The server verifies both; `docs/threshold-proofs.md`.
public struct PaillierBlumProof: Sendable, Equatable {
    /// Binary-soundness rounds: 2^-128 (the suite's bound; Π^prm uses the same count).
    public static let rounds = 128
    public let w: BigInt
    /// `x_i`, one per round.
    public let roots: [BigInt]
    /// `a_i` (multiply by −1) and `b_i` (multiply by w), one per round.
    public let a: [Bool]
    public let b: [Bool]

    public init(w: BigInt, roots: [BigInt], a: [Bool], b: [Bool]) {
        self.w = w
        self.roots = roots
        self.a = a
        self.b = b
    }

    /// `y_i = OS2IP(expand_message_xmd(LP(N, w, sid, u32be(i)), "L17v1/paillier-blum/y", 256 + 16)) mod N`:
    /// the verifier derives every challenge itself, after `w` is fixed.
    public static func challenges(n: BigInt, w: BigInt, sid: [UInt8]) -> [BigInt] {
        let nBytes = n.bytes(width: 256) ?? n.bytes, wBytes = w.bytes(width: 256) ?? w.bytes
        return (0..<rounds).map { index in
            let counter: [UInt8] = [
                UInt8(index >> 24 & 0xFF), UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF),
            ]
            let message = Transcript.lengthPrefixed([nBytes, wBytes, sid, counter])
            return BigInt(
                bytes: Transcript.expandMessageXMD(
                    message, domain: Array("L17v1/paillier-blum/y".utf8), length: 256 + 16)
            ).modulo(n)
        }
    }

    /// `(−1)^a · w^b · y mod N`.
    static func adjusted(_ y: BigInt, w: BigInt, a: Bool, b: Bool, n: BigInt) -> BigInt {
        let withW = b ? (y * w).modulo(n) : y
        return a ? (n - withW).modulo(n) : withW
    }

    /// Proves with the factors of a Blum modulus (`PaillierSecretKey` generates p ≡ q ≡ 3 mod 4).
    /// Fourth roots by CRT: for a residue u mod p ≡ 3 (mod 4), `u^((p+1)/4)` is the square root
    /// that is itself a residue, so `u^(((p+1)/4)² mod (p−1))` is a fourth root; the exponent
    /// is secret and goes through `mpz_powm_sec`.
    public static func prove(
        secretKey: PaillierSecretKey, sid: [UInt8], random: RandomSource
    ) throws -> PaillierBlumProof {
        let p = secretKey.p, q = secretKey.q, n = secretKey.publicKey.n
        guard p.remainder(dividingBy: 4) == 3, q.remainder(dividingBy: 4) == 3, let qInverse = q.inverse(modulo: p)
        else {
            throw ThresholdError.invalidPaillierModulus("Π^mod needs primes ≡ 3 mod 4")
        }
        func fourthRootExponent(_ prime: BigInt) -> BigInt {
            let quarter = (prime + 1) / BigInt(UInt(4))
            return (quarter * quarter).modulo(prime - 1)
        }
        let exponentP = fourthRootExponent(p), exponentQ = fourthRootExponent(q)
        var w: BigInt
        repeat { w = try random.nonZeroInteger(below: n, label: "pimod.w") } while w.jacobi(n) != -1
        // (w/p)·(w/q) = −1: w is a residue modulo exactly one of the primes.
        let wModP = w.modulo(p).jacobi(p)
        var roots: [BigInt] = [], aBits: [Bool] = [], bBits: [Bool] = []
        for y in challenges(n: n, w: w, sid: sid) {
            // The Legendre symbols go through GMP's (variable-time) Jacobi algorithm: the bits
            // they decide are published as a_i, b_i, and enrollment runs once on the device;
            // Euler's criterion by powm_sec would double the prover's time.
            let legendreP = y.modulo(p).jacobi(p), legendreQ = y.modulo(q).jacobi(q)
            guard legendreP != 0, legendreQ != 0 else {
                throw ThresholdError.invalidPaillierModulus("a challenge shares a factor with N")
            }
            // −1 is a non-residue modulo both primes; w modulo exactly one. b makes the two
            // symbols equal, a makes them both +1.
            let b = legendreP != legendreQ
            let a = (b ? wModP * legendreP : legendreP) == -1
            let target = adjusted(y, w: w, a: a, b: b, n: n)
            let rootP = target.modulo(p).power(exponentP, modulo: p, exponentIsSecret: true)
            let rootQ = target.modulo(q).power(exponentQ, modulo: q, exponentIsSecret: true)
            let root = rootQ + q * ((rootP - rootQ) * qInverse).modulo(p)
            // A self-check costs two squarings and keeps a defect from reaching the wire.
            let square = (root * root).modulo(n)
            guard (square * square).modulo(n) == target else {
                throw ThresholdError.invalidPaillierModulus("no fourth root: N is not a Blum integer")
            }
            roots.append(root)
            aBits.append(a)
            bBits.append(b)
        }
        return PaillierBlumProof(w: w, roots: roots, a: aBits, b: bBits)
    }

    /// Checks the modulus's form (2048 bits, odd, no small factor, composite), the round count,
    /// `w` (a unit with Jacobi symbol −1, so it cannot be ±1 or a square that would make
    /// every `b_i` free), and `x_i^4 ≡ (−1)^a_i · w^b_i · y_i (mod N)` in every round.
    public func verify(n: BigInt, sid: [UInt8]) throws {
        _ = try PaillierPublicKey.validated(n)
        guard !n.isProbablePrime(rounds: 25) else { throw ThresholdError.proofRejected("Π^mod: N is prime") }
        guard roots.count == Self.rounds, a.count == Self.rounds, b.count == Self.rounds else {
            throw ThresholdError.proofRejected("Π^mod needs \(Self.rounds) rounds")
        }
        guard !w.isZero, !w.isNegative, w < n, w.jacobi(n) == -1 else {
            throw ThresholdError.proofRejected("Π^mod: w is not a unit with Jacobi symbol −1")
        }
        for (index, y) in Self.challenges(n: n, w: w, sid: sid).enumerated() {
            let x = roots[index]
            guard !x.isZero, !x.isNegative, x < n else {
                throw ThresholdError.proofRejected("Π^mod: round \(index) out of range")
            }
            let square = (x * x).modulo(n)
            guard (square * square).modulo(n) == Self.adjusted(y, w: w, a: a[index], b: b[index], n: n) else {
                throw ThresholdError.proofRejected("Π^mod: round \(index) is not a fourth root")
            }
        }
    }
}
