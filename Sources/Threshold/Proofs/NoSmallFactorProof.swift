/// Π^fac (CGGMP21 Fig. 28, no small factor): the prover knows `N0 = p·q` with both factors at
/// most `2^(ℓ+ε)·√N0`, so each is at least `√N0 / 2^(ℓ+ε)` — for a 2048-bit N0 with ℓ = 256
/// and ε = 512, above 2^255 — under the **verifier's** ring-Pedersen parameters `(Ñ, s, t)`
/// (the co-signer's, which the client checked with Π^prm: a prover who knew Ñ's factors could
/// cheat). Together with Π^mod (N has exactly two prime factors) no prime factor of N is small,
/// which closes BitForge's `N0 = p·P·Q` with a ~20-bit p.
///
/// Masks are drawn non-negative (as in Π^log*, `docs/design/threshold-ecdsa.md` §5.1) and the challenge is
/// in [0, q), so every value is a non-negative integer with an upper bound the verifier checks
/// and the wire format fixes. The prover redraws where v would be negative (probability about
/// 2^-1000); an honest z1 or z2 passes Fig. 28's bound except with probability below 2^-510.
public struct NoSmallFactorProof: Sendable, Equatable {
    /// ℓ and ε of Fig. 28 (the suite's Π^log* values): factors up to `2^ℓ·√N0` honestly,
    /// guaranteed up to `2^(ℓ+ε)·√N0`.
    public static let l = 256
    public static let epsilon = 512

    /// `P = s^p t^μ`, `Q = s^q t^ν`, `A = s^α t^x`, `B = s^β t^y`, `T = Q^α t^r` (mod Ñ).
    public let commitmentP: BigInt, commitmentQ: BigInt, commitmentA: BigInt, commitmentB: BigInt, commitmentT: BigInt
    /// The blinding of `R = s^N0 t^σ`, which the verifier computes itself.
    public let sigma: BigInt
    /// `z1 = α + e·p`, `z2 = β + e·q`, `w1 = x + e·μ`, `w2 = y + e·ν`, `v = r + e·(σ − ν·p)`.
    public let z1: BigInt, z2: BigInt, w1: BigInt, w2: BigInt, v: BigInt

    public init(
        commitmentP: BigInt, commitmentQ: BigInt, commitmentA: BigInt, commitmentB: BigInt, commitmentT: BigInt,
        sigma: BigInt,
        z1: BigInt, z2: BigInt, w1: BigInt, w2: BigInt, v: BigInt
    ) {
        self.commitmentP = commitmentP
        self.commitmentQ = commitmentQ
        self.commitmentA = commitmentA
        self.commitmentB = commitmentB
        self.commitmentT = commitmentT
        self.sigma = sigma
        self.z1 = z1
        self.z2 = z2
        self.w1 = w1
        self.w2 = w2
        self.v = v
    }

    /// The exclusive upper bounds of every integer the proof carries, for N0 and Ñ:
    /// `z1, z2 ≤ 2^(ℓ+ε)·⌊√N0⌋` (Fig. 28's check), and honest maxima for the rest
    /// (`w < 2^(ℓ+ε+1)·Ñ`, `v < 2^(ℓ+ε+1)·N0·Ñ`, `σ < 2^ℓ·N0·Ñ`) so the verifier's work is
    /// bounded by the statement, not by the prover.
    public struct Bounds: Sendable {
        public let z: BigInt, w: BigInt, v: BigInt, sigma: BigInt
        public init(n0: BigInt, ntilde: BigInt) {
            z = n0.squareRoot().shiftedLeft(NoSmallFactorProof.l + NoSmallFactorProof.epsilon)
            w = ntilde.shiftedLeft(NoSmallFactorProof.l + NoSmallFactorProof.epsilon + 1)
            v = (n0 * ntilde).shiftedLeft(NoSmallFactorProof.l + NoSmallFactorProof.epsilon + 1)
            sigma = (n0 * ntilde).shiftedLeft(NoSmallFactorProof.l)
        }
    }

    /// Wire widths in bytes for a 2048-bit N0 and Ñ: z < 2^1792, w < 2^2817, v < 2^4865, σ < 2^4352.
    public static let zBytes = 224, wBytes = 353, vBytes = 609, sigmaBytes = 544

    static func challenge(
        n0: BigInt, ringPedersen rp: RingPedersenParameters, sid: [UInt8], pid: [UInt8],
        _ p: BigInt, _ q: BigInt, _ a: BigInt, _ b: BigInt, _ t: BigInt, sigma: BigInt
    ) -> BigInt {
        Transcript.scalarChallenge(
            "L17v1/no-small-factor",
            [
                sid, Array("keygen/fac".utf8), pid,
                n0.bytes, rp.n.bytes, rp.s.bytes, rp.t.bytes,
                p.bytes, q.bytes, a.bytes, b.bytes, t.bytes, sigma.bytes,
            ])
    }

