import Foundation

/// Anything that can produce a signature over a digest with a certified key: a software key,
/// an ID card, a PKCS#11 token, or the two-party threshold key. `ASiC` calls only this.
public protocol Signer: Sendable {
    /// The signing certificate; for a card this is read from the card.
    func certificate() async throws -> Certificate
    /// The algorithm the key signs with. The digest passed to `sign` uses `algorithm.digest`.
    var algorithm: SignatureAlgorithm { get }
    /// Signs a precomputed digest.
    /// - Returns: for ECDSA the raw `r‖s`, each half left-padded to the curve's field size
    ///   (the XML-DSig form); for RSA the signature block as long as the modulus.
    func sign(digest: Digest) async throws -> Data
}
