import FoundationEssentials
import HTTPService
import TamgaSupport

/// What `GET /metrics` of `validation serve` reports (Prometheus text 0.0.4): requests by route
/// and status, a latency histogram per route, signatures judged and passed, the admission
/// gate (running, waiting, refused), and the trust in use and its refreshes.
public final class ValidationMetrics: @unchecked Sendable {  // unchecked: `lock` guards the counters
    /// Seconds: a small container validates in milliseconds, a 10 MB one in about a second.
    static let bounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10]

    struct RequestKey: Hashable { let route: String, status: Int }
    private let lock = Lock()
    private var requests: [RequestKey: UInt64] = [:]
    private var latencies: [String: LatencyHistogram] = [:]
    private var signatures: UInt64 = 0
    private var validSignatures: UInt64 = 0

    public init() {}

    func record(route: String, status: Int, seconds: Double, outcome: SiVaService.Outcome?) {
        lock.withLock {
            requests[RequestKey(route: route, status: status), default: 0] += 1
            latencies[route, default: LatencyHistogram(bounds: Self.bounds)].record(seconds)
            if let outcome {
                signatures += UInt64(max(0, outcome.signatures))
                validSignatures += UInt64(max(0, outcome.validSignatures))
            }
        }
    }

    func exposition(gate: AdmissionGate, trust: ServiceTrust, now: Date = Date()) -> PrometheusText {
        let (requests, latencies, signatures, validSignatures) = lock.withLock {
            (self.requests, self.latencies, self.signatures, self.validSignatures)
        }
        var text = PrometheusText()
        text.family("tamga_validation_http_requests_total", "counter", "HTTP requests answered, by route and status.")
        for (key, count) in requests.sorted(by: { ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status) }) {
            text.sample(
                "tamga_validation_http_requests_total", [("route", key.route), ("status", String(key.status))],
                String(count))
        }
        text.family(
            "tamga_validation_http_request_duration_seconds", "histogram",
            "Time from a whole request to its answer, by route.")
        for (route, histogram) in latencies.sorted(by: { $0.key < $1.key }) {
            text.histogram("tamga_validation_http_request_duration_seconds", [("route", route)], histogram)
        }
        text.family("tamga_validation_signatures_total", "counter", "Signatures judged.")
        text.sample("tamga_validation_signatures_total", [], String(signatures))
        text.family("tamga_validation_valid_signatures_total", "counter", "Signatures judged TOTAL-PASSED.")
        text.sample("tamga_validation_valid_signatures_total", [], String(validSignatures))

        let counts = gate.counts
        text.family("tamga_validation_running", "gauge", "Validations running now.")
        text.sample("tamga_validation_running", [], String(counts.running))
        text.family("tamga_validation_waiting", "gauge", "Validations waiting for a turn now.")
        text.sample("tamga_validation_waiting", [], String(counts.waiting))
        text.family(
            "tamga_validation_refused_total", "counter",
            "Validations refused with 503 because the running and waiting places were all taken.")
        text.sample("tamga_validation_refused_total", [], String(counts.refused))

        let status = trust.status(now: now)
        text.family(
            "tamga_validation_trust_info", "gauge", "Where trust comes from (anchors, list-file, cache); always 1.")
        text.sample("tamga_validation_trust_info", [("source", status.source.rawValue)], "1")
        text.family("tamga_validation_trust_lists", "gauge", "Trusted lists in use.")
        text.sample("tamga_validation_trust_lists", [], String(status.territories.count))
        text.family(
            "tamga_validation_trust_expired", "gauge",
            "1 when the lists in use passed their next update without a refresh and were dropped.")
        text.sample("tamga_validation_trust_expired", [], status.expired ? "1" : "0")
        text.family(
            "tamga_validation_trust_loaded_timestamp_seconds", "gauge", "When the lists in use were loaded (Unix time)."
        )
        text.sample(
            "tamga_validation_trust_loaded_timestamp_seconds", [],
            PrometheusText.number(status.loaded.timeIntervalSince1970.rounded()))
        if let nextUpdate = status.nextUpdate {
            text.family(
                "tamga_validation_trust_next_update_timestamp_seconds", "gauge",
                "The earliest next update of the lists in use (Unix time).")
            text.sample(
                "tamga_validation_trust_next_update_timestamp_seconds", [],
                PrometheusText.number(nextUpdate.timeIntervalSince1970.rounded()))
        }
        text.family("tamga_validation_trust_refreshes_total", "counter", "Trust refreshes tried.")
        text.sample("tamga_validation_trust_refreshes_total", [], String(status.refreshes))
        text.family(
            "tamga_validation_trust_refresh_failures_total", "counter",
            "Trust refreshes that failed (the last good lists stayed in use).")
        text.sample("tamga_validation_trust_refresh_failures_total", [], String(status.failures))
        text.family(
            "tamga_validation_trust_last_refresh_ok", "gauge",
            "1 when the last refresh succeeded or none was needed yet, else 0.")
        text.sample("tamga_validation_trust_last_refresh_ok", [], status.lastFailure == nil ? "1" : "0")
        return text
    }
}
