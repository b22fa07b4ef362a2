import FoundationEssentials
import Glibc

/// Hashes data fed in pieces, so that a 2 GB file is never held in memory.
/// Not thread-safe: one owner feeds it, then calls `finish()` once.
public final class StreamingDigest {
    public let algorithm: DigestAlgorithm
    private let context: EVPDigestContext

    public init(_ algorithm: DigestAlgorithm) {
        self.algorithm = algorithm
        self.context = EVPDigestContext(algorithm)
    }

    private init(algorithm: DigestAlgorithm, context: EVPDigestContext) {
        self.algorithm = algorithm
        self.context = context
    }

    /// A hasher that has seen what this one has seen so far, so that one prefix can end in
    /// several digests without being hashed again. Nil only when out of memory.
    public func copy() -> StreamingDigest? {
        EVPDigestContext(copying: context).map { StreamingDigest(algorithm: algorithm, context: $0) }
    }

    public func update(_ data: Data) {
        data.withUnsafeBytes { context.update($0) }
    }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        context.update(bytes)
    }

    /// The final hash. The hasher must not be used afterwards.
    public func finish() -> Digest {
        // The length always matches: EVP produced it for this algorithm.
        try! Digest(algorithm: algorithm, bytes: context.finish())
    }
}
