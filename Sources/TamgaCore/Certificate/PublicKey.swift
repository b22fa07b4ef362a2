import FoundationEssentials
import Glibc

/// A certificate's public key: its type and size, and signature verification over a digest.
public struct PublicKey: Sendable {
    /// The kind of key, with its size.
    public enum KeyType: Sendable, Hashable {
        case ec(SignatureAlgorithm.Curve)
        case rsa(bits: Int)
        case unsupported(String)
    }

    let handle: PKeyHandle
    public let type: KeyType

    init(handle: PKeyHandle) {
        self.handle = handle
        self.type = handle.keyType
    }

    /// The algorithm tamga signs with for this key when nothing else is asked:
    /// the hash follows the curve for EC (as the reference does), SHA-256 PKCS#1 v1.5 for RSA.
    public var defaultAlgorithm: SignatureAlgorithm? {
        switch type {
        case .ec(let curve): .ecdsa(curve, curve.defaultDigest)
        case .rsa: .rsaPKCS1SHA256
        case .unsupported: nil
        }
    }

    /// Checks `signature` over `digest`.
    /// - Parameter signature: raw `r‖s` of exactly 2 × field size for ECDSA (DER is refused,
    ///   as the reference verifier refuses it); the PKCS#1/PSS block for RSA.
    /// - Returns: true only when the signature is valid for this key.
    public func verify(signature: Data, digest: Digest, algorithm: SignatureAlgorithm) -> Bool {
        guard digest.algorithm == algorithm.digest else { return false }
        switch (type, algorithm.kind) {
        case (.ec(let keyCurve), .ecdsa(let curve)):
            guard keyCurve == curve, let der = try? ECDSASignature.der(fromRaw: signature, curve: curve) else {
                return false
            }
            return handle.verify(signature: der, digest: digest, padding: .none)
        case (.rsa, .rsaPKCS1):
            return handle.verify(signature: signature, digest: digest, padding: .pkcs1)
        case (.rsa, .rsaPSS):
            return handle.verify(signature: signature, digest: digest, padding: .pss)
        default:
            return false
        }
    }
}

extension PublicKey: CustomStringConvertible {
    public var description: String {
        switch type {
        case .ec(let curve): "EC \(curve.rawValue)"
        case .rsa(let bits): "RSA \(bits)"
        case .unsupported(let name): name
        }
    }
}
