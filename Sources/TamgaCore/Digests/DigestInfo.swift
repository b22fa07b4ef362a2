import FoundationEssentials
import Glibc

/// A DER `DigestInfo ::= SEQUENCE { AlgorithmIdentifier, OCTET STRING }` (RFC 8017 §9.2), as a
/// BDOC 2.1 time-mark puts it in the OCSP nonce over the SignatureValue.
public struct DigestInfo: Sendable, Equatable {
    /// The hash's OID in dotted form, known or not (an MD5 nonce names 1.2.840.113549.2.5).
    public let algorithmOID: String
    /// The hash, when it is one tamga computes (SHA-1, SHA-224, SHA-256, SHA-384, SHA-512).
    public var algorithm: DigestAlgorithm? { DigestAlgorithm(oid: algorithmOID) }
    public let digest: Data

    /// Parses exactly one DigestInfo: strict DER, parameters absent or NULL, nothing after it.
    public init(der: Data) throws {
        var outer = DERReader([UInt8](der))
        var info = DERReader(try outer.read(tag: 0x30))
        guard outer.isAtEnd else { throw CoreError.malformedSignature("bytes after the DigestInfo") }
        var identifier = DERReader(try info.read(tag: 0x30))
        algorithmOID = Certificate.dotted(try identifier.read(tag: 0x06))
        if !identifier.isAtEnd {
            guard try identifier.read(tag: 0x05).isEmpty, identifier.isAtEnd else {
                throw CoreError.malformedSignature("DigestInfo parameters other than NULL")
            }
        }
        digest = Data(try info.read(tag: 0x04))
        guard info.isAtEnd else { throw CoreError.malformedSignature("extra fields in the DigestInfo") }
    }
}
