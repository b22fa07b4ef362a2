import FoundationEssentials
import Glibc

/// A computed hash value together with the function that produced it.
/// `bytes` is the raw hash output, big-endian as the hash function defines it.
public struct Digest: Sendable, Hashable {
    public let algorithm: DigestAlgorithm
    public let bytes: Data

    /// Wraps a precomputed hash; its length must match the algorithm.
    public init(algorithm: DigestAlgorithm, bytes: Data) throws {
        guard bytes.count == algorithm.length else {
            throw CoreError.digestLength(expected: algorithm.length, actual: bytes.count)
        }
        self.algorithm = algorithm
        self.bytes = bytes
    }

    /// Hashes bytes held in memory. Large files go through `StreamingDigest` instead.
    public static func compute(_ algorithm: DigestAlgorithm, over data: Data) -> Digest {
        let hasher = StreamingDigest(algorithm)
        hasher.update(data)
        return hasher.finish()
    }

    /// Hex in lower case, for display.
    public var hex: String { Hex.encode(bytes) }
}

extension Digest: CustomStringConvertible {
    public var description: String { "\(algorithm):\(hex)" }
}
