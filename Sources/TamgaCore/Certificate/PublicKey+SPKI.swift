internal import COpenSSL
import FoundationEssentials
import Glibc

extension PublicKey {
    /// A public key from its DER SubjectPublicKeyInfo (for keys that come without a
    /// certificate, such as a threshold key's joint public key).
    public init(subjectPublicKeyInfo der: Data) throws {
        let key: OpaquePointer? = der.withUnsafeBytes { raw in
            var cursor = raw.bindMemory(to: UInt8.self).baseAddress.map { UnsafePointer<UInt8>($0) }
            return d2i_PUBKEY(nil, &cursor, raw.count)
        }
        guard let key else {
            ERR_clear_error()
            throw CoreError.malformedKey("not a DER SubjectPublicKeyInfo")
        }
        self.init(handle: PKeyHandle(taking: key))
    }
}

extension PublicKey {
    /// The key as a DER SubjectPublicKeyInfo.
    public var subjectPublicKeyInfo: Data? { encodeDER { i2d_PUBKEY(handle.pointer, &$0) } }
}
