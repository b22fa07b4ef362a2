import FoundationEssentials
import Glibc
import TamgaSupport

/// A Paillier public key `N` (2048 bits in this suite): `Enc(m; r) = (1 + m·N) · r^N mod N²`,
/// homomorphic addition (ciphertext product) and multiplication by a scalar (ciphertext power).
public struct PaillierPublicKey: Sendable, Equatable {
    public static let modulusBits = 2048
    public let n: BigInt
    public let nSquared: BigInt

    public init(n: BigInt) {
        self.n = n
        nSquared = n * n
    }

    /// Checks a modulus received from the other party (`docs/design/threshold-ecdsa.md` §3.2): exactly 2048
    /// bits, odd, not a perfect square, no prime factor below 6379 (BitForge's small factors).
    public static func validated(_ n: BigInt) throws -> PaillierPublicKey {
        guard n.bitWidth == modulusBits else {
            throw ThresholdError.invalidPaillierModulus("\(n.bitWidth) bits, not \(modulusBits)")
        }
        guard n.isOdd else { throw ThresholdError.invalidPaillierModulus("even") }
        guard !n.isPerfectSquare() else { throw ThresholdError.invalidPaillierModulus("a perfect square") }
        if let factor = SmallPrimes.below6379.first(where: { n.remainder(dividingBy: $0) == 0 }) {
            throw ThresholdError.invalidPaillierModulus("divisible by \(factor)")
        }
        return PaillierPublicKey(n: n)
    }

    /// `Enc(m; r)` with a given randomizer `r ∈ Z*_N`.
    public func encrypt(_ m: BigInt, randomizer r: BigInt) -> BigInt {
        encrypt(m, randomizerPower: r.power(n, modulo: nSquared, exponentIsSecret: false))
    }

    /// `Enc(m)` with `r^N mod N²` precomputed (the server's pool).
    public func encrypt(_ m: BigInt, randomizerPower rN: BigInt) -> BigInt {
        // (1 + m·N) mod N² needs no exponentiation.
        ((m.modulo(n) * n + .one) * rN).modulo(nSquared)
    }

    /// `Enc(m)` with a fresh randomizer.
    public func encrypt(_ m: BigInt, random: RandomSource, label: String) throws -> BigInt {
        encrypt(m, randomizer: try randomizer(random, label: label))
    }

    /// A uniform `r ∈ Z*_N`.
    public func randomizer(_ random: RandomSource, label: String) throws -> BigInt {
        while true {
            let r = try random.nonZeroInteger(below: n, label: label)
            if r.gcd(n) == .one { return r }
        }
    }

    /// `c1 ⊕ c2`: the encryption of the sum.
    public func add(_ c1: BigInt, _ c2: BigInt) -> BigInt { (c1 * c2).modulo(nSquared) }

    /// `k ⊙ c`: the encryption of `k·m`. `k` may be secret (the server's `k2⁻¹·r·x2`).
    public func multiply(_ c: BigInt, by k: BigInt) -> BigInt { c.power(k, modulo: nSquared, exponentIsSecret: true) }

    /// `0 < c < N²` and `gcd(c, N) = 1`.
    public func validateCiphertext(_ c: BigInt) throws {
        guard !c.isZero, !c.isNegative, c < nSquared else { throw ThresholdError.invalidCiphertext("not in (0, N²)") }
        guard c.gcd(n) == .one else { throw ThresholdError.invalidCiphertext("shares a factor with N") }
    }
}

/// The primes below 6379, for the small-factor check.
enum SmallPrimes {
    static let below6379: [UInt] = {
        var sieve = [Bool](repeating: true, count: 6379)
        sieve[0] = false
        sieve[1] = false
        var i = 2
        while i * i < 6379 {
            if sieve[i] { stride(from: i * i, to: 6379, by: i).forEach { sieve[$0] = false } }
            i += 1
        }
        return sieve.indices.filter { sieve[$0] }.map(UInt.init)
    }()
}

/// Precomputed `r^N mod N²` values for one Paillier key: the server's encryption of `c1` in
/// every signature is one exponentiation of a 2048-bit exponent modulo N², which the pool moves
/// off the signing path (`docs/design/threshold-ecdsa.md` §4). Each value is used once.
public final class RandomizerPool: @unchecked Sendable {  // unchecked: `lock` guards `values`
    public let publicKey: PaillierPublicKey
    private let lock = Lock()
    private var values: [BigInt] = []

    public init(publicKey: PaillierPublicKey) { self.publicKey = publicKey }

    public var count: Int { lock.withLock { values.count } }

    /// Adds `count` fresh values (call off the signing path).
    public func fill(_ count: Int, random: RandomSource) throws {
        var fresh: [BigInt] = []
        for _ in 0..<count {
            let r = try publicKey.randomizer(random, label: "pool.r")
            fresh.append(r.power(publicKey.n, modulo: publicKey.nSquared, exponentIsSecret: false))
        }
        lock.withLock { values += fresh }
    }

    /// One value, never handed out twice; nil when the pool is empty.
    public func take() -> BigInt? { lock.withLock { values.popLast() } }
}
