import Foundation
import TamgaCore

/// A throw-away CA whose subject has the name forms real CAs use (organizationIdentifier,
/// emailAddress, UTF-8, BMPString and TeletexString values, a multi-valued RDN), made with the
/// `openssl` command line, and one signing certificate (nonRepudiation, EC P-256) it issued.
/// Tests compare the signer's issuer with `X509IssuerName` strings in every RFC 4514 form.
public struct NamedIssuerPKI: Sendable {
    /// OpenSSL's `string_mask`: `utf8only` writes UTF8String (C stays PrintableString, e-mail
    /// IA5String); `default` writes PrintableString, TeletexString for Latin-1 text and
    /// BMPString beyond it.
    public enum StringMask: String, Sendable { case utf8only, `default` }

    public let caCertificatePath: String
    public let caKeyPath: String
    public let signerCertificatePath: String
    public let signerKeyPath: String
    public let caCertificate: Certificate
    public let signerCertificate: Certificate

    /// The signer's serial, `0x00ff12` = 65298 (the example of docs/design/asics-tm-names.md §3).
    public static let signerSerialDecimal = "65298"

    /// Makes the CA `/…` `subject` (OpenSSL's slash form, `+` for a multi-valued RDN) and its
    /// signer in `folder`, files named after `label`.
    public static func make(label: String, subject: String, mask: StringMask, in folder: URL) throws -> NamedIssuerPKI {
        let config = folder.appendingPathComponent("\(label).cnf").path
        try Data(
            """
            [req]
            distinguished_name = dn
            string_mask = \(mask.rawValue)
            [dn]
            [ca_ext]
            basicConstraints = critical,CA:TRUE
            keyUsage = critical,keyCertSign,cRLSign
            subjectKeyIdentifier = hash
            [signer_ext]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,nonRepudiation
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid

            """.utf8
        ).write(to: URL(fileURLWithPath: config))
        func path(_ suffix: String) -> String { folder.appendingPathComponent("\(label)-\(suffix)").path }
        let caKey = path("ca.key.pem"), caCert = path("ca.cert.pem")
        let signerKey = path("signer.key.pem"), request = path("signer.csr"), signerCert = path("signer.cert.pem")
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", caKey])
        try openssl([
            "req", "-new", "-x509", "-key", caKey, "-config", config, "-extensions", "ca_ext", "-utf8",
            "-multivalue-rdn", "-subj", subject, "-days", "30", "-set_serial", "7", "-out", caCert,
        ])
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", signerKey])
        try openssl([
            "req", "-new", "-key", signerKey, "-config", config, "-utf8", "-subj", "/C=EE/CN=Signer of \(label)",
            "-out", request,
        ])
        try openssl([
            "x509", "-req", "-in", request, "-CA", caCert, "-CAkey", caKey, "-set_serial", "0x00ff12",
            "-extfile", config, "-extensions", "signer_ext", "-days", "30", "-out", signerCert,
        ])
        return NamedIssuerPKI(
            caCertificatePath: caCert, caKeyPath: caKey, signerCertificatePath: signerCert, signerKeyPath: signerKey,
            caCertificate: try Certificate(derOrPEM: TestEnvironment.bytes(caCert)),
            signerCertificate: try Certificate(derOrPEM: TestEnvironment.bytes(signerCert)))
    }

    /// A signer over the signing key and certificate.
    public func signer() throws -> SoftwareSigner {
        try SoftwareSigner(key: TestEnvironment.bytes(signerKeyPath), certificate: signerCertificate)
    }

    private static func openssl(_ arguments: [String]) throws {
        let result = try TestEnvironment.run("/usr/bin/openssl", arguments)
        guard result.status == 0 else {
            throw CoreError.cryptoFailure(
                operation: "openssl \(arguments.prefix(2).joined(separator: " "))", reason: result.error)
        }
    }
}
