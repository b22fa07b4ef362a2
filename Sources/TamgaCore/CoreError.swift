/// Everything that can go wrong in TamgaCore, as a stable code plus a message that tells a
/// person what to do next. The case name is the code used by `--json`, exit codes and tests.
public enum CoreError: Error, Equatable, Sendable {
    /// Certificate bytes that are neither DER nor PEM X.509.
    case malformedCertificate(String)
    /// A key file that could not be read as PEM, PKCS#8 or PKCS#12.
    case malformedKey(String)
    /// A key file is protected and the password (PIN) given was wrong. Never retried.
    case wrongPassword
    /// A key file is protected and no password was provided.
    case passwordRequired
    /// The key and the certificate do not belong together.
    case keyCertificateMismatch
    /// A key type or size tamga does not sign with.
    case unsupportedKey(String)
    /// An algorithm URI or combination tamga does not implement.
    case unsupportedAlgorithm(String)
    /// An ECDSA signature that is neither DER nor r‖s of the right width.
    case malformedSignature(String)
    /// A digest whose length does not match its algorithm.
    case digestLength(expected: Int, actual: Int)
    /// The digest to sign was computed with another hash than the key's algorithm uses.
    case digestAlgorithmMismatch(expected: DigestAlgorithm, actual: DigestAlgorithm)
    /// OpenSSL failed in a way that is not the caller's fault; `reason` is OpenSSL's text.
    case cryptoFailure(operation: String, reason: String)
    /// A file could not be read.
    case unreadableFile(path: String, reason: String)
    /// A network service (TSA, OCSP) could not be reached or timed out.
    case serviceUnreachable(service: String, url: String, reason: String)
    /// A network service answered with an HTTP error status.
    case serviceHTTPStatus(service: String, url: String, status: Int)
    /// A service refused with its own reason (an HTTP error status and a JSON
    /// `{"error": {"code", "message"}}` body, as the co-signer answers).
    case serviceRefused(service: String, url: String, status: Int, code: String, message: String)
    /// A network service answered, but not with something acceptable (garbage, a refusal, a
    /// nonce or imprint mismatch, a bad signature, a stale or unauthorised response).
    case serviceResponseRejected(service: String, url: String, reason: String)
    /// The OCSP responder says the signer's certificate is revoked or unknown.
    case certificateNotGood(status: String)
    /// No URL to ask: the certificate has no AIA OCSP URL and none was given.
    case serviceURLMissing(service: String)
    /// Text from outside (hex, base64, a number) that is not in the form the field needs.
    case malformedText(field: String, reason: String)

    /// The stable machine-readable code.
    public var code: String {
        switch self {
        case .malformedCertificate: "malformed-certificate"
        case .malformedKey: "malformed-key"
        case .wrongPassword: "wrong-password"
        case .passwordRequired: "password-required"
        case .keyCertificateMismatch: "key-certificate-mismatch"
        case .unsupportedKey: "unsupported-key"
        case .unsupportedAlgorithm: "unsupported-algorithm"
        case .malformedSignature: "malformed-signature"
        case .digestLength: "digest-length"
        case .digestAlgorithmMismatch: "digest-algorithm-mismatch"
        case .cryptoFailure: "crypto-failure"
        case .unreadableFile: "unreadable-file"
        case .serviceUnreachable: "service-unreachable"
        case .serviceHTTPStatus: "service-http-status"
        case .serviceRefused: "service-refused"
        case .serviceResponseRejected: "service-response-rejected"
        case .certificateNotGood: "certificate-not-good"
        case .serviceURLMissing: "service-url-missing"
        case .malformedText: "malformed-text"
        }
    }
}

extension CoreError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .malformedCertificate(let why):
            "The certificate could not be read (\(why)). Give a DER or PEM X.509 certificate."
        case .malformedKey(let why):
            "The key could not be read (\(why)). Give a PEM/PKCS#8 private key or a PKCS#12 (.p12) file."
        case .wrongPassword:
            "The password for the key file is wrong. Nothing was signed; tamga does not retry."
        case .passwordRequired:
            "The key file is protected. Give its password with --pin-file FILE, TAMGA_PIN, or at the prompt."
        case .keyCertificateMismatch:
            "The private key does not belong to the certificate. Check that you gave the matching pair."
        case .unsupportedKey(let what):
            "Unsupported key: \(what). tamga signs with EC P-256/P-384 and RSA 2048 bits or more."
        case .unsupportedAlgorithm(let what):
            "Unsupported algorithm: \(what)."
        case .malformedSignature(let why):
            "Malformed signature value: \(why)."
        case .digestLength(let expected, let actual):
            "The digest is \(actual) bytes long; this algorithm needs \(expected)."
        case .digestAlgorithmMismatch(let expected, let actual):
            "The digest was computed with \(actual) but the key signs with \(expected)."
        case .cryptoFailure(let operation, let reason):
            "\(operation) failed in OpenSSL: \(reason)."
        case .unreadableFile(let path, let reason):
            "Cannot read \(path): \(reason)."
        case .serviceUnreachable(let service, let url, let reason)
        where reason.contains("TLS certificate is not trusted"):
            "The \(service) at \(url) was reached, but \(reason). Nothing was changed; if this server is the right one, trust its certificate's CA (for the co-signer: threshold enroll --ca-file CA.pem; for a TSA, OCSP or remote service: its own certificate option, see tamga help)."
        case .serviceUnreachable(let service, let url, let reason) where reason.contains("not the one pinned"):
            "The \(service) at \(url) answered with another key than the one pinned at enrollment (\(reason)). Nothing was changed; if the co-signer's key really changed, enroll again."
        case .serviceUnreachable(let service, let url, let reason):
            "The \(service) at \(url) could not be reached (\(reason)). Nothing was changed; check the URL, the network or the proxy settings (http_proxy/https_proxy)."
        case .serviceHTTPStatus(let service, let url, let status):
            "The \(service) at \(url) answered HTTP \(status). Nothing was changed."
        case .serviceRefused(let service, let url, let status, let code, let message):
            "The \(service) at \(url) refused (HTTP \(status)): \(TerminalText.escaped(code)): \(TerminalText.escaped(message))."
        case .serviceResponseRejected(let service, let url, let reason):
            "The \(service) at \(url) gave an unacceptable answer: \(reason). Nothing was changed."
        case .certificateNotGood(let status):
            "The OCSP responder reports the signing certificate as \(status); a signature with it would not validate. Nothing was changed."
        case .serviceURLMissing(let service):
            "No URL for the \(service): give one (see --help)."
        case .malformedText(let field, let reason):
            "\(field) is malformed: \(reason)."
        }
    }
}
