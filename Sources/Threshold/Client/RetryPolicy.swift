import FoundationEssentials
import Glibc
import TamgaCore

/// How the device resends a message whose answer may have been lost (`finish`, `abandon`): a
/// few tries with a doubling pause. Only for messages the co-signer treats idempotently (a
/// second `finish` after COMPLETE gets 409 and changes nothing); never for `prove`, whose
/// second c3 for one nonce the co-signer refuses by design.
public struct RetryPolicy: Sendable {
    /// Tries in all, the first included.
    public var attempts: Int
    /// The pause before the second try; each later pause doubles.
    public var firstDelay: TimeInterval

    public init(attempts: Int = 4, firstDelay: TimeInterval = 0.25) {
        self.attempts = max(1, attempts)
        self.firstDelay = max(0, firstDelay)
    }

    /// The pause before try `attempt` (0-based; none before the first).
    func delay(before attempt: Int) -> TimeInterval {
        attempt == 0 ? 0 : firstDelay * Double(1 << min(attempt - 1, 16))
    }

    /// True when the co-signer answered and refused (a 4xx other than 408 Request Timeout): the
    /// message arrived and was judged, so sending it again would be judged the same. Anything
    /// else — no connection, a reset, a timeout, a 5xx, an answer cut short or garbled — may be
    /// a lost segment, and the message may or may not have arrived.
    static func isRefusal(_ error: Error) -> Bool {
        switch error {
        case CoreError.serviceRefused(_, _, let status, _, _), CoreError.serviceHTTPStatus(_, _, let status):
            (400..<500).contains(status) && status != 408
        default:
            false
        }
    }

    /// The HTTP status of a refusal, if `error` is one (the co-signer's JSON refusal, or a bare
    /// status such as a proxy's own 503).
    public static func status(_ error: Error) -> Int? {
        switch error {
        case CoreError.serviceRefused(_, _, let status, _, _), CoreError.serviceHTTPStatus(_, _, let status): status
        default: nil
        }
    }
}
