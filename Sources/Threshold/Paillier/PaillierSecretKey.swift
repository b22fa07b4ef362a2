/// A Paillier secret key: primes `p ≡ q ≡ 3 (mod 4)` of 1024 bits each (so Π^mod stays
/// available), decryption by CRT with constant-time exponentiation. The values are wiped when
/// released (BigInt storage).
public struct PaillierSecretKey: Sendable {
    public let p: BigInt
    public let q: BigInt
    public let publicKey: PaillierPublicKey
    // CRT precomputation.
    private let pSquared: BigInt, qSquared: BigInt
    private let pMinusOne: BigInt, qMinusOne: BigInt
    private let hp: BigInt, hq: BigInt
    private let qInverseModP: BigInt

    /// From given primes (the golden-vector tape provides them); checks their form.
    public init(p: BigInt, q: BigInt) throws {
        guard p != q, p.remainder(dividingBy: 4) == 3, q.remainder(dividingBy: 4) == 3,
            p.isProbablePrime(rounds: 30), q.isProbablePrime(rounds: 30)
        else {
            throw ThresholdError.invalidPaillierModulus("p and q must be distinct primes ≡ 3 mod 4")
        }
        let n = p * q
        guard n.bitWidth == PaillierPublicKey.modulusBits else {
            throw ThresholdError.invalidPaillierModulus("N has \(n.bitWidth) bits")
        }
        self.p = p
        self.q = q
        publicKey = PaillierPublicKey(n: n)
        pSquared = p * p
        qSquared = q * q
        pMinusOne = p - 1
        qMinusOne = q - 1
        // h_p = L_p(g^(p-1) mod p²)^-1 mod p with g = N + 1.
        let g = n + 1
        func L(_ x: BigInt, _ prime: BigInt) -> BigInt { (x - 1) / prime }
        guard let hp = L(g.power(pMinusOne, modulo: pSquared, exponentIsSecret: true), p).inverse(modulo: p),
            let hq = L(g.power(qMinusOne, modulo: qSquared, exponentIsSecret: true), q).inverse(modulo: q),
            let qInverse = q.inverse(modulo: p)
        else {
            throw ThresholdError.invalidPaillierModulus("no CRT inverse")
        }
        self.hp = hp
        self.hq = hq
        qInverseModP = qInverse
    }

    /// A fresh key: two random 1024-bit primes ≡ 3 mod 4 with the top two bits set (so N has
    /// exactly 2048 bits).
    public static func generate(random: RandomSource) throws -> PaillierSecretKey {
        let p = try prime(random: random, label: "paillier.p")
        var q = try prime(random: random, label: "paillier.q")
        while q == p { q = try prime(random: random, label: "paillier.q") }
        return try PaillierSecretKey(p: p, q: q)
    }

    static func prime(random: RandomSource, label: String) throws -> BigInt {
        while true {
            var bytes = try random.bytes(128, label: label)
            bytes[0] |= 0xC0  // top two bits: p·q has 2048 bits
            bytes[127] |= 0x03  // ≡ 3 (mod 4)
            var candidate = BigInt(bytes: bytes)
            // Walk forward in steps of 4 until a prime, staying within 1024 bits.
            for _ in 0..<4096 {
                if SmallPrimes.below6379.dropFirst().allSatisfy({
                    candidate.remainder(dividingBy: $0) != 0 || candidate == BigInt($0)
                }),
                    candidate.isProbablePrime(rounds: 30)
                {
                    return candidate
                }
                candidate = candidate + 4
                guard candidate.bitWidth == 1024 else { break }
            }
        }
    }

    /// `Dec(c)` by CRT; `c` must be a valid ciphertext.
    public func decrypt(_ c: BigInt) throws -> BigInt {
        try publicKey.validateCiphertext(c)
        let mp = (((c.modulo(pSquared).power(pMinusOne, modulo: pSquared, exponentIsSecret: true) - 1) / p) * hp)
            .modulo(p)
        let mq = (((c.modulo(qSquared).power(qMinusOne, modulo: qSquared, exponentIsSecret: true) - 1) / q) * hq)
            .modulo(q)
        // m = mq + q·((mp − mq)·q⁻¹ mod p)
        let h = ((mp - mq) * qInverseModP).modulo(p)
        return mq + q * h
    }
}
