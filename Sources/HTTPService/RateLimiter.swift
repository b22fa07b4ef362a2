import FoundationEssentials
import Glibc
import TamgaSupport

/// One token bucket per name (a relying party): `rate` tokens a second up to `burst`. Buckets
/// of names not seen for a while are dropped, so the table stays as small as the set of
/// callers active in the last minute.
public final class RateLimiter: @unchecked Sendable {  // unchecked: `buckets` behind `lock`
    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    public let rate: Double
    public let burst: Double
    private let lock = Lock()
    private var buckets: [String: Bucket] = [:]

    public init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
    }

    /// Takes one token for `name`; false when its bucket is empty.
    public func take(_ name: String, now: Date = Date()) -> Bool {
        lock.withLock {
            if buckets.count > 10_000 { buckets = buckets.filter { now.timeIntervalSince($0.value.updated) < 60 } }
            var bucket = buckets[name] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * rate)
            bucket.updated = now
            guard bucket.tokens >= 1 else {
                buckets[name] = bucket
                return false
            }
            bucket.tokens -= 1
            buckets[name] = bucket
            return true
        }
    }
}
