import ASiC
import FoundationEssentials
import HTTPService
import TamgaCore
import TamgaSupport
import TamgaTestSupport
import ValidationService
import XCTest

/// The operator's side of the validation service in process: the admission gate's 503, the
/// ready answer, the metrics and the access log; and the trust refresh's schedule and its
/// rule that lists past their next update are dropped when no refresh replaced them. The
/// refresh's `reload` here is a closure of the test's (the real one, which downloads and checks
/// the lists, is driven end to end by ValidationServeOperationsTests).
final class ValidationOperationsTests: XCTestCase {
    final class Lines: @unchecked Sendable {  // unchecked: `lines` behind `lock`
        private let lock = Lock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    private func request(_ path: String, method: String = "POST", body: String = "{}") -> HTTPRequest {
        HTTPRequest(
            method: method, path: path, headers: ["content-type": "application/json"], body: Array(body.utf8),
            client: IPAddress(bytes: [192, 0, 2, 7]))
    }

    private func operations(gate: AdmissionGate, log: Lines, names: Bool = false) throws -> ValidationOperations {
        let trust = ServiceTrust(source: .anchors, initial: .init(options: ValidationOptions()), reload: nil)
        let service = try SiVaService(version: "test") { trust.options() }
        return ValidationOperations(
            service: service, trust: trust, gate: gate, metrics: ValidationMetrics(),
            accessLog: AccessLog(includeNames: names) { log.append($0) })
    }

    private func object(_ response: HTTPResponse) -> [String: Any] {
        JSON.object(response.body) ?? [:]
    }

    func testValidationsBeyondTheRunningAndWaitingPlacesAreRefusedWith503() throws {
        let gate = AdmissionGate(running: 1, waiting: 0)
        let log = Lines()
        let operations = try operations(gate: gate, log: log)
        XCTAssertTrue(gate.enter(), "the one place is free")
        let busy = operations.handle(request("/validate"))
        XCTAssertEqual(busy.status, 503)
        XCTAssertEqual(busy.headers["Retry-After"], "1")
        let errors = object(busy)["requestErrors"] as? [[String: Any]]
        XCTAssertEqual(errors?.first?["key"] as? String, "serviceBusy")
        XCTAssertEqual(operations.handle(request("/validateHashcode")).status, 503)
        XCTAssertEqual(operations.handle(request("/getDataFiles")).status, 503)
        // The operator's and SiVa's monitoring never wait for a turn.
        XCTAssertEqual(operations.handle(request("/monitoring/ready", method: "GET")).status, 200)
        XCTAssertEqual(operations.handle(request("/monitoring/health", method: "GET")).status, 200)
        XCTAssertEqual(
            operations.handle(request("/validate", method: "GET")).status, 405, "a wrong method is not a validation")
        gate.leave()
        // Admitted again: this body is judged (and refused as SiVa refuses it), not turned away.
        let judged = operations.handle(request("/validate"))
        XCTAssertEqual(judged.status, 400)
        XCTAssertEqual(gate.counts.running, 0, "every admitted request left")
        XCTAssertEqual(gate.counts.refused, 3)

        let metrics = operations.handle(request("/metrics", method: "GET"))
        XCTAssertEqual(metrics.status, 200)
        XCTAssertEqual(metrics.headers["Content-Type"], PrometheusText.contentType)
        let text = String(decoding: metrics.body, as: UTF8.self)
        XCTAssertTrue(text.contains("tamga_validation_refused_total 3\n"), text)
        XCTAssertTrue(
            text.contains("tamga_validation_http_requests_total{route=\"/validate\",status=\"503\"} 1\n"), text)
        XCTAssertTrue(
            text.contains("tamga_validation_http_requests_total{route=\"/validate\",status=\"400\"} 1\n"), text)
        XCTAssertTrue(
            text.contains("tamga_validation_http_request_duration_seconds_count{route=\"/validate\"} 3\n"), text)
        XCTAssertTrue(text.contains("tamga_validation_trust_info{source=\"anchors\"} 1\n"), text)

        let entries = log.all.compactMap { JSON.object(Array($0.utf8)) }
        XCTAssertEqual(entries.count, 8, "one line per request, the scrape too")
        XCTAssertEqual(entries.first?["client"] as? String, "192.0.2.7")
        XCTAssertEqual(entries.first?["status"] as? Int, 503)
    }

    /// A waiting place holds a request until a running one leaves, then it runs.
    func testAWaitingValidationRunsWhenAPlaceIsFree() throws {
        let gate = AdmissionGate(running: 1, waiting: 1)
        XCTAssertTrue(gate.enter())
        let admitted = expectation(description: "the waiting request runs")
        DispatchQueue.global().async {
            if gate.enter() {
                admitted.fulfill()
                gate.leave()
            }
        }
        let deadline = Date().addingTimeInterval(10)
        while gate.counts.waiting == 0 && Date() < deadline { usleep(1000) }
        XCTAssertEqual(gate.counts.waiting, 1)
        XCTAssertFalse(gate.enter(), "the running and the waiting place are both taken")
        gate.leave()
        wait(for: [admitted], timeout: 10)
        XCTAssertEqual(gate.counts.refused, 1)
    }

