internal import COpenSSL
import FoundationEssentials
import Glibc

/// The text of OpenSSL's most recent error, clearing the queue. Used in error messages only.
func openSSLErrorText() -> String {
    var lines: [String] = []
    while case let code = ERR_get_error(), code != 0 {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        lines.append(string(fromNULTerminated: buffer))
    }
    return lines.isEmpty ? "unknown error" : lines.joined(separator: "; ")
}

/// A Swift string from a NUL-terminated C buffer.
func string(fromNULTerminated buffer: [CChar]) -> String {
    let bytes = buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}

/// Owns one `X509*`; freed in `deinit`. Immutable after creation, so sharing is safe.
final class X509Handle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { X509_free(pointer) }

    /// Parses one DER certificate; nil if the bytes are not exactly one certificate.
    static func parse(der: Data) -> X509Handle? {
        der.withUnsafeBytes { raw -> X509Handle? in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let x = d2i_X509(nil, &cursor, raw.count) else { return nil }
            // Trailing bytes after the certificate are refused: they hide data from a DER comparison.
            guard let end = cursor, end == base + raw.count else {
                X509_free(x)
                return nil
            }
            return X509Handle(taking: x)
        }
    }

    var derBytes: Data { encodeDER { i2d_X509(pointer, &$0) } ?? Data() }
}

/// Owns one `EVP_PKEY*` (public or private); freed in `deinit`.
final class PKeyHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(taking pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }
}

/// A memory BIO over bytes, freed when the closure returns.
func withReadBIO<T>(_ data: Data, _ body: (OpaquePointer) throws -> T) rethrows -> T {
    try data.withUnsafeBytes { raw in
        let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count))!
        defer { BIO_free(bio) }
        return try body(bio)
    }
}

/// Runs an OpenSSL `i2d_*` encoder that allocates its output, copies the bytes and frees them.
/// Nil when the encoder fails.
func encodeDER(_ encode: (inout UnsafeMutablePointer<UInt8>?) -> Int32) -> Data? {
    var out: UnsafeMutablePointer<UInt8>? = nil
    let length = encode(&out)
    guard length > 0, let bytes = out else { return nil }
    defer { cossl_free(bytes) }
    return Data(bytes: bytes, count: Int(length))
}

/// Reads everything written into a memory BIO.
func memoryBIOContents(_ bio: OpaquePointer) -> Data {
    var pointer: UnsafeMutablePointer<CChar>? = nil
    let length = cossl_bio_get_mem_data(bio, &pointer)
    guard length > 0, let p = pointer else { return Data() }
    return Data(bytes: p, count: Int(length))
}

extension DigestAlgorithm {
    /// The OpenSSL message digest for this algorithm.
    var evpMD: OpaquePointer {
        switch self {
        case .sha1: EVP_sha1()
        case .sha224: EVP_sha224()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
    }
}
