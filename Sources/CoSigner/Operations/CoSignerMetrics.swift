import FoundationEssentials
import Glibc
import HTTPService
import TamgaSupport

/// What `GET /metrics` reports, in the Prometheus text exposition format 0.0.4: requests by
/// method, route pattern and status; a latency histogram per route; and, read from the database
/// at each scrape (so every instance sharing it reports the same), sessions by state and
/// enrolled keys by role.
public final class CoSignerMetrics: @unchecked Sendable {  // unchecked: `lock` guards the counters
    /// Latency bucket bounds in seconds: the signing steps take tens of milliseconds, an
    /// enrollment about a second.
    static let bounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// Every state a session can be in; listed even when none is, so a dashboard sees a zero
    /// rather than a missing series.
    static let sessionStates = ["PENDING", "COMMITTED", "PROVED", "COMPLETE", "FAILED", "EXPIRED", "ABANDONED"]

    struct RequestKey: Hashable { let method: String, route: String, status: Int }
    struct RouteKey: Hashable { let method: String, route: String }

    private let lock = Lock()
    private var requests: [RequestKey: UInt64] = [:]
    private var latencies: [RouteKey: LatencyHistogram] = [:]

    public init() {}

    /// Counts one answered request that took `seconds`.
    func record(method: String, path: String, status: Int, seconds: Double) {
        let route = RoutePattern.of(path), method = RoutePattern.method(method)
        lock.withLock {
            requests[RequestKey(method: method, route: route, status: status), default: 0] += 1
            latencies[RouteKey(method: method, route: route), default: LatencyHistogram(bounds: Self.bounds)].record(
                seconds)
        }
    }

    /// The exposition text; the database's numbers come from `store` (a failed query is
    /// reported as `tamga_cosigner_database_up 0`, not as a failed scrape).
    func exposition(store: CoSignerStore) -> String {
        let (requests, latencies) = lock.withLock { (self.requests, self.latencies) }
        var text = PrometheusText()
        func family(_ name: String, _ type: String, _ help: String) { text.family(name, type, help) }
        func sample(_ name: String, _ labels: [(String, String)], _ value: String) { text.sample(name, labels, value) }

        family(
            "tamga_cosigner_http_requests_total", "counter",
            "HTTP requests answered, by method, route pattern and status.")
        for (key, count) in requests.sorted(by: {
            ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
        }) {
            sample(
                "tamga_cosigner_http_requests_total",
                [("method", key.method), ("route", key.route), ("status", String(key.status))], String(count))
        }
        family(
            "tamga_cosigner_http_request_duration_seconds", "histogram",
            "Time from a whole request to its answer, by method and route pattern.")
        for (key, histogram) in latencies.sorted(by: { ($0.key.route, $0.key.method) < ($1.key.route, $1.key.method) })
        {
            text.histogram(
                "tamga_cosigner_http_request_duration_seconds", [("method", key.method), ("route", key.route)],
                histogram)
        }

        let counts = try? databaseCounts(store)
        family("tamga_cosigner_database_up", "gauge", "1 when this scrape could read the database, else 0.")
        sample("tamga_cosigner_database_up", [], counts == nil ? "0" : "1")
        if let counts {
            family("tamga_cosigner_sessions", "gauge", "Signing sessions in the database, by state.")
            for state
                in (Self.sessionStates + counts.sessions.keys.filter { !Self.sessionStates.contains($0) }.sorted())
            {
                sample("tamga_cosigner_sessions", [("state", state)], String(counts.sessions[state] ?? 0))
            }
            family("tamga_cosigner_enrolled_keys", "gauge", "Keys enrolled (server shares held), by role.")
            for role in ["auth", "sign"] {
                sample("tamga_cosigner_enrolled_keys", [("role", role)], String(counts.keys[role] ?? 0))
            }
        }
        return text.text
    }

    /// Sessions by state and keys by role, in one read each (plain SQL both stores understand).
    private func databaseCounts(_ store: CoSignerStore) throws -> (sessions: [String: Int64], keys: [String: Int64]) {
        func grouped(_ sql: String) throws -> [String: Int64] {
            var result: [String: Int64] = [:]
            for row in try store.database.query(sql) where row.count == 2 {
                if let name = row[0].text, let count = row[1].integer { result[name] = count }
            }
            return result
        }
        return (
            try grouped("SELECT state, COUNT(*) FROM sessions GROUP BY state"),
            try grouped("SELECT role, COUNT(*) FROM keys GROUP BY role")
        )
    }
}
