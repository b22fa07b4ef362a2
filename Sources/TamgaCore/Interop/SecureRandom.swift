internal import COpenSSL

/// Cryptographic random bytes from OpenSSL's DRBG.
public enum SecureRandom {
    /// Fills `bytes`; false only if the DRBG failed (then the bytes must not be used).
    @discardableResult
    public static func fill(_ bytes: inout [UInt8]) -> Bool {
        let count = Int32(bytes.count)
        return bytes.withUnsafeMutableBytes { RAND_bytes($0.bindMemory(to: UInt8.self).baseAddress, count) == 1 }
    }
}
