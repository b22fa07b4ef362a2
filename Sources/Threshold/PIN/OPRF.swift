import FoundationEssentials
import Glibc
import TamgaCore

/// RFC 9497's OPRF mode (mode 0x00) with the suite P256-SHA256: 2HashDH. The client hashes its
/// input to the curve and blinds it with a random scalar r; the server multiplies by its secret
/// k; the client removes r and hashes input and k·H(input) together. The server learns nothing
/// of the input (the blinded element is a uniformly random point), the client nothing of k,
/// and without the server no one can compute the output for any input — which is what keeps a
/// copied share folder from being searched offline (docs/threshold-pin.md).
/// Checked against RFC 9497 appendix A.3.1.
public enum OPRF {
    /// "OPRFV1-" ‖ I2OSP(mode, 1) ‖ "-" ‖ "P256-SHA256".
    static let contextString = Array("OPRFV1-".utf8) + [0x00] + Array("-P256-SHA256".utf8)
    static let hashToGroupDST = Array("HashToGroup-".utf8) + contextString
    /// Inputs are length-prefixed with two bytes.
    public static let maximumInputLength = 65535

    public struct Blinded: Sendable {
        /// r, secret: needed once, to finalize.
        public let blind: BigInt
        /// r·H(input), sent to the server (33 bytes compressed).
        public let element: Point
    }

    /// `HashToGroup(input)` with the suite's DST.
    public static func hashToGroup(_ input: [UInt8]) throws -> Point {
        try HashToCurve.hash(input, dst: hashToGroupDST)
    }

    /// `Blind` with a fresh random r in [1, n−1].
    public static func blind(_ input: [UInt8], random: RandomSource) throws -> Blinded {
        try blind(input, blind: random.nonZeroInteger(below: P256.order, label: "oprf.blind"))
    }

    /// `Blind` with a given r (the RFC's vectors fix it).
    public static func blind(_ input: [UInt8], blind r: BigInt) throws -> Blinded {
        guard input.count <= maximumInputLength else {
            throw ThresholdError.invalidScalar("the OPRF input is longer than 65535 bytes")
        }
        guard !r.isZero, r < P256.order else { throw ThresholdError.invalidScalar("the OPRF blind is out of range") }
        return Blinded(blind: r, element: try hashToGroup(input).multiplied(by: r))
    }

    /// `BlindEvaluate`: k·blinded. The point was decoded (on the curve, not the identity) by
    /// whoever built it from bytes.
    public static func evaluate(_ blinded: Point, key: BigInt) throws -> Point {
        guard !key.isZero, key < P256.order else { throw ThresholdError.invalidScalar("the OPRF key is out of range") }
        return try blinded.multiplied(by: key)
    }

    /// `Finalize`: Hash(I2OSP(len(input), 2) ‖ input ‖ I2OSP(33, 2) ‖ r⁻¹·evaluated ‖ "Finalize").
    public static func finalize(_ input: [UInt8], blind r: BigInt, evaluated: Point) throws -> [UInt8] {
        guard input.count <= maximumInputLength else {
            throw ThresholdError.invalidScalar("the OPRF input is longer than 65535 bytes")
        }
        // n is prime: r⁻¹ = r^(n−2), with the constant-time exponentiation (r is secret).
        let inverse = r.power(P256.order - 2, modulo: P256.order, exponentIsSecret: true)
        let unblinded = try evaluated.multiplied(by: inverse).compressed
        var hashed = [UInt8(input.count >> 8), UInt8(input.count & 0xff)] + input
        hashed += [0, UInt8(unblinded.count)] + unblinded + Array("Finalize".utf8)
        defer { wipe(&hashed) }
        return HashToCurve.sha256(hashed)
    }
}
