import FoundationEssentials
import Glibc

extension ServerKeyShare {
    /// The share as stored by the co-signer (then sealed with its server key): fixed-width
    /// fields `keyID 32 | clientPID 32 | x2 32 | q1 33 | Q 33 | N 256 | ckey 512`.
    public var storageBytes: [UInt8] {
        keyID + clientPID + Scalar.encode(x2) + q1.compressed + publicKey.compressed
            + (paillier.n.bytes(width: 256) ?? []) + (ckey.bytes(width: 512) ?? [])
    }

    static let storageSize = 32 + 32 + 32 + 33 + 33 + 256 + 512

    /// Reads `storageBytes` back, checking every field (and that x2·Q1 = Q).
    public init(storageBytes bytes: [UInt8]) throws {
        guard bytes.count == Self.storageSize else {
            throw ThresholdError.keyStore("a stored server share has \(bytes.count) bytes")
        }
        var offset = 0
        func take(_ count: Int) -> [UInt8] {
            defer { offset += count }
            return Array(bytes[offset..<(offset + count)])
        }
        let keyID = take(32), clientPID = take(32)
        let x2 = try Scalar.decode(take(32))
        let q1 = try Point(compressed: take(33)), q = try Point(compressed: take(33))
        let paillier = try PaillierPublicKey.validated(BigInt(bytes: take(256)))
        let ckey = BigInt(bytes: take(512))
        try paillier.validateCiphertext(ckey)
        guard try q1.multiplied(by: x2) == q else {
            throw ThresholdError.keyStore("a stored server share does not match its public key")
        }
        self.init(
            pool: RandomizerPool(publicKey: paillier), keyID: keyID, clientPID: clientPID, x2: x2, q1: q1, publicKey: q,
            paillier: paillier, ckey: ckey)
    }
}