    func testTheAccessLogHasNamesOnlyWhenAsked() throws {
        for names in [false, true] {
            let log = Lines()
            let operations = try operations(gate: AdmissionGate(running: 1, waiting: 0), log: log, names: names)
            let body =
                #"{"document": "\#(Data("PK not really".utf8).base64EncodedString())", "filename": "Mari Maasikas.asice"}"#
            XCTAssertEqual(operations.handle(request("/validate", body: body)).status, 400)
            XCTAssertEqual(operations.handle(request("/../etc/passwd\u{1B}[2J", method: "GET")).status, 404)
            let text = log.all.joined(separator: "\n")
            XCTAssertFalse(text.contains("passwd"), "a client's path is not logged: \(text)")
            XCTAssertFalse(text.contains("\u{1B}"))
            XCTAssertEqual(log.all.count, 2)
            // The document was not a container: nothing was judged, so no names either way.
            XCTAssertFalse(text.contains("Maasikas"), text)
        }
    }

    // MARK: - Trust

    private func list() throws -> TrustedList {
        let signer = try Certificate.parseAll(
            pem: try TestEnvironment.bytes(TestEnvironment.fixture("tsl/lotl/ee-tsl-signer.cert.pem")))
        return try TrustedList(
            data: try TestEnvironment.bytes(TestEnvironment.fixture("tsl/lotl/EE.xml")), signers: signer)
    }

    struct Unreachable: Error, CustomStringConvertible {
        var description: String { "the list of lists cannot be downloaded" }
    }

    func testAFailedRefreshKeepsTheLastGoodListsUntilTheirNextUpdate() async throws {
        let list = try list()
        let start = Date(timeIntervalSince1970: 2_000_000_000)
        let nextUpdate = start.addingTimeInterval(3600)
        let loaded = ServiceTrust.Loaded(
            options: ValidationOptions(trustedList: list), territories: ["EE"], nextUpdate: nextUpdate)
        let trust = ServiceTrust(source: .cache, initial: loaded, interval: 86400, retry: 300, now: start) {
            throw Unreachable()
        }
        XCTAssertEqual(
            trust.nextRefresh(now: start), nextUpdate, "due at the list's next update, sooner than the interval")

        let early = start.addingTimeInterval(60)
        let failed = await trust.refresh(now: { early })
        XCTAssertFalse(failed)
        var status = trust.status(now: early)
        XCTAssertNotNil(trust.options().trustedList, "still valid: kept")
        XCTAssertFalse(status.expired)
        XCTAssertEqual(status.lastFailure, "the list of lists cannot be downloaded")
        XCTAssertEqual(status.nextRefresh, early.addingTimeInterval(300), "retried after 5 minutes")
        let again = early.addingTimeInterval(300)
        _ = await trust.refresh(now: { again })
        XCTAssertEqual(trust.nextRefresh(now: again), again.addingTimeInterval(600), "then after twice as long")

        // Past the next update with no refresh: dropped, not used unchecked.
        let late = nextUpdate.addingTimeInterval(1)
        _ = await trust.refresh(now: { late })
        status = trust.status(now: late)
        XCTAssertNil(trust.options().trustedList)
        XCTAssertTrue(status.expired)
        XCTAssertEqual(status.failures, 3)

        // The ready answer says so with a 503.
        let operations = ValidationOperations(
            service: try SiVaService(version: "test") { trust.options() }, trust: trust,
            gate: AdmissionGate(running: 1, waiting: 0))
        let ready = operations.handle(HTTPRequest(method: "GET", path: "/monitoring/ready", headers: [:], body: []))
        XCTAssertEqual(ready.status, 503)
        XCTAssertEqual(object(ready)["status"] as? String, "not-ready")
        XCTAssertEqual((object(ready)["trust"] as? [String: Any])?["expired"] as? Bool, true)
    }

    func testARefreshThatSucceedsReplacesTheListsAndClearsTheFailure() async throws {
        let list = try list()
        let start = Date(timeIntervalSince1970: 2_000_000_000)
        final class Attempts: @unchecked Sendable {
            let lock = Lock()
            var count = 0
        }  // unchecked: `count` behind `lock`
        let attempts = Attempts()
        let trust = ServiceTrust(
            source: .cache, initial: .init(options: ValidationOptions()), interval: 600, retry: 60, now: start
        ) {
            let attempt = attempts.lock.withLock { () -> Int in
                attempts.count += 1
                return attempts.count
            }
            if attempt == 1 { throw Unreachable() }
            return .init(
                options: ValidationOptions(trustedList: list), territories: ["EE"], nextUpdate: list.nextUpdate,
                problems: attempt == 2 ? ["the LV list was kept"] : [])
        }
        XCTAssertEqual(trust.nextRefresh(now: start), start.addingTimeInterval(600), "no list: the interval")
        _ = await trust.refresh(now: { start })
        XCTAssertNil(trust.options().trustedList)
        // Read with a problem: the checked lists are used, the refresh still counts as failed.
        let partial = await trust.refresh(now: { start.addingTimeInterval(60) })
        XCTAssertFalse(partial)
        XCTAssertNotNil(trust.options().trustedList)
        XCTAssertEqual(trust.status().lastFailure, "the LV list was kept")
        let whole = await trust.refresh(now: { start.addingTimeInterval(120) })
        XCTAssertTrue(whole)
        let status = trust.status(now: start.addingTimeInterval(120))
        XCTAssertNil(status.lastFailure)
        XCTAssertEqual(status.territories, ["EE"])
        XCTAssertEqual(status.refreshes, 3)
        XCTAssertEqual(status.failures, 2)
        XCTAssertEqual(
            status.nextRefresh, start.addingTimeInterval(720), "a list due in 2045: the interval after the load")
    }

    func testAnchorsAloneHaveNothingToRefresh() async {
        let trust = ServiceTrust(source: .anchors, initial: .init(options: ValidationOptions()), reload: nil)
        XCTAssertNil(trust.nextRefresh())
        let refreshed = await trust.refresh()
        XCTAssertTrue(refreshed)
        XCTAssertEqual(trust.status().refreshes, 0)
    }
}
