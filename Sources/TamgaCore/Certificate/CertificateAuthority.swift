internal import COpenSSL
import FoundationEssentials
import Glibc
import TamgaSupport

/// A small issuing CA from a certificate and its key (PEM files): issues end-entity
/// certificates for keys that arrive as a verified request (the co-signer's CA for threshold
/// keys). Signing certificates get keyUsage nonRepudiation and QC statements as national
/// signing certificates carry; authentication ones digitalSignature and clientAuth.
// unchecked: immutable after init; OpenSSL objects only read
public final class CertificateAuthority: @unchecked Sendable {
    public enum Profile: Sendable { case signing, authentication }

    public let certificate: Certificate
    private let key: PKeyHandle
    public let ocspURL: String?
    public let issuerURL: String?
    /// An `openssl ca`-style index the issued certificates are appended to (a test OCSP
    /// responder reads it), when given.
    public let indexFile: String?

    public init(
        certificatePEM: Data, keyPEM: Data, password: SecretBytes? = nil, ocspURL: String? = nil,
        issuerURL: String? = nil, indexFile: String? = nil
    ) throws {
        certificate = try Certificate(derOrPEM: certificatePEM)
        key = try PKeyHandle.loadPrivateKey(keyPEM, password: password)
        guard key.matches(certificate.publicKey.handle) else { throw CoreError.keyCertificateMismatch }
        self.ocspURL = ocspURL
        self.issuerURL = issuerURL
        self.indexFile = indexFile
    }

    /// Issues a certificate for the key in `subjectPublicKeyInfo`, valid for `days` from now.
    public func issue(
        subjectPublicKeyInfo spki: Data, subject: [(String, String)], profile: Profile, days: Int = 3 * 365
    ) throws -> Certificate {
        let publicKey = try PublicKey(subjectPublicKeyInfo: spki)
        guard let cert = X509_new(), let name = X509_NAME_new() else {
            throw CoreError.cryptoFailure(operation: "X509_new", reason: openSSLErrorText())
        }
        defer {
            X509_free(cert)
            X509_NAME_free(name)
        }
        for (field, value) in subject {
            let bytes = Array(value.utf8)
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, bytes, Int32(bytes.count), -1, 0) == 1 else {
                throw CoreError.cryptoFailure(operation: "subject \(field)", reason: openSSLErrorText())
            }
        }
        // A random positive 16-byte serial.
        var serialBytes = [UInt8](repeating: 0, count: 16)
        guard SecureRandom.fill(&serialBytes) else {
            throw CoreError.cryptoFailure(operation: "serial", reason: "no randomness")
        }
        serialBytes[0] &= 0x7F
        serialBytes[0] |= 0x40
        guard let serialBN = BN_bin2bn(serialBytes, 16, nil) else {
            throw CoreError.cryptoFailure(operation: "serial", reason: openSSLErrorText())
        }
        defer { BN_free(serialBN) }
        let serial = X509_get_serialNumber(cert)
        guard X509_set_version(cert, 2) == 1, BN_to_ASN1_INTEGER(serialBN, serial) != nil,
            X509_set_issuer_name(cert, X509_get_subject_name(certificate.handle.pointer)) == 1,
            X509_set_subject_name(cert, name) == 1, X509_set_pubkey(cert, publicKey.handle.pointer) == 1,
            X509_gmtime_adj(X509_getm_notBefore(cert), -300) != nil,
            X509_gmtime_adj(X509_getm_notAfter(cert), Int(days) * 86_400) != nil
        else {
            throw CoreError.cryptoFailure(operation: "certificate fields", reason: openSSLErrorText())
        }
        var extensions: [(Int32, String)] = [
            (NID_basic_constraints, "critical,CA:FALSE"), (NID_subject_key_identifier, "hash"),
            (NID_authority_key_identifier, "keyid:always"),
        ]
        switch profile {
        case .signing:
            extensions.append((NID_key_usage, "critical,nonRepudiation"))
            // QCStatements: QcCompliance, QcSSCD, QcType esign (a qualified signature on a QSCD).
            extensions.append(
                (
                    NID_qcStatements,
                    "DER:30:29:30:08:06:06:04:00:8E:46:01:01:30:08:06:06:04:00:8E:46:01:04:30:13:06:06:04:00:8E:46:01:06:30:09:06:07:04:00:8E:46:01:06:01"
                ))
        case .authentication:
            extensions.append((NID_key_usage, "critical,digitalSignature"))
            extensions.append((NID_ext_key_usage, "clientAuth"))
        }
        var access: [String] = []
        if let ocspURL { access.append("OCSP;URI:\(ocspURL)") }
        if let issuerURL { access.append("caIssuers;URI:\(issuerURL)") }
        if !access.isEmpty { extensions.append((NID_info_access, access.joined(separator: ","))) }
        for (nid, value) in extensions {
            guard let ext = cossl_extension(certificate.handle.pointer, cert, nid, value) else {
                throw CoreError.cryptoFailure(operation: "extension \(nid)", reason: openSSLErrorText())
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(cert, ext, -1) == 1 else {
                throw CoreError.cryptoFailure(operation: "X509_add_ext", reason: openSSLErrorText())
            }
        }
        guard X509_sign(cert, key.pointer, EVP_sha256()) > 0 else {
            throw CoreError.cryptoFailure(operation: "X509_sign", reason: openSSLErrorText())
        }
        guard let der = encodeDER({ i2d_X509(cert, &$0) }) else {
            throw CoreError.cryptoFailure(operation: "i2d_X509", reason: openSSLErrorText())
        }
        let issued = try Certificate(der: der)
        if let indexFile {
            try appendToIndex(issued, serialHex: Hex.encode(serialBytes, uppercase: true), file: indexFile)
        }
        return issued
    }

    /// `V <expiry> <empty> <serial> unknown <DN>` as `openssl ca` writes its index.
    private func appendToIndex(_ issued: Certificate, serialHex: String, file: String) throws {
        var seconds = time_t(issued.notAfter.timeIntervalSince1970), parts = tm()
        gmtime_r(&seconds, &parts)
        let expiry =
            [parts.tm_year % 100, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec]
            .map { NumberText.decimal($0, width: 2) }.joined() + "Z"
        let line = "V\t\(expiry)\t\t\(serialHex)\tunknown\t/\(issued.subject.replacingAll(",", with: "/"))\n"
        let descriptor = open(file, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw CoreError.unreadableFile(path: file, reason: "cannot append") }
        defer { close(descriptor) }
        guard FileDescriptorOutput.write(Array(line.utf8), to: descriptor) else {
            throw CoreError.unreadableFile(path: file, reason: "cannot append")
        }
    }
}
