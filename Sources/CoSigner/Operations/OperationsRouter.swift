import Dispatch
import FoundationEssentials
import Glibc
import HTTPService

/// What `cosigner serve` hands the HTTP server: the operator's endpoints — `GET /v3/health`,
/// `GET /v3/ready`, and `GET /metrics` when metrics are on — in front of the API, and every
/// request timed and counted on its way through. Kept outside `CoSignerService` so the API's
/// handlers stay about signing, and so a load balancer's probes never reach the attestation or
/// rate-limiting paths.
public final class OperationsRouter: Sendable {
    public let service: CoSignerService
    /// nil: `/metrics` answers 404 like any unknown route (metrics are opt-in: they tell whoever
    /// can reach the port how busy the service is).
    public let metrics: CoSignerMetrics?

    public init(service: CoSignerService, metrics: CoSignerMetrics? = nil) {
        self.service = service
        self.metrics = metrics
    }

    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let started = DispatchTime.now().uptimeNanoseconds
        let response = answer(request)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        metrics?.record(method: request.method, path: request.path, status: response.status, seconds: seconds)
        return response
    }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        switch (request.method, parts) {
        case ("GET", ["v3", "health"]):
            // Live: the process serves requests. Nothing else is checked, so a load balancer
            // restarting on this never restarts a co-signer over a database outage.
            return .json(["status": "live"])
        case ("GET", ["v3", "ready"]):
            switch service.store.readiness() {
            case .ready(let version):
                return .json(Ready(status: "ready", schemaVersion: version))
            case .databaseUnavailable(let reason):
                return .error(
                    503, code: "database-unavailable",
                    message: "the database cannot be read (\(reason)); this instance takes no requests until it can")
            case .schemaMismatch(let found, let expected):
                return .error(
                    503, code: "schema-mismatch",
                    message:
                        "the database has schema version \(found) and this co-signer needs \(expected): run the co-signer version that matches the database (or migrate it), then restart"
                )
            }
        case ("GET", ["metrics"]) where metrics != nil:
            let text = metrics?.exposition(store: service.store) ?? ""
            return HTTPResponse(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
                body: Array(text.utf8))
        default:
            return service.handle(request)
        }
    }

    struct Ready: Encodable {
        let status: String
        let schemaVersion: Int
    }
}
