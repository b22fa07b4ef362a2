import XCTest
@testable import TamgaCLI
import TamgaTestSupport

/// `tamga validation serve` as an operator runs it: trust from the cache that `trust update`
/// filled from the test list of lists on loopback (scripts/test-trust-server.py), refreshed in
/// the background; a refresh that fails keeps the last good lists and says so on
/// /monitoring/ready and /metrics; the access log says what was asked and answered, and never
/// the document's name unless asked.
final class ValidationServeOperationsTests: XCTestCase {
    private var folder: URL!
    private var www: URL!
    private var listServer: Process?
    private var listURL: URL!
    private var services: TestServices?
    private var servers: [Process] = []
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    override func setUpWithError() throws {
        folder = try TestEnvironment.temporaryFolder("validation-operations")
        www = folder.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        for name in ["eu-lotl.xml", "EE.xml", "LV.xml"] { try publish(name, as: name) }
        let (process, url) = try TestEnvironment.startListeningServer("test-trust-server.py", ["--root", www.path])
        listServer = process
        listURL = url
    }

    override func tearDown() {
        for server in servers { TestEnvironment.terminate(server) }
        if let listServer { TestEnvironment.terminate(listServer) }
        services?.stop()
        TestEnvironment.removeFolder(folder)
    }

    private func lotl(_ name: String) -> String { TestEnvironment.fixture("tsl/lotl/\(name)") }

    private func publish(_ fixture: String, as name: String) throws {
        let target = www.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(atPath: lotl(fixture), toPath: target.path)
    }

    private var cache: String { folder.appendingPathComponent("cache").path }

    private func tamga(_ words: [String]) async -> (ExitCode, String, String) {
        await runTamgaInProcess(words, environment: ["XDG_CACHE_HOME": cache])
    }

