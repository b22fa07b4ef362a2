/// Proof of knowledge of a discrete log (`docs/design/threshold-ecdsa.md` §5.2): `A = a·G`,
/// `e = chal("L17v1/schnorr", sid, label, pid, G, X, A)`, `z = a + e·x mod q`; wire form
/// `A(33) ‖ z(32)`.
public struct SchnorrProof: Sendable, Equatable {
    public let commitment: Point  // A
    public let response: BigInt  // z

    static let generator = try! P256.multiplyGenerator(.one)

    static func challenge(sid: [UInt8], label: String, pid: [UInt8], statement: Point, commitment: Point) -> BigInt {
        Transcript.scalarChallenge(
            "L17v1/schnorr",
            [sid, Array(label.utf8), pid, generator.compressed, statement.compressed, commitment.compressed])
    }

    /// Proves knowledge of `secret` with `X = secret·G`.
    public static func prove(
        secret: BigInt, statement: Point, sid: [UInt8], label: String, pid: [UInt8],
        random: RandomSource
    ) throws -> SchnorrProof {
        let nonce = try random.nonZeroInteger(below: P256.order, label: "schnorr.nonce.\(label)")
        let commitment = try P256.multiplyGenerator(nonce)
        let e = challenge(sid: sid, label: label, pid: pid, statement: statement, commitment: commitment)
        let z = (nonce + e * secret).modulo(P256.order)
        return SchnorrProof(commitment: commitment, response: z)
    }

    /// Checks `z < q` and `z·G == A + e·X` (points were validated when decoded).
    public func verify(statement: Point, sid: [UInt8], label: String, pid: [UInt8]) -> Bool {
        guard response < P256.order, !response.isZero else { return false }
        let e = Self.challenge(sid: sid, label: label, pid: pid, statement: statement, commitment: commitment)
        guard let left = try? P256.multiplyGenerator(response),
            let eX = try? statement.multiplied(by: e),
            let right = try? commitment + eX
        else { return false }
        return left == right
    }

    public var encoded: [UInt8] { commitment.compressed + Scalar.encode(response) }

    public init(commitment: Point, response: BigInt) {
        self.commitment = commitment
        self.response = response
    }

    public init(encoded bytes: [UInt8]) throws {
        guard bytes.count == 65 else { throw ThresholdError.proofRejected("a Schnorr proof is 65 bytes") }
        commitment = try Point(compressed: Array(bytes[0..<33]))
        response = try Scalar.decode(Array(bytes[33...]))
    }
}
