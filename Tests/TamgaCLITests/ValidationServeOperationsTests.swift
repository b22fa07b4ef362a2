import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// `tamga validation serve` as an operator runs it: trust from the cache that `trust update`
/// filled from the test list of lists on loopback (scripts/test-trust-server.py), refreshed in
/// the background; a refresh that fails keeps the last good lists and says so on
/// /monitoring/ready and /metrics; the access log says what was asked and answered, and never
/// the document's name unless asked.
final class ValidationServeOperationsTests: XCTestCase {
    private var harness: ValidationServeHarness!

    override func setUpWithError() throws { harness = try ValidationServeHarness("validation-operations") }
    override func tearDown() { harness.stop() }

    private func readyTrust(_ url: URL) throws -> (Int, [String: Any]) {
        let (status, body) = try harness.get(url, "monitoring/ready")
        let json = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
        return (status, json["trust"] as? [String: Any] ?? [:])
    }

    /// Polls /monitoring/ready until `condition` holds of its trust (at most 30 s).
    private func waitForTrust(
        _ url: URL, _ what: String, _ condition: ([String: Any]) -> Bool
    ) throws -> (Int, [String: Any]) {
        let deadline = Date().addingTimeInterval(30)
        var last: (Int, [String: Any]) = (0, [:])
        while Date() < deadline {
            last = try readyTrust(url)
            if condition(last.1) { return last }
            usleep(200_000)
        }
        XCTFail("\(what): /monitoring/ready said \(last)")
        return last
    }

    private func metric(_ text: String, _ name: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap {
            Double($0.split(separator: " ").last ?? "")
        }
    }

    func testTrustIsRefreshedAndTheLastGoodListsKeptWhenARefreshFails() async throws {
        await harness.updateTrust()
        let container = try await harness.signedContainer()
        let (url, errors) = try harness.serve(["--trust-refresh", "1", "--metrics", "--log-names"])

        // Refreshed from the list of lists' URL, and judging with what it read.
        var (status, trust) = try waitForTrust(url, "a first refresh") { ($0["lastRefresh"] as? String) != nil }
        XCTAssertEqual(status, 200)
        XCTAssertEqual(trust["source"] as? String, "cache")
        XCTAssertEqual(trust["lastRefreshOK"] as? Bool, true, "\(trust)")
        XCTAssertEqual(Set(trust["lists"] as? [String] ?? []), ["EE", "LV"])
        XCTAssertEqual(trust["nextUpdate"] as? String, "2045-01-01T00:00:00Z")
        let (validated, passed) = try harness.validate(url, container, name: "lease 2026.asice")
        XCTAssertEqual(validated, 200)
        XCTAssertEqual(passed["validSignaturesCount"] as? Int, 1, "\(passed)")

        // The list of lists is now signed by a key that is not pinned: the refresh fails, the
        // last good lists stay in use, and both the ready answer and the metrics say so.
        try harness.publish("bad/eu-lotl-unpinned.xml", as: "eu-lotl.xml")
        (status, trust) = try waitForTrust(url, "a failed refresh") { ($0["lastRefreshOK"] as? Bool) == false }
        XCTAssertEqual(status, 200, "the last good lists are still valid: the instance stays in")
        XCTAssertEqual(Set(trust["lists"] as? [String] ?? []), ["EE", "LV"])
        XCTAssertTrue((trust["lastRefreshError"] as? String ?? "").contains("EU"), "\(trust)")
        let (stillValidated, stillPassed) = try harness.validate(url, container, name: "lease 2026.asice")
        XCTAssertEqual(stillValidated, 200)
        XCTAssertEqual(
            stillPassed["validSignaturesCount"] as? Int, 1, "judged with the last good lists: \(stillPassed)")
        let (metricsStatus, metrics) = try harness.get(url, "metrics")
        XCTAssertEqual(metricsStatus, 200)
        XCTAssertEqual(metric(metrics, "tamga_validation_trust_last_refresh_ok"), 0, metrics)
        XCTAssertGreaterThanOrEqual(metric(metrics, "tamga_validation_trust_refresh_failures_total") ?? 0, 1, metrics)
        XCTAssertEqual(metric(metrics, "tamga_validation_trust_lists"), 2, metrics)
        XCTAssertEqual(metric(metrics, "tamga_validation_signatures_total"), 2, metrics)
        XCTAssertEqual(metric(metrics, "tamga_validation_valid_signatures_total"), 2, metrics)
        XCTAssertTrue(
            metrics.contains("tamga_validation_http_requests_total{route=\"/validate\",status=\"200\"} 2"), metrics)

        // Published right again: the next refresh succeeds.
        try harness.publish("eu-lotl.xml", as: "eu-lotl.xml")
        (status, trust) = try waitForTrust(url, "a refresh that succeeds again") {
            ($0["lastRefreshOK"] as? Bool) == true
        }
        XCTAssertEqual(status, 200)
        XCTAssertNil(trust["lastRefreshError"])

        // The access log: one JSON line per request, the name only because --log-names was given.
        harness.stopServers()
        let log = errors.text
        let entries = log.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        let validations = entries.filter { $0["route"] as? String == "/validate" }
        XCTAssertEqual(validations.count, 2, log)
        for entry in validations {
            XCTAssertEqual(entry["status"] as? Int, 200)
            XCTAssertEqual(entry["client"] as? String, "127.0.0.1")
            XCTAssertEqual(entry["method"] as? String, "POST")
            XCTAssertEqual(entry["signatures"] as? Int, 1)
            XCTAssertEqual(entry["validSignatures"] as? Int, 1)
            XCTAssertEqual(entry["names"] as? [String], ["lease 2026.asice"])
            XCTAssertGreaterThan(entry["requestBytes"] as? Int ?? 0, 1000)
            XCTAssertGreaterThan(entry["microseconds"] as? Int ?? 0, 0)
        }
        XCTAssertTrue(log.contains("tamga: trust refresh failed (the last good lists stay in use)"), log)
        XCTAssertTrue(log.contains("tamga: trust refresh succeeded again"), log)
    }

    /// Without --log-names nothing of the document is logged, and a path a client made up is
    /// logged as "other", not as its text.
    func testTheAccessLogKeepsNamesOutUnlessAsked() async throws {
        let (url, errors) = try harness.serve(["--trust", TestEnvironment.pki("root.cert.pem")])
        let document = try TestEnvironment.write("not a container", named: "x.asice", in: harness.folder)
        let (status, _) = try harness.validate(url, document, name: "Jaan Tamm divorce.asice")
        XCTAssertEqual(status, 400)
        let (missing, _) = try harness.get(url, "secret-path-of-a-person")
        XCTAssertEqual(missing, 404)
        let (ready, _) = try harness.get(url, "monitoring/ready")
        XCTAssertEqual(ready, 200, "PEM anchors: nothing to refresh, always ready")
        harness.stopServers()
        let log = errors.text
        XCTAssertFalse(log.contains("Jaan"), log)
        XCTAssertFalse(log.contains("secret-path"), log)
        let entries = log.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        XCTAssertEqual(entries.map { $0["route"] as? String ?? "" }, ["/validate", "other", "/monitoring/ready"], log)
        XCTAssertEqual(entries.map { $0["status"] as? Int ?? 0 }, [400, 404, 200], log)
        XCTAssertNil(entries.first?["names"])
    }
}
