internal import COpenSSL
import FoundationEssentials
import Glibc
import TamgaCore

/// The P-256 group through OpenSSL's `EC_POINT` (not deprecated in 3.0). Scalar
/// multiplications take one scalar per call, which OpenSSL runs through its constant-time
/// ladder (the multi-scalar wNAF path is variable-time: never used with secrets here).
public enum P256 {
    /// The group order q.
    public static let order = BigInt(hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")!
    /// The field prime p.
    static let prime = BigInt(hex: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")!

    /// The curve, created once and only read afterwards (safe to share between threads).
    final class Group: @unchecked Sendable {  // unchecked: EC_GROUP is immutable after creation
        let pointer: OpaquePointer
        init() { pointer = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1)! }
        deinit { EC_GROUP_free(pointer) }
    }
    static let group = Group()

    /// `k·G`.
    public static func multiplyGenerator(_ k: BigInt) throws -> Point {
        try Point.compute { point, context in
            try withBN(k) { scalar in EC_POINT_mul(group.pointer, point, scalar, nil, nil, context) == 1 }
        }
    }

    /// A BIGNUM holding `value` for the duration of `body`, cleared afterwards (it may be secret).
    static func withBN<T>(_ value: BigInt, _ body: (OpaquePointer) throws -> T) throws -> T {
        var bytes = value.bytes
        defer { wipe(&bytes) }  // the scalar may be a nonce or a key share
        guard let bn = bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), nil) }) else {
            throw ThresholdError.invalidScalar("cannot convert")
        }
        defer { BN_clear_free(bn) }
        return try body(bn)
    }
}

/// A point of P-256 other than the identity, kept as its canonical 33-byte SEC1 compressed
/// encoding. Decoding rejects the identity, prefixes other than 02/03, x ≥ p and points off
/// the curve.
public struct Point: Sendable, Hashable {
    public let compressed: [UInt8]

    public init(compressed bytes: [UInt8]) throws {
        guard bytes.count == 33, bytes[0] == 0x02 || bytes[0] == 0x03 else {
            throw ThresholdError.invalidPoint("not a 33-byte compressed point")
        }
        guard BigInt(bytes: bytes[1...]) < P256.prime else { throw ThresholdError.invalidPoint("x is not below p") }
        let valid = try Self.withECPoint(bytes) { point in
            EC_POINT_is_on_curve(P256.group.pointer, point, nil) == 1
                && EC_POINT_is_at_infinity(P256.group.pointer, point) == 0
        }
        guard valid else { throw ThresholdError.invalidPoint("not on the curve") }
        compressed = bytes
    }

    private init(trusted bytes: [UInt8]) { compressed = bytes }

    /// Decodes `bytes` into a fresh EC_POINT for `body`.
    static func withECPoint<T>(_ bytes: [UInt8], _ body: (OpaquePointer) throws -> T) throws -> T {
        guard let point = EC_POINT_new(P256.group.pointer) else { throw ThresholdError.invalidPoint("out of memory") }
        defer { EC_POINT_clear_free(point) }
        let decoded = bytes.withUnsafeBufferPointer {
            EC_POINT_oct2point(P256.group.pointer, point, $0.baseAddress, $0.count, nil)
        }
        guard decoded == 1 else {
            ERR_clear_error()
            throw ThresholdError.invalidPoint("does not decode")
        }
        return try body(point)
    }

    /// A point computed by `operation` into a fresh EC_POINT; the identity is refused.
    static func compute(_ operation: (OpaquePointer, OpaquePointer?) throws -> Bool) throws -> Point {
        guard let point = EC_POINT_new(P256.group.pointer) else { throw ThresholdError.invalidPoint("out of memory") }
        defer { EC_POINT_clear_free(point) }
        let context = BN_CTX_new()
        defer { BN_CTX_free(context) }
        guard try operation(point, context) else {
            ERR_clear_error()
            throw ThresholdError.invalidPoint("arithmetic failed")
        }
        guard EC_POINT_is_at_infinity(P256.group.pointer, point) == 0 else {
            throw ThresholdError.invalidPoint("the identity")
        }
        var out = [UInt8](repeating: 0, count: 33)
        let length = EC_POINT_point2oct(P256.group.pointer, point, POINT_CONVERSION_COMPRESSED, &out, 33, context)
        guard length == 33 else { throw ThresholdError.invalidPoint("encoding failed") }
        return Point(trusted: out)
    }

    /// `k·self`.
    public func multiplied(by k: BigInt) throws -> Point {
        try Self.withECPoint(compressed) { base in
            try Self.compute { point, context in
                try P256.withBN(k) { scalar in EC_POINT_mul(P256.group.pointer, point, nil, base, scalar, context) == 1
                }
            }
        }
    }

    /// `self + other`.
    public static func + (a: Point, b: Point) throws -> Point {
        try withECPoint(a.compressed) { left in
            try withECPoint(b.compressed) { right in
                try compute { point, context in EC_POINT_add(P256.group.pointer, point, left, right, context) == 1 }
            }
        }
    }

    /// The affine x coordinate.
    public var x: BigInt { BigInt(bytes: compressed[1...]) }

    /// The uncompressed SEC1 encoding (04 ‖ x ‖ y), for OpenSSL public keys.
    public var uncompressed: [UInt8] {
        (try? Self.withECPoint(compressed) { point -> [UInt8] in
            var out = [UInt8](repeating: 0, count: 65)
            _ = EC_POINT_point2oct(P256.group.pointer, point, POINT_CONVERSION_UNCOMPRESSED, &out, 65, nil)
            return out
        }) ?? []
    }
}

/// Scalars modulo the group order.
public enum Scalar {
    /// 32 big-endian bytes, reduced; nil when the value is not below q.
    public static func decode(_ bytes: [UInt8]) throws -> BigInt {
        guard bytes.count == 32 else { throw ThresholdError.invalidScalar("not 32 bytes") }
        let value = BigInt(bytes: bytes)
        guard value < P256.order else { throw ThresholdError.invalidScalar("not below the group order") }
        return value
    }

    public static func encode(_ value: BigInt) -> [UInt8] { value.modulo(P256.order).bytes(width: 32)! }
}
