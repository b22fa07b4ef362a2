import FoundationEssentials

/// A signature's verdict in the words of ETSI EN 319 102-1 (§5.1.3): the main indication and its
/// sub-indication, as SiVa reports them. One mapping from tamga's findings, here, so that every
/// output that speaks ETSI (the validation service, `verify --json`) says the same; the table is
/// in docs/siva.md.
///
/// It can never be more favourable than tamga's own verdict: only VALID, WARNING and NON_QSCD
/// are TOTAL-PASSED (a policy may still fail NON_QSCD: `SiVaPolicy`). An INVALID signature is
/// TOTAL-FAILED when one of its findings is a failure ETSI counts as final (a digest, the
/// signature value, revocation, expiry, the format), else INDETERMINATE with the sub-indication
/// of its first finding (a broken constraint, missing evidence); UNKNOWN (trust not
/// established) is INDETERMINATE.
public struct ETSIIndication: Sendable, Equatable {
    public enum Indication: String, Sendable {
        case totalPassed = "TOTAL-PASSED"
        case totalFailed = "TOTAL-FAILED"
        case indeterminate = "INDETERMINATE"
    }

    public let indication: Indication
    /// Nil when TOTAL-PASSED.
    public let subIndication: String?

    public init(indication: Indication, subIndication: String?) {
        self.indication = indication
        self.subIndication = subIndication
    }

    /// The verdict of one signature.
    public init(_ signature: ValidationReport.SignatureResult) {
        self.init(status: signature.status, findings: signature.findings)
    }

    /// ETSI EN 319 102-1 Table 5: the sub-indications of TOTAL-FAILED; all others are INDETERMINATE's.
    static let finalFailures: Set<String> = [
        "FORMAT_FAILURE", "HASH_FAILURE", "SIG_CRYPTO_FAILURE", "REVOKED", "EXPIRED", "NOT_YET_VALID",
    ]

    public init(status: ValidationReport.Status, findings: [ValidationReport.Finding]) {
        switch status {
        case .valid, .warning, .nonQSCD:
            self.init(indication: .totalPassed, subIndication: nil)
        case .unknown:
            let first = findings.first { $0.severity == .unknown }
            self.init(
                indication: .indeterminate,
                subIndication: first.map { Self.subIndication(forIndeterminate: $0.code) }
                    ?? "NO_CERTIFICATE_CHAIN_FOUND")
        case .invalid:
            let subIndications = findings.filter { $0.severity == .invalid }.map {
                Self.subIndication(forFailed: $0.code)
            }
            if let final = subIndications.first(where: Self.finalFailures.contains) {
                self.init(indication: .totalFailed, subIndication: final)
            } else {
                self.init(
                    indication: .indeterminate, subIndication: subIndications.first ?? "NO_CERTIFICATE_CHAIN_FOUND")
            }
        }
    }

    /// The sub-indication for a finding that made a signature INVALID. Findings about the data
    /// (digests), the signature value, revocation and expiry have their own; everything about
    /// the form, the certificate references, the evidence and its order is a FORMAT_FAILURE or
    /// the constraint it broke.
    public static func subIndication(forFailed code: String) -> String {
        let code = code.hasSuffix("-at-issue") ? String(code.dropLast("-at-issue".count)) : code
        switch code {
        case "reference-digest", "data-file-digest", "signed-properties-digest", "archive-reference-digest",
            "ddoc-alternate-digest", "timestamp-imprint", "archive-timestamp-imprint":
            return "HASH_FAILURE"
        case "signature-value", "ocsp-signature":
            return "SIG_CRYPTO_FAILURE"
        case "certificate-revoked":
            return "REVOKED"
        case "certificate-expired":
            return "EXPIRED"
        case "reference-file-missing", "data-file-unreadable", "archive-reference-not-found",
            "data-file-digest-algorithm":
            return "SIGNED_DATA_NOT_FOUND"
        case "keyinfo-certificate", "signing-certificate", "signing-certificate-digest",
            "signing-certificate-issuer-serial":
            return "NO_SIGNING_CERTIFICATE_FOUND"
        case "certificate-chain", "issuer-missing":
            return "CERTIFICATE_CHAIN_GENERAL_FAILURE"
        case "no-non-repudiation":
            return "CHAIN_CONSTRAINTS_FAILURE"
        case "unsupported-signature-method", "unsupported-digest", "unsupported-canonicalization":
            return "CRYPTO_CONSTRAINTS_FAILURE"
        case "ocsp-missing", "profile-too-low":
            return "FORMAT_FAILURE"
        case "revocation-values", "ocsp-unreadable", "ocsp-status-unknown", "ocsp-responder-untrusted",
            "ocsp-responder-certificate", "ocsp-other-certificate", "revocation-not-fresh", "conflicting-revocation":
            return "TRY_LATER"
        case "ocsp-before-timestamp", "ocsp-produced-late", "archive-timestamp-order", "signing-time-after-timestamp":
            return "TIMESTAMP_ORDER_FAILURE"
        case "time-mark-policy", "time-mark-policy-spuri", "time-mark-responder-policy":
            return "POLICY_PROCESSING_ERROR"
        default:
            return "FORMAT_FAILURE"
        }
    }

    /// The sub-indication for a finding that left trust unknown.
    public static func subIndication(forIndeterminate code: String) -> String {
        let code = code.hasSuffix("-at-issue") ? String(code.dropLast("-at-issue".count)) : code
        switch code {
        case "trust-not-established", "archive-chain": return "NO_CERTIFICATE_CHAIN_FOUND"
        case "trust-list-expired": return "TRY_LATER"
        default: return "NO_CERTIFICATE_CHAIN_FOUND"
        }
    }
}
