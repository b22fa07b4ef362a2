internal import COpenSSL
import FoundationEssentials
import Glibc

/// A PKCS#10 certificate request whose signature is made elsewhere: by a key that never exists
/// in one place (the threshold key signs the request's to-be-signed bytes through its own
/// protocol). `make` builds the request for a public key and a subject and gives the digest to
/// sign; `signed(with:)` inserts the raw ECDSA signature and returns the DER request.
public final class CertificateRequest: @unchecked Sendable {  // unchecked: owns its X509_REQ, used by one task
    private let request: OpaquePointer
    /// SHA-256 of the request's to-be-signed DER.
    public let digest: Digest
    /// The request's to-be-signed DER (CertificationRequestInfo): what a co-signer compares
    /// with the request it rebuilds itself before it signs the digest.
    public let toBeSigned: Data

    /// `subject`: RDNs in order, e.g. `[("C", "EE"), ("CN", "…")]`.
    public init(subjectPublicKeyInfo spki: Data, subject: [(String, String)]) throws {
        guard let request = X509_REQ_new() else {
            throw CoreError.cryptoFailure(operation: "X509_REQ_new", reason: openSSLErrorText())
        }
        self.request = request
        let key = try PublicKey(subjectPublicKeyInfo: spki)
        guard let name = X509_NAME_new() else {
            throw CoreError.cryptoFailure(operation: "X509_NAME_new", reason: openSSLErrorText())
        }
        defer { X509_NAME_free(name) }
        for (field, value) in subject {
            let bytes = Array(value.utf8)
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1 else {
                throw CoreError.cryptoFailure(operation: "subject \(field)", reason: openSSLErrorText())
            }
        }
        guard X509_REQ_set_version(request, 0) == 1, X509_REQ_set_subject_name(request, name) == 1,
            X509_REQ_set_pubkey(request, key.handle.pointer) == 1
        else {
            throw CoreError.cryptoFailure(operation: "X509_REQ fields", reason: openSSLErrorText())
        }
        guard let tbs = encodeDER({ i2d_re_X509_REQ_tbs(request, &$0) }) else {
            throw CoreError.cryptoFailure(operation: "i2d_re_X509_REQ_tbs", reason: openSSLErrorText())
        }
        toBeSigned = tbs
        digest = Digest.compute(.sha256, over: tbs)
    }

    deinit { X509_REQ_free(request) }

    /// The DER request with `signature` (raw r‖s of ECDSA P-256 over `digest`) in place.
    public func signed(with signature: Data) throws -> Data {
        let der = try ECDSASignature.der(fromRaw: signature, curve: .p256)
        guard let algorithm = X509_ALGOR_new(), let bits = ASN1_BIT_STRING_new() else {
            throw CoreError.cryptoFailure(operation: "signature objects", reason: openSSLErrorText())
        }
        X509_ALGOR_set0(algorithm, OBJ_nid2obj(NID_ecdsa_with_SHA256), V_ASN1_UNDEF, nil)
        let set = der.withUnsafeBytes {
            ASN1_BIT_STRING_set(
                bits, UnsafeMutablePointer(mutating: $0.bindMemory(to: UInt8.self).baseAddress), Int32($0.count))
        }
        _ = cossl_bit_string_set_no_unused(bits)
        guard set == 1, X509_REQ_set1_signature_algo(request, algorithm) == 1 else {
            X509_ALGOR_free(algorithm)
            ASN1_BIT_STRING_free(bits)
            throw CoreError.cryptoFailure(operation: "signature", reason: openSSLErrorText())
        }
        X509_ALGOR_free(algorithm)
        X509_REQ_set0_signature(request, bits)
        guard let encoded = encodeDER({ i2d_X509_REQ(request, &$0) }) else {
            throw CoreError.cryptoFailure(operation: "i2d_X509_REQ", reason: openSSLErrorText())
        }
        return encoded
    }

    /// A received request: its public key (SPKI DER) and whether its signature verifies.
    public static func verify(_ der: Data) throws -> (subjectPublicKeyInfo: Data, valid: Bool) {
        let request: OpaquePointer? = der.withUnsafeBytes { raw in
            var cursor = raw.bindMemory(to: UInt8.self).baseAddress.map { UnsafePointer<UInt8>($0) }
            return d2i_X509_REQ(nil, &cursor, raw.count)
        }
        guard let request else {
            ERR_clear_error()
            throw CoreError.malformedCertificate("not a DER certificate request")
        }
        defer { X509_REQ_free(request) }
        guard let key = X509_REQ_get0_pubkey(request) else {
            throw CoreError.malformedCertificate("the request has no public key")
        }
        let valid = X509_REQ_verify(request, key) == 1
        ERR_clear_error()
        guard let spki = encodeDER({ i2d_PUBKEY(key, &$0) }) else {
            throw CoreError.malformedCertificate("the request's key does not encode")
        }
        return (spki, valid)
    }
}