    /// Proves with the factors `p`, `q` of `n0` (any split: the test's malicious client uses
    /// this with a split of a three-prime modulus). Exponents that hold p, q or a mask go
    /// through `mpz_powm_sec`.
    public static func prove(
        n0: BigInt, p: BigInt, q: BigInt, ringPedersen rp: RingPedersenParameters, sid: [UInt8], pid: [UInt8],
        random: RandomSource
    ) throws -> NoSmallFactorProof {
        guard p * q == n0 else { throw ThresholdError.invalidPaillierModulus("p·q is not N") }
        let bounds = Bounds(n0: n0, ntilde: rp.n)
        let ntilde = rp.n
        let maskBits = l + epsilon
        func pedersen(_ m: BigInt, _ blinding: BigInt) -> BigInt {
            (rp.s.power(m, modulo: ntilde, exponentIsSecret: true)
                * rp.t.power(blinding, modulo: ntilde, exponentIsSecret: true)).modulo(ntilde)
        }
        for _ in 0..<4 {
            let alpha = try random.integer(below: bounds.z, label: "pifac.alpha")
            let beta = try random.integer(below: bounds.z, label: "pifac.beta")
            let mu = try random.integer(below: ntilde.shiftedLeft(l), label: "pifac.mu")
            let nu = try random.integer(below: ntilde.shiftedLeft(l), label: "pifac.nu")
            let sigma = try random.integer(below: bounds.sigma, label: "pifac.sigma")
            let r = try random.integer(below: (n0 * ntilde).shiftedLeft(maskBits), label: "pifac.r")
            let x = try random.integer(below: ntilde.shiftedLeft(maskBits), label: "pifac.x")
            let y = try random.integer(below: ntilde.shiftedLeft(maskBits), label: "pifac.y")
            let commitmentP = pedersen(p, mu), commitmentQ = pedersen(q, nu)
            let commitmentA = pedersen(alpha, x), commitmentB = pedersen(beta, y)
            let commitmentT =
                (commitmentQ.power(alpha, modulo: ntilde, exponentIsSecret: true)
                * rp.t.power(r, modulo: ntilde, exponentIsSecret: true)).modulo(ntilde)
            let e = challenge(
                n0: n0, ringPedersen: rp, sid: sid, pid: pid, commitmentP, commitmentQ, commitmentA, commitmentB,
                commitmentT, sigma: sigma)
            let z1 = alpha + e * p, z2 = beta + e * q
            let w1 = x + e * mu, w2 = y + e * nu
            // v = r + e·σ − e·ν·p, kept non-negative (σ < ν·p only with probability ~2^-1000).
            let positive = r + e * sigma, negative = e * nu * p
            guard negative <= positive else { continue }
            return NoSmallFactorProof(
                commitmentP: commitmentP, commitmentQ: commitmentQ, commitmentA: commitmentA, commitmentB: commitmentB,
                commitmentT: commitmentT, sigma: sigma, z1: z1, z2: z2, w1: w1, w2: w2, v: positive - negative)
        }
        throw ThresholdError.randomnessFailed  // four redraws of a 2^-1000 event: the randomness is broken
    }

    /// The verifier rebuilds the statement (N0, its own Ñ, s, t, the session) and checks every
    /// value's range before any exponentiation, then Fig. 28's three equations.
    public func verify(n0: BigInt, ringPedersen rp: RingPedersenParameters, sid: [UInt8], pid: [UInt8]) throws {
        let ntilde = rp.n
        for (name, value) in [
            ("P", commitmentP), ("Q", commitmentQ), ("A", commitmentA), ("B", commitmentB), ("T", commitmentT),
        ] {
            guard !value.isZero, !value.isNegative, value < ntilde, value.gcd(ntilde) == .one else {
                throw ThresholdError.proofRejected("Π^fac: \(name) is not a unit of Z_Ñ")
            }
        }
        let bounds = Bounds(n0: n0, ntilde: ntilde)
        for (name, value, bound) in [("z1", z1, bounds.z), ("z2", z2, bounds.z)] {
            // Fig. 28's range check: a factor below 2^255 would need a response above this.
            guard !value.isNegative, value <= bound else {
                throw ThresholdError.proofRejected("Π^fac: \(name) over its bound (a factor of N is too small)")
            }
        }
        for (name, value, bound) in [
            ("w1", w1, bounds.w), ("w2", w2, bounds.w), ("v", v, bounds.v), ("sigma", sigma, bounds.sigma),
        ] {
            guard !value.isNegative, value < bound else {
                throw ThresholdError.proofRejected("Π^fac: \(name) over its bound")
            }
        }
        let e = Self.challenge(
            n0: n0, ringPedersen: rp, sid: sid, pid: pid, commitmentP, commitmentQ, commitmentA, commitmentB,
            commitmentT, sigma: sigma)
        func power(_ base: BigInt, _ exponent: BigInt) -> BigInt {
            base.power(exponent, modulo: ntilde, exponentIsSecret: false)
        }
        let r = (power(rp.s, n0) * power(rp.t, sigma)).modulo(ntilde)
        guard (power(rp.s, z1) * power(rp.t, w1)).modulo(ntilde) == (commitmentA * power(commitmentP, e)).modulo(ntilde)
        else {
            throw ThresholdError.proofRejected("Π^fac: the equation for p fails")
        }
        guard (power(rp.s, z2) * power(rp.t, w2)).modulo(ntilde) == (commitmentB * power(commitmentQ, e)).modulo(ntilde)
        else {
            throw ThresholdError.proofRejected("Π^fac: the equation for q fails")
        }
        guard (power(commitmentQ, z1) * power(rp.t, v)).modulo(ntilde) == (commitmentT * power(r, e)).modulo(ntilde)
        else {
            throw ThresholdError.proofRejected("Π^fac: the equation for N fails")
        }
    }
}
