import Dispatch
import FoundationEssentials
import HTTPService
import TamgaCore
import TamgaSupport

/// What `validation serve` hands the HTTP server: the operator's endpoints (`GET
/// /monitoring/ready`, and `GET /metrics` when metrics are on) in front of SiVa's API, the
/// admission gate in front of the validating routes, and every request timed, counted and
/// logged on its way through. Kept apart from `SiVaService` so that the API's code stays
/// SiVa's, and so that a load balancer's probes never wait for a turn.
public final class ValidationOperations: Sendable {
    public let service: SiVaService
    public let trust: ServiceTrust
    public let gate: AdmissionGate
    /// nil: `/metrics` is not found (they tell whoever reaches the port how busy it is).
    public let metrics: ValidationMetrics?
    public let accessLog: AccessLog?
    /// What a refused client is told to wait, in seconds.
    static let retryAfter = 1

    public init(
        service: SiVaService, trust: ServiceTrust, gate: AdmissionGate, metrics: ValidationMetrics? = nil,
        accessLog: AccessLog? = nil
    ) {
        self.service = service
        self.trust = trust
        self.gate = gate
        self.metrics = metrics
        self.accessLog = accessLog
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        var outcome: SiVaService.Outcome? = nil
        let response = answer(request, &outcome)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        metrics?.record(
            route: AccessLog.route(request.path), status: response.status, seconds: seconds, outcome: outcome)
        accessLog?.record(request, response: response, seconds: seconds, outcome: outcome)
        return response
    }

    private func answer(_ request: HTTPRequest, _ outcome: inout SiVaService.Outcome?) -> HTTPResponse {
        switch request.path {
        case "/monitoring/ready":
            guard request.method == "GET" else { return SiVaService.methodNotAllowed("GET") }
            return ready()
        case "/metrics" where metrics != nil:
            guard request.method == "GET" else { return SiVaService.methodNotAllowed("GET") }
            return metrics?.exposition(gate: gate, trust: trust).response ?? HTTPResponse(status: 404)
        case let path where SiVaService.validationRoutes.contains(path) && request.method == "POST":
            guard gate.enter() else {
                let counts = gate.counts
                var busy = SiVaService.json(
                    RequestErrors([
                        .init(
                            key: "serviceBusy",
                            message:
                                "The service is validating \(counts.running) documents with \(counts.waiting) waiting, the most it takes; try again in \(Self.retryAfter) s or at another instance"
                        )
                    ]).json, status: 503)
                busy = HTTPResponse(
                    status: busy.status, headers: busy.headers.merging(["Retry-After": String(Self.retryAfter)]) { $1 },
                    body: busy.body)
                return busy
            }
            defer { gate.leave() }
            return service.handle(request, outcome: &outcome)
        default:
            return service.handle(request, outcome: &outcome)
        }
    }

    /// 200 while the service can judge with the trust it was configured with; 503 when the
    /// trusted lists it should use are gone (none usable, or expired without a refresh). Either
    /// way the trust's state is in the body: a refresh that failed while the last good lists
    /// are still valid is said here and keeps the instance in.
    func ready(now: Date = Date()) -> HTTPResponse {
        let status = trust.status(now: now)
        var members: [(String, JSON.Value)] = [
            ("source", .string(status.source.rawValue)),
            ("lists", .array(status.territories.map { .string($0) })),
            ("loaded", .string(XSDDateTime.format(status.loaded))),
            ("nextUpdate", status.nextUpdate.map { .string(XSDDateTime.format($0)) } ?? .null),
            ("lastRefresh", status.lastAttempt.map { .string(XSDDateTime.format($0)) } ?? .null),
            ("lastRefreshOK", .bool(status.lastFailure == nil)),
            ("nextRefresh", status.nextRefresh.map { .string(XSDDateTime.format($0)) } ?? .null),
            ("expired", .bool(status.expired)),
        ]
        if let failure = status.lastFailure { members.append(("lastRefreshError", .string(failure))) }
        let usesLists = status.source == .cache || status.source == .listFile
        let reason: String? =
            !usesLists
            ? nil
            : status.expired
                ? "the trusted lists passed their next update and no refresh replaced them"
                : status.territories.isEmpty ? "no trusted list is usable" : nil
        var body: [(String, JSON.Value)] = [("status", .string(reason == nil ? "ready" : "not-ready"))]
        if let reason { body.append(("reason", .string(reason))) }
        body.append(("trust", .object(members)))
        return SiVaService.json(.object(body), status: reason == nil ? 200 : 503)
    }
}
