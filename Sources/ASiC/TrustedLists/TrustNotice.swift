import FoundationEssentials
import Glibc

/// A fact about the trust a validation used, which the report carries as a container-level
/// finding so that `--json` readers see it too (not only a line on stderr).
public enum TrustNotice: Sendable, Equatable {
    /// A trusted list past its NextUpdate was used (`--allow-expired-trust`): the message names
    /// it and when it expired. Finding `trust-list-expired` [WARNING].
    case expiredListUsed(String)
    /// No `--trust`, no `--tsl` and no trust cache. Finding `no-trust-configured` [UNKNOWN]:
    /// nothing can be VALID.
    case noTrustConfigured

    var code: String {
        switch self {
        case .expiredListUsed: "trust-list-expired"
        case .noTrustConfigured: "no-trust-configured"
        }
    }

    var severity: ValidationReport.Status {
        switch self {
        case .expiredListUsed: .warning
        case .noTrustConfigured: .unknown
        }
    }

    var message: String {
        switch self {
        case .expiredListUsed(let message): message
        case .noTrustConfigured: TrustedListError.noTrustConfigured.description
        }
    }
}
