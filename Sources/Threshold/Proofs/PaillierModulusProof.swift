/// Proof that N is a valid Paillier modulus (`gcd(N, φ(N)) = 1`): the NiCorrectKey construction
/// (GRSB18, parameters from ePrint 2018/987 §6.2.3) — N-th roots `σ_i` of 11 values `ρ_i` the
/// verifier derives itself from `(N, sid)` — together with the check that N has no prime factor
/// below 6379 (`PaillierPublicKey.validated`). Only the holder of `φ(N)` can take N-th roots.
/// This shows square-freeness, not how many factors N has or how large they are: enrollment
/// pairs it with Π^mod (two primes, of which this is the N-th-root half) and Π^fac (both above
/// 2^255); `docs/threshold-proofs.md`.
public struct PaillierModulusProof: Sendable, Equatable {
    public static let rounds = 11
    public let roots: [BigInt]

    public init(roots: [BigInt]) { self.roots = roots }

    /// `ρ_i = OS2IP(expand_message_xmd(LP(N, sid, u32be(i)), "L17v1/paillier-n/rho", 256 + 16)) mod N`.
    static func challenges(n: BigInt, sid: [UInt8]) -> [BigInt] {
        (0..<rounds).map { index in
            let counter: [UInt8] = [
                UInt8(index >> 24 & 0xFF), UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF),
            ]
            let message = Transcript.lengthPrefixed([n.bytes(width: 256) ?? n.bytes, sid, counter])
            return BigInt(
                bytes: Transcript.expandMessageXMD(
                    message, domain: Array("L17v1/paillier-n/rho".utf8), length: 256 + 16)
            ).modulo(n)
        }
    }

    /// σ_i = ρ_i^(N⁻¹ mod φ(N)) mod N, with the secret exponent in constant time.
    public static func prove(secretKey: PaillierSecretKey, sid: [UInt8]) throws -> PaillierModulusProof {
        try prove(n: secretKey.publicKey.n, phi: (secretKey.p - 1) * (secretKey.q - 1), sid: sid)
    }

    /// The same from `φ(N)` of any modulus (a test's malicious client proves a three-prime N:
    /// this proof alone cannot tell, which is why Π^mod and Π^fac come with it).
    public static func prove(n: BigInt, phi: BigInt, sid: [UInt8]) throws -> PaillierModulusProof {
        guard let exponent = n.inverse(modulo: phi) else {
            throw ThresholdError.invalidPaillierModulus("gcd(N, φ(N)) ≠ 1")
        }
        return PaillierModulusProof(
            roots: challenges(n: n, sid: sid).map { $0.power(exponent, modulo: n, exponentIsSecret: true) })
    }

    /// Checks the modulus's form, the number of roots, and `σ_i^N ≡ ρ_i (mod N)` for each.
    public func verify(n: BigInt, sid: [UInt8]) throws {
        _ = try PaillierPublicKey.validated(n)
        guard roots.count == Self.rounds else {
            throw ThresholdError.proofRejected("the N proof has \(roots.count) roots, not \(Self.rounds)")
        }
        for (index, (root, rho)) in zip(roots, Self.challenges(n: n, sid: sid)).enumerated() {
            guard !root.isZero, !root.isNegative, root < n else {
                throw ThresholdError.proofRejected("root \(index) out of range")
            }
            guard root.power(n, modulo: n, exponentIsSecret: false) == rho else {
                throw ThresholdError.proofRejected("root \(index) is not an N-th root of its challenge")
            }
        }
    }
}
