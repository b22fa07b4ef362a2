/// Π^log* (CGGMP21 Fig. 25): the Paillier ciphertext `C = Enc_N0(x; ρ)` encrypts the discrete
/// log of `X = x·G`, with `x` in range up to the proof's slack, under the verifier's
/// ring-Pedersen parameters. Masks are drawn non-negative (`docs/design/threshold-ecdsa.md` §5.1), so every
/// response is a non-negative integer with a known bound.
public struct PDLProof: Sendable, Equatable {
    /// ℓ and ε of the suite: |x| < 2^ℓ honestly, the proof guarantees |x'| < 2^(ℓ+ε).
    public static let l = 256
    public static let epsilon = 512

    public let s: BigInt, a: BigInt, y: Point, d: BigInt
    public let z1: BigInt, z2: BigInt, z3: BigInt

    public struct Statement: Sendable {
        public let paillier: PaillierPublicKey
        public let ciphertext: BigInt
        public let point: Point
        public let ringPedersen: RingPedersenParameters
        public init(paillier: PaillierPublicKey, ciphertext: BigInt, point: Point, ringPedersen: RingPedersenParameters)
        {
            self.paillier = paillier
            self.ciphertext = ciphertext
            self.point = point
            self.ringPedersen = ringPedersen
        }
    }

    static func challenge(
        _ statement: Statement, sid: [UInt8], pid: [UInt8], s: BigInt, a: BigInt, y: Point, d: BigInt
    ) -> BigInt {
        let rp = statement.ringPedersen
        return Transcript.scalarChallenge(
            "L17v1/pdl-logstar",
            [
                sid, Array("keygen/pdl".utf8), pid,
                statement.paillier.n.bytes, statement.ciphertext.bytes, statement.point.compressed,
                rp.n.bytes, rp.s.bytes, rp.t.bytes,
                s.bytes, a.bytes, y.compressed, d.bytes,
            ])
    }

    /// Proves with the witness `x` and the encryption randomness `rho` of `C`.
    public static func prove(
        _ statement: Statement, x: BigInt, rho: BigInt, sid: [UInt8], pid: [UInt8], random: RandomSource
    ) throws -> PDLProof {
        let n0 = statement.paillier.n, n0Squared = statement.paillier.nSquared
        let rp = statement.ringPedersen
        let alpha = try random.integer(below: BigInt.one.shiftedLeft(l + epsilon), label: "pdl.alpha")
        let mu = try random.integer(below: BigInt.one.shiftedLeft(l) * rp.n, label: "pdl.mu")
        let r = try statement.paillier.randomizer(random, label: "pdl.r")
        let gamma = try random.integer(below: BigInt.one.shiftedLeft(l + epsilon) * rp.n, label: "pdl.gamma")
        func pedersen(_ m: BigInt, _ blinding: BigInt) -> BigInt {
            (rp.s.power(m, modulo: rp.n, exponentIsSecret: true)
                * rp.t.power(blinding, modulo: rp.n, exponentIsSecret: true)).modulo(rp.n)
        }
        let s = pedersen(x, mu)
        let a = statement.paillier.encrypt(alpha, randomizer: r)
        let y = try P256.multiplyGenerator(alpha.modulo(P256.order))
        let d = pedersen(alpha, gamma)
        let e = challenge(statement, sid: sid, pid: pid, s: s, a: a, y: y, d: d)
        let z1 = alpha + e * x
        let z2 = (r * rho.power(e, modulo: n0, exponentIsSecret: false)).modulo(n0)
        let z3 = gamma + e * mu
        _ = n0Squared
        return PDLProof(s: s, a: a, y: y, d: d, z1: z1, z2: z2, z3: z3)
    }

    public init(s: BigInt, a: BigInt, y: Point, d: BigInt, z1: BigInt, z2: BigInt, z3: BigInt) {
        self.s = s
        self.a = a
        self.y = y
        self.d = d
        self.z1 = z1
        self.z2 = z2
        self.z3 = z3
    }

    /// The verifier rebuilds the statement from its own state; nothing is read back from the proof.
    public func verify(_ statement: Statement, sid: [UInt8], pid: [UInt8]) throws {
        let paillier = statement.paillier, rp = statement.ringPedersen
        try paillier.validateCiphertext(statement.ciphertext)
        try paillier.validateCiphertext(a)
        guard !z2.isZero, z2 < paillier.n, z2.gcd(paillier.n) == .one else {
            throw ThresholdError.proofRejected("z2 out of range")
        }
        for (name, value) in [("S", s), ("D", d)] {
            guard !value.isZero, value < rp.n, value.gcd(rp.n) == .one else {
                throw ThresholdError.proofRejected("\(name) is not a unit of Z_Ñ")
            }
        }
        // Range: an honest z1 = α + e·x < 2^(ℓ+ε) + q·2^ℓ < 2^(ℓ+ε+1).
        guard !z1.isNegative, z1 < BigInt.one.shiftedLeft(Self.l + Self.epsilon + 1) else {
            throw ThresholdError.proofRejected("z1 over its bound")
        }
        guard !z3.isNegative, z3 < BigInt.one.shiftedLeft(Self.l + Self.epsilon + 1) * rp.n else {
            throw ThresholdError.proofRejected("z3 over its bound")
        }
        let e = Self.challenge(statement, sid: sid, pid: pid, s: s, a: a, y: y, d: d)
        // Enc(z1; z2) = A · C^e (mod N0²)
        guard
            paillier.encrypt(z1, randomizer: z2)
                == (a * statement.ciphertext.power(e, modulo: paillier.nSquared, exponentIsSecret: false)).modulo(
                    paillier.nSquared)
        else {
            throw ThresholdError.proofRejected("the Paillier equation fails")
        }
        // z1·G = Y + e·X
        guard try P256.multiplyGenerator(z1.modulo(P256.order)) == (y + statement.point.multiplied(by: e)) else {
            throw ThresholdError.proofRejected("the curve equation fails")
        }
        // s^z1 · t^z3 = D · S^e (mod Ñ)
        let left =
            (rp.s.power(z1, modulo: rp.n, exponentIsSecret: false)
            * rp.t.power(z3, modulo: rp.n, exponentIsSecret: false)).modulo(rp.n)
        guard left == (d * s.power(e, modulo: rp.n, exponentIsSecret: false)).modulo(rp.n) else {
            throw ThresholdError.proofRejected("the ring-Pedersen equation fails")
        }
    }
}
