import ASiC
import FoundationEssentials
import TamgaSupport

/// The trust a running validation service judges with, and its refresh: the trusted lists are
/// loaded again on their next-update time (or every `interval`, whichever is sooner), and a
/// refresh that fails keeps the last good set, says so in `status` (the ready answer and the
/// metrics), and is tried again after `retry`, doubling up to `interval`. Only what `reload`
/// checked is ever swapped in; once the set in use is past its next update (the earliest of its
/// lists') and no refresh has replaced it, it is dropped rather than used past its validity
/// (`expired` in `status`; validations then find no trusted list, as `verify` without
/// `--allow-expired-trust` finds none in an expired cache).
public final class ServiceTrust: @unchecked Sendable {  // unchecked: `current` and `state` behind `lock`
    /// Where trust comes from, as the ready answer names it.
    public enum Source: String, Sendable {
        /// PEM anchors only (`--trust`): nothing to refresh.
        case anchors
        /// A list or list of lists given as a file (`--tsl`): read again on refresh.
        case listFile = "list-file"
        /// The trust cache (no --trust, no --tsl): updated from the list of lists' URL, then
        /// read again.
        case cache
    }

    /// One load of trust, as `reload` made it.
    public struct Loaded: Sendable {
        public var options: ValidationOptions
        /// The territories of the lists in use (empty with anchors only).
        public var territories: [String]
        /// The earliest next-update time of the lists in use.
        public var nextUpdate: Date?
        /// What went wrong without stopping the load (a national list kept or not usable, a
        /// download that failed): the refresh counts as failed and says this, but the checked
        /// lists it did read are used.
        public var problems: [String]

        public init(
            options: ValidationOptions, territories: [String] = [], nextUpdate: Date? = nil, problems: [String] = []
        ) {
            self.options = options
            self.territories = territories
            self.nextUpdate = nextUpdate
            self.problems = problems
        }
    }

    /// What the ready answer and the metrics report.
    public struct Status: Sendable {
        public let source: Source
        public let territories: [String]
        public let nextUpdate: Date?
        /// When the set in use was loaded.
        public let loaded: Date
        public let lastAttempt: Date?
        /// Why the last refresh failed; nil when it succeeded (or none was tried).
        public let lastFailure: String?
        public let refreshes: UInt64
        public let failures: UInt64
        public let nextRefresh: Date?
        /// The lists in use have all passed their next update and no refresh replaced them:
        /// they are no longer used.
        public let expired: Bool
    }

    public let source: Source
    /// nil: nothing to refresh (anchors only, or nothing configured).
    let reload: (@Sendable () async throws -> Loaded)?
    let interval: TimeInterval
    let retry: TimeInterval
    private let lock = Lock()
    private var current: Loaded
    private var loaded: Date
    private var lastAttempt: Date? = nil
    private var lastFailure: String? = nil
    private var consecutiveFailures = 0
    private var refreshes: UInt64 = 0
    private var failures: UInt64 = 0
    private var expired = false

    /// - Parameters:
    ///   - initial: the trust loaded at start (its problems are the start's, already said).
    ///   - interval: the longest time between refreshes, whatever the lists' next updates say.
    ///   - retry: the first wait after a failed refresh.
    public init(
        source: Source, initial: Loaded, interval: TimeInterval = 24 * 3600, retry: TimeInterval = 300,
        now: Date = Date(), reload: (@Sendable () async throws -> Loaded)?
    ) {
        self.source = source
        self.current = initial
        self.loaded = now
        self.interval = max(1, interval)
        self.retry = max(1, min(retry, interval))
        self.reload = reload
    }

    /// The options a validation uses now.
    public func options() -> ValidationOptions {
        lock.withLock { current.options }
    }

    public func status(now: Date = Date()) -> Status {
        lock.withLock {
            Status(
                source: source, territories: current.territories, nextUpdate: current.nextUpdate, loaded: loaded,
                lastAttempt: lastAttempt, lastFailure: lastFailure, refreshes: refreshes, failures: failures,
                nextRefresh: nextRefreshLocked(now: now), expired: expired)
        }
    }

    /// When the next refresh is due: the lists' next update, at most `interval` after the last
    /// load; after failures, `retry` doubled per failure, at most `interval`, after the last try.
    public func nextRefresh(now: Date = Date()) -> Date? {
        lock.withLock { nextRefreshLocked(now: now) }
    }

    private func nextRefreshLocked(now: Date) -> Date? {
        guard reload != nil else { return nil }
        if consecutiveFailures > 0, let lastAttempt {
            let wait = min(interval, retry * Double(1 << min(consecutiveFailures - 1, 20)))
            return lastAttempt.addingTimeInterval(wait)
        }
        let regular = loaded.addingTimeInterval(interval)
        guard let nextUpdate = current.nextUpdate, !expired else { return regular }
        return min(regular, max(nextUpdate, loaded))
    }

    /// Loads trust again now. Returns whether the refresh succeeded (a load with problems did
    /// not, though its checked lists are used).
    @discardableResult
    public func refresh(now: @Sendable () -> Date = { Date() }) async -> Bool {
        guard let reload else { return true }
        let result: Result<Loaded, Error>
        do { result = .success(try await reload()) } catch { result = .failure(error) }
        let finished = now()
        return lock.withLock { () -> Bool in
            lastAttempt = finished
            refreshes += 1
            switch result {
            case .success(let fresh):
                current = fresh
                loaded = finished
                expired = false
                if fresh.problems.isEmpty {
                    lastFailure = nil
                    consecutiveFailures = 0
                    return true
                }
                lastFailure = fresh.problems.joined(separator: "; ")
            case .failure(let error):
                lastFailure = "\(error)"
                // The last good set stays, until it is past its own next update.
                if let nextUpdate = current.nextUpdate, nextUpdate <= finished, current.options.trustedList != nil {
                    current.options.trustedList = nil
                    expired = true
                }
            }
            failures += 1
            consecutiveFailures += 1
            return false
        }
    }

    /// Refreshes when due, until the task is cancelled; `log` hears each failure and recovery.
    public func runRefreshes(log: @escaping @Sendable (String) -> Void) async {
        guard reload != nil else { return }
        while !Task.isCancelled {
            let wait = max(1, (nextRefresh() ?? Date().addingTimeInterval(interval)).timeIntervalSinceNow)
            try? await Task.sleep(nanoseconds: UInt64(min(wait, interval) * 1e9))
            if Task.isCancelled { return }
            let before = status()
            let ok = await refresh()
            let after = status()
            if !ok {
                log(
                    "tamga: trust refresh failed (\(after.expired ? "the lists in use have expired and are no longer used" : "the last good lists stay in use")): \(after.lastFailure ?? "")"
                )
            } else if before.lastFailure != nil {
                log("tamga: trust refresh succeeded again: \(after.territories.joined(separator: ", "))")
            }
        }
    }
}
