import FoundationEssentials
import Glibc
import TamgaCore

/// The arithmetic of Lindell 2017 two-party ECDSA with multiplicative shares (`x = x1·x2`,
/// `Q = x1·Q2 = x2·Q1`): the server's homomorphic step and the client's assembly, as pure
/// functions over values. The message-level parties (commitments, proofs, session state and
/// terminal abort) are built on these.
public enum TwoPartySigning {
    /// The mask range for `ρ` in `c1 = Enc(ρ·q + k2⁻¹·m)`: with the Π^log* slack (ℓ = 256,
    /// ε = 512) the enrolled plaintext may be as large as 2^768, so ρ is drawn from
    /// [0, 2^1024) (`docs/design/threshold-ecdsa.md` §3.2); the plaintext stays below 2^1281, far under N/2.
    public static let maskBits = 1024

    /// The honest maximum of `Dec(c3)`: anything larger is a cryptographic failure.
    public static let decryptionBound = BigInt.one.shiftedLeft(1281 + 1)

    /// Server: `c3 = Enc(ρ·q + k2⁻¹·m mod q) ⊕ ((k2⁻¹·r·x2 mod q) ⊙ ckey)`.
    public static func serverCiphertext(
        message m: BigInt, r: BigInt, k2: BigInt, x2: BigInt, ckey: BigInt,
        publicKey: PaillierPublicKey, random: RandomSource, pool: RandomizerPool? = nil
    ) throws -> BigInt {
        let q = P256.order
        guard let k2Inverse = nonceInverse(k2) else { throw ThresholdError.invalidScalar("k2 has no inverse") }
        let rho = try random.integer(below: BigInt.one.shiftedLeft(maskBits), label: "sign.rho")
        let plaintext = rho * q + (k2Inverse * m).modulo(q)
        let c1 =
            try pool?.take().map { publicKey.encrypt(plaintext, randomizerPower: $0) }
            ?? publicKey.encrypt(plaintext, random: random, label: "sign.r_enc")
        let v = (k2Inverse * r * x2).modulo(q)
        return publicKey.add(c1, publicKey.multiply(ckey, by: v))
    }

    /// Client: `s = k1⁻¹·Dec(c3) mod q`, low-s normalised; checks the decryption's range.
    public static func clientSignature(
        c3: BigInt, r: BigInt, k1: BigInt, secretKey: PaillierSecretKey
    ) throws -> (r: BigInt, s: BigInt) {
        let q = P256.order
        let sPrime = try secretKey.decrypt(c3)
        guard sPrime < decryptionBound else {
            throw ThresholdError.invalidCiphertext("decrypts out of the honest range")
        }
        guard let k1Inverse = nonceInverse(k1) else { throw ThresholdError.invalidScalar("k1 has no inverse") }
        var s = (k1Inverse * sPrime).modulo(q)
        guard !s.isZero else { throw ThresholdError.signatureCheckFailed }
        let half = q / BigInt(UInt(2))
        if s > half { s = q - s }
        return (r, s)
    }

    /// A nonce's inverse modulo the group order q, in constant time (k^(q−2) mod q by
    /// `mpz_powm_sec`, never `mpz_invert`: k1 and k2 are secret, and a timing leak of a few
    /// bits of ECDSA nonces over many signatures recovers the key by lattice reduction).
    /// nil for k ≡ 0.
    static func nonceInverse(_ k: BigInt) -> BigInt? {
        k.secretInverse(modulo: P256.order)
    }

    /// The DER SubjectPublicKeyInfo of a P-256 point (id-ecPublicKey, prime256v1).
    public static func subjectPublicKeyInfo(_ point: Point) -> Data {
        let prefix: [UInt8] = [
            0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01,
            0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
        ]
        return Data(prefix + point.uncompressed)
    }

    /// ECDSA verification by OpenSSL of `(r, s)` over `digest` under `publicKey`.
    public static func verify(r: BigInt, s: BigInt, digest: Digest, publicKey: Point) -> Bool {
        guard let key = try? PublicKey(subjectPublicKeyInfo: subjectPublicKeyInfo(publicKey)),
            let rBytes = r.bytes(width: 32), let sBytes = s.bytes(width: 32)
        else { return false }
        return key.verify(signature: Data(rBytes + sBytes), digest: digest, algorithm: .ecdsaP256SHA256)
    }
}
