internal import COpenSSL
import FoundationEssentials
import Glibc

/// Owns one `EVP_MD_CTX`.
final class EVPDigestContext {
    private let context: OpaquePointer
    private let length: Int

    init(_ algorithm: DigestAlgorithm) {
        context = EVP_MD_CTX_new()!
        length = algorithm.length
        // Initialisation of a built-in digest only fails when out of memory.
        precondition(EVP_DigestInit_ex(context, algorithm.evpMD, nil) == 1, "EVP_DigestInit_ex failed")
    }
    /// A second context in the same state as `other` (nil only when out of memory).
    init?(copying other: EVPDigestContext) {
        guard let copy = EVP_MD_CTX_new() else { return nil }
        guard EVP_MD_CTX_copy_ex(copy, other.context) == 1 else {
            EVP_MD_CTX_free(copy)
            return nil
        }
        context = copy
        length = other.length
    }
    deinit { EVP_MD_CTX_free(context) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    func finish() -> Data {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var written: UInt32 = 0
        EVP_DigestFinal_ex(context, &out, &written)
        return Data(out.prefix(Int(written)))
    }
}