    /// The serving process: the cache as its trust, the list server as its proxy (the signed
    /// pointers name lists.tamga.test), its standard error (the access log) kept.
    /// A server's standard error, read as it comes so that a long test never fills the pipe.
    final class Collected: @unchecked Sendable {   // unchecked: `text` behind `lock`
        let pipe = Pipe()
        private let lock = NSLock()
        private var data = Data()
        init() {
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let chunk = handle.availableData
                guard let self else { return }
                self.lock.lock(); self.data.append(chunk); self.lock.unlock()
            }
        }
        /// What was said, once the server stopped (give the reader a moment for the last lines).
        var text: String {
            usleep(300_000)
            lock.lock(); defer { lock.unlock() }
            return String(decoding: data, as: UTF8.self)
        }
    }

    private func serve(_ extra: [String]) throws -> (URL, Collected) {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = cache
        for name in ["no_proxy", "NO_PROXY", "all_proxy", "ALL_PROXY", "HTTPS_PROXY", "HTTP_PROXY"] { environment[name] = nil }
        environment["http_proxy"] = listURL.absoluteString
        environment["https_proxy"] = listURL.absoluteString
        let errors = Collected()
        let (process, url) = try TestEnvironment.startListening(executable: binary, ["validation", "serve"] + extra, environment: environment, standardError: errors.pipe)
        servers.append(process)
        return (url, errors)
    }

    private func get(_ url: URL, _ path: String) throws -> (Int, String) {
        let result = try TestEnvironment.run("/usr/bin/curl", ["-s", "-S", "--max-time", "20", "-o", "-", "-w", "\n%{http_code}", url.appendingPathComponent(path).absoluteString])
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    private func readyTrust(_ url: URL) throws -> (Int, [String: Any]) {
        let (status, body) = try get(url, "monitoring/ready")
        let json = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
        return (status, json["trust"] as? [String: Any] ?? [:])
    }

    /// Polls /monitoring/ready until `condition` holds of its trust (at most 30 s).
    private func waitForTrust(_ url: URL, _ what: String, _ condition: ([String: Any]) -> Bool) throws -> (Int, [String: Any]) {
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

    private func validate(_ url: URL, _ container: String, name: String) throws -> (Int, [String: Any]) {
        let body = try JSONSerialization.data(withJSONObject: ["document": try TestEnvironment.bytes(container).base64EncodedString(),
                                                               "filename": name, "signaturePolicy": "POLv3"])
        let file = folder.appendingPathComponent("request-\(UUID().uuidString).json").path
        try body.write(to: URL(fileURLWithPath: file))
        let result = try TestEnvironment.run("/usr/bin/curl", ["-s", "-S", "-o", "-", "-w", "\n%{http_code}", "-H", "Content-Type: application/json",
                                                               "--data-binary", "@\(file)", url.appendingPathComponent("validate").absoluteString])
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        let json = (try? JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8))) as? [String: Any] ?? [:]
        return (Int(lines.last ?? "") ?? 0, (json["validationReport"] as? [String: Any])?["validationConclusion"] as? [String: Any] ?? [:])
    }

    /// An LT signature of Fixtures/pki ec-p256 whose chain and OCSP the EE list anchors and whose
    /// time-stamp the LV list anchors.
    private func signedContainer() async throws -> String {
        let services = try TestServices()
        self.services = services
        let document = try TestEnvironment.write("trust me\n", named: "a.txt", in: folder)
        let container = folder.appendingPathComponent("signed.asice").path
        let (created, _, createErr) = await tamga(["container", "create", container, document, "-q"])
        XCTAssertEqual(created, .success, createErr)
        let (signed, _, signErr) = await tamga(["sign", container, "--with", "key:\(TestEnvironment.pki("ec-p256.key.pem"))",
                                                "--cert", TestEnvironment.pki("ec-p256.cert.pem"), "--certs", TestEnvironment.pki("issuing-ca.cert.pem"),
                                                "--tsa", services.url("tsa").absoluteString, "--ocsp", services.url("ocsp").absoluteString])
        XCTAssertEqual(signed, .success, signErr)
        return container
    }

    private func metric(_ text: String, _ name: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    func testTrustIsRefreshedAndTheLastGoodListsKeptWhenARefreshFails() async throws {
        let (updated, _, updateErr) = await tamga(["trust", "update", "--lotl", listURL.appendingPathComponent("eu-lotl.xml").absoluteString,
                                                   "--proxy", listURL.absoluteString, "--lotl-cert", lotl("lotl-signer.cert.pem"), "--timeout", "3"])
        XCTAssertEqual(updated, .success, updateErr)
        let container = try await signedContainer()
        let (url, errors) = try serve(["--trust-refresh", "1", "--metrics", "--log-names"])

        // Refreshed from the list of lists' URL, and judging with what it read.
        var (status, trust) = try waitForTrust(url, "a first refresh") { ($0["lastRefresh"] as? String) != nil }
        XCTAssertEqual(status, 200)
        XCTAssertEqual(trust["source"] as? String, "cache")
        XCTAssertEqual(trust["lastRefreshOK"] as? Bool, true, "\(trust)")
        XCTAssertEqual(Set(trust["lists"] as? [String] ?? []), ["EE", "LV"])
        XCTAssertEqual(trust["nextUpdate"] as? String, "2045-01-01T00:00:00Z")
        let (validated, passed) = try validate(url, container, name: "lease 2026.asice")
        XCTAssertEqual(validated, 200)
        XCTAssertEqual(passed["validSignaturesCount"] as? Int, 1, "\(passed)")

        // The list of lists is now signed by a key that is not pinned: the refresh fails, the
        // last good lists stay in use, and both the ready answer and the metrics say so.
        try publish("bad/eu-lotl-unpinned.xml", as: "eu-lotl.xml")
        (status, trust) = try waitForTrust(url, "a failed refresh") { ($0["lastRefreshOK"] as? Bool) == false }
        XCTAssertEqual(status, 200, "the last good lists are still valid: the instance stays in")
        XCTAssertEqual(Set(trust["lists"] as? [String] ?? []), ["EE", "LV"])
        XCTAssertTrue((trust["lastRefreshError"] as? String ?? "").contains("EU"), "\(trust)")
        let (stillValidated, stillPassed) = try validate(url, container, name: "lease 2026.asice")
        XCTAssertEqual(stillValidated, 200)
        XCTAssertEqual(stillPassed["validSignaturesCount"] as? Int, 1, "judged with the last good lists: \(stillPassed)")
        let (metricsStatus, metrics) = try get(url, "metrics")
        XCTAssertEqual(metricsStatus, 200)
        XCTAssertEqual(metric(metrics, "tamga_validation_trust_last_refresh_ok"), 0, metrics)
        XCTAssertGreaterThanOrEqual(metric(metrics, "tamga_validation_trust_refresh_failures_total") ?? 0, 1, metrics)
        XCTAssertEqual(metric(metrics, "tamga_validation_trust_lists"), 2, metrics)
        XCTAssertEqual(metric(metrics, "tamga_validation_signatures_total"), 2, metrics)
        XCTAssertEqual(metric(metrics, "tamga_validation_valid_signatures_total"), 2, metrics)
        XCTAssertTrue(metrics.contains("tamga_validation_http_requests_total{route=\"/validate\",status=\"200\"} 2"), metrics)

        // Published right again: the next refresh succeeds.
        try publish("eu-lotl.xml", as: "eu-lotl.xml")
        (status, trust) = try waitForTrust(url, "a refresh that succeeds again") { ($0["lastRefreshOK"] as? Bool) == true }
        XCTAssertEqual(status, 200)
        XCTAssertNil(trust["lastRefreshError"])

        // The access log: one JSON line per request, the name only because --log-names was given.
        let servers = self.servers
        for server in servers { TestEnvironment.terminate(server) }
        self.servers = []
        let log = errors.text
        let entries = log.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
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
        let (url, errors) = try serve(["--trust", TestEnvironment.pki("root.cert.pem")])
        let document = try TestEnvironment.write("not a container", named: "x.asice", in: folder)
        let (status, _) = try validate(url, document, name: "Jaan Tamm divorce.asice")
        XCTAssertEqual(status, 400)
        let (missing, _) = try get(url, "secret-path-of-a-person")
        XCTAssertEqual(missing, 404)
        let (ready, _) = try get(url, "monitoring/ready")
        XCTAssertEqual(ready, 200, "PEM anchors: nothing to refresh, always ready")
        for server in servers { TestEnvironment.terminate(server) }
        servers = []
        let log = errors.text
        XCTAssertFalse(log.contains("Jaan"), log)
        XCTAssertFalse(log.contains("secret-path"), log)
        let entries = log.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
        XCTAssertEqual(entries.map { $0["route"] as? String ?? "" }, ["/validate", "other", "/monitoring/ready"], log)
        XCTAssertEqual(entries.map { $0["status"] as? Int ?? 0 }, [400, 404, 200], log)
        XCTAssertNil(entries.first?["names"])
    }
}
