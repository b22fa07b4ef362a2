import FoundationEssentials
import Glibc
import TamgaCore

/// RFC 9380 hashing to P-256: the suite `P256_XMD:SHA-256_SSWU_RO_` (expand_message_xmd with
/// SHA-256, hash_to_field with L = 48, the simplified SWU map with Z = −10, two field elements
/// mapped and added; P-256's cofactor is 1). RFC 9497's P256-SHA256 OPRF hashes its input with
/// it (`HashToGroup`). Checked against RFC 9380 appendix J.1.1 and K.1.
///
/// The input here is derived from a PIN, so the field arithmetic avoids branches on it where
/// it matters: square roots and inverses are exponentiations with GMP's `mpz_powm_sec`, both
/// candidates of the map are computed and one chosen. GMP's multiplications and reductions
/// are not constant-time; this runs once per unlock on the person's own device.
public enum HashToCurve {
    /// P-256's field prime p = 2^256 − 2^224 + 2^192 + 2^96 − 1.
    static let p = BigInt(hex: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")!
    static let a = p - 3
    static let b = BigInt(hex: "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b")!
    /// Z = −10 (RFC 9380 §8.2).
    static let z = p - 10
    /// (p + 1) / 4: p ≡ 3 (mod 4), so a square root is one exponentiation.
    static let sqrtExponent = (p + 1) / BigInt(4)
    /// (p − 1) / 2: Euler's criterion.
    static let legendreExponent = (p - 1) / BigInt(2)
    static let inverseExponent = p - 2

    /// RFC 9380 §5.3.1 with SHA-256 (b = 32, s = 64 bytes). `dst` is at most 255 bytes and
    /// `length` at most 255 · 32 (RFC 9380's limits; the callers here ask for 96).
    public static func expandMessageXMD(_ message: [UInt8], dst: [UInt8], length: Int) throws -> [UInt8] {
        let blocks = (length + 31) / 32
        guard blocks >= 1, blocks <= 255, length <= 65535, dst.count <= 255 else {
            throw ThresholdError.invalidPoint("expand_message_xmd: the requested length or the DST is out of range")
        }
        let dstPrime = dst + [UInt8(dst.count)]
        let messagePrime =
            [UInt8](repeating: 0, count: 64) + message + [UInt8(length >> 8), UInt8(length & 0xff), 0] + dstPrime
        let b0 = sha256(messagePrime)
        var previous = sha256(b0 + [1] + dstPrime)
        var uniform = previous
        if blocks >= 2 {
            for index in 2...blocks {
                let mixed = zip(b0, previous).map { $0 ^ $1 }
                previous = sha256(mixed + [UInt8(index)] + dstPrime)
                uniform += previous
            }
        }
        return Array(uniform.prefix(length))
    }

    /// RFC 9380 §5.2 for P-256 (m = 1, L = 48): `count` field elements.
    public static func hashToField(_ message: [UInt8], dst: [UInt8], count: Int) throws -> [BigInt] {
        let uniform = try expandMessageXMD(message, dst: dst, length: count * 48)
        return (0..<count).map { BigInt(bytes: uniform[($0 * 48)..<($0 * 48 + 48)]).modulo(p) }
    }

    /// RFC 9380 §3 `hash_to_curve` for `P256_XMD:SHA-256_SSWU_RO_`.
    public static func hash(_ message: [UInt8], dst: [UInt8]) throws -> Point {
        let u = try hashToField(message, dst: dst, count: 2)
        // The sum is the identity only with negligible probability; Point refuses it then.
        return try mapToCurve(u[0]) + mapToCurve(u[1])
    }

    /// The simplified SWU map (RFC 9380 §6.6.2) to a point of P-256.
    public static func mapToCurve(_ u: BigInt) throws -> Point {
        func mul(_ x: BigInt, _ y: BigInt) -> BigInt { (x * y).modulo(p) }
        func add(_ x: BigInt, _ y: BigInt) -> BigInt { (x + y).modulo(p) }
        func power(_ x: BigInt, _ e: BigInt) -> BigInt {
            x.isZero ? .zero : x.power(e, modulo: p, exponentIsSecret: true)
        }
        func g(_ x: BigInt) -> BigInt { add(add(mul(mul(x, x), x), mul(a, x)), b) }
        let u2 = mul(u, u)
        let zu2 = mul(z, u2)
        let denominator = add(mul(zu2, zu2), zu2)  // Z²u⁴ + Zu²
        let tv1 = power(denominator, inverseExponent)  // inv0: 0 stays 0
        let minusBOverA = mul(p - b, power(a, inverseExponent))
        let x1 = tv1.isZero ? mul(b, power(mul(z, a), inverseExponent)) : mul(minusBOverA, add(.one, tv1))
        let gx1 = g(x1)
        let x2 = mul(zu2, x1)
        let gx2 = g(x2)
        // Both roots are computed whichever is used; is_square(gx1) picks.
        let y1 = power(gx1, sqrtExponent), y2 = power(gx2, sqrtExponent)
        let gx1IsSquare = gx1.isZero || power(gx1, legendreExponent) == .one
        let x = gx1IsSquare ? x1 : x2
        var y = gx1IsSquare ? y1 : y2
        guard mul(y, y) == g(x) else { throw ThresholdError.invalidPoint("the SWU map found no square root") }
        if u.isOdd != y.isOdd { y = (p - y).modulo(p) }  // sgn0(u) = sgn0(y)
        guard let xBytes = x.bytes(width: 32) else { throw ThresholdError.invalidPoint("the SWU map's x does not fit") }
        return try Point(compressed: [y.isOdd ? 3 : 2] + xBytes)
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(Digest.compute(.sha256, over: Data(bytes)).bytes) }
}
