import FoundationEssentials
import Glibc

/// The trust cache cannot be written.
public enum TrustCacheError: Error, CustomStringConvertible {
    case writeFailed(path: String, reason: String)

    public var code: String { "trust-cache-write" }
    public var description: String {
        switch self {
        case .writeFailed(let path, let reason):
            "Cannot write \(path) (\(reason)); check the permissions of the folder or set XDG_CACHE_HOME."
        }
    }
}
