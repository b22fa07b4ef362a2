import CoSigner
import Foundation
import HTTPService
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

/// What an operator and a load balancer see: `/v3/health`, `/v3/ready`, and `/metrics`, asked
/// with curl of a co-signer on loopback with a real SQLite file.
class OperationsEndpointTests: CoSignerHTTPTestCase {
    var metrics: CoSignerMetrics!

    override func setUpWithError() throws {
        try super.setUpWithError()
        server.stop()
        metrics = CoSignerMetrics()
        let router = OperationsRouter(service: service, metrics: metrics)
        server = try HTTPServer { router.handle($0) }
    }

    struct Answer {
        let status: Int
        let contentType: String
        let body: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
    }

    /// One GET with curl: the status line, Content-Type and body as they came.
    func get(_ path: String) throws -> Answer {
        let result = try TestEnvironment.run(
            "/usr/bin/curl",
            ["-sS", "--max-time", "20", "-o", "-", "-w", "\n%{http_code} %{content_type}", base + path])
        XCTAssertEqual(result.status, 0, result.error)
        guard let split = result.output.range(of: "\n", options: .backwards) else {
            return Answer(status: 0, contentType: "", body: "")
        }
        let trailer = result.output[split.upperBound...].split(separator: " ", maxSplits: 1).map(String.init)
        return Answer(
            status: Int(trailer.first ?? "") ?? 0, contentType: trailer.count > 1 ? trailer[1] : "",
            body: String(result.output[..<split.lowerBound]))
    }

    func testHealthIsLiveAndReadyFollowsTheDatabaseSchema() throws {
        let current = service.store.database.schemaVersion
        XCTAssertGreaterThan(current, 0)
        let health = try get("/v3/health")
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(health.json["status"] as? String, "live")
        let ready = try get("/v3/ready")
        XCTAssertEqual(ready.status, 200, ready.body)
        XCTAssertEqual(ready.json["schemaVersion"] as? Int, current)

        // A newer co-signer migrated the shared database: this one must stop taking requests
        // (503 with the API's error shape), while it still lives.
        // (The store's own location: a file, or on PostgreSQL the URI, which has no password here.)
        _ = try Database(
            url: service.store.database.path, migrations: Array(repeating: "SELECT 1;", count: current + 1))
        let stale = try get("/v3/ready")
        XCTAssertEqual(stale.status, 503, stale.body)
        XCTAssertTrue(stale.contentType.hasPrefix("application/json"), stale.contentType)
        let error = try XCTUnwrap(stale.json["error"] as? [String: Any], stale.body)
        XCTAssertEqual(error["code"] as? String, "schema-mismatch")
        XCTAssertTrue((error["message"] as? String ?? "").contains("schema version \(current + 1)"), stale.body)
        XCTAssertEqual(try get("/v3/health").status, 200, "liveness does not depend on the database")
    }

    /// The exposition text parsed strictly: requests counted under their route pattern (never
    /// a raw path with an id), histograms consistent, sessions and keys read from the database.
    func testMetricsAreValidPrometheusTextWithRoutePatternsAndDatabaseCounts() async throws {
        let (share, token) = try await enroll(document: "38001085718")
        let digest = Array(Digest.compute(.sha256, over: Data("metrics".utf8)).bytes)
        let (status, created) = try await call(
            "POST", "/v3/rp/session",
            ["keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest), "displayText": "m"])
        XCTAssertEqual(status, 200)
        let sessionID = try XCTUnwrap(created["sessionID"] as? String)
        let client = ThresholdClient(server: URL(string: base)!, transport: transport, attestation: devices[token])
        _ = try await client.approve(
            sessionID: sessionID, digest: digest, share: share.publicShare, token: token, guard: MemoryGuardForService()
        ) { share.secretKey }
        _ = try await call(
            "POST", "/v3/rp/session",
            ["keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest), "displayText": "left pending"])
        _ = try get("/v3/rp/session/\(sessionID)")  // 401: no API key
        _ = try get("/no/such/path/\(UUID().uuidString)")  // 404

        let scrape = try get("/metrics")
        XCTAssertEqual(scrape.status, 200)
        XCTAssertEqual(scrape.contentType, "text/plain; version=0.0.4; charset=utf-8")
        let samples = try PrometheusText.parse(scrape.body)
        func value(_ name: String, _ labels: [String: String]) -> Double? {
            samples.first { $0.name == name && $0.labels == labels }?.value
        }

        XCTAssertEqual(
            value(
                "tamga_cosigner_http_requests_total",
                ["method": "POST", "route": "/v3/mobile/session/{id}/sign/commit", "status": "200"]), 1)
        XCTAssertEqual(
            value(
                "tamga_cosigner_http_requests_total",
                ["method": "POST", "route": "/v3/mobile/session/{id}/sign/finish", "status": "200"]), 1)
        XCTAssertEqual(
            value(
                "tamga_cosigner_http_requests_total", ["method": "POST", "route": "/v3/rp/session", "status": "200"]), 2
        )
        XCTAssertEqual(
            value(
                "tamga_cosigner_http_requests_total",
                ["method": "GET", "route": "/v3/rp/session/{id}", "status": "401"]), 1)
        XCTAssertEqual(
            value("tamga_cosigner_http_requests_total", ["method": "GET", "route": "other", "status": "404"]), 1)
        XCTAssertFalse(scrape.body.contains(sessionID), "no session id in a label")
        XCTAssertFalse(scrape.body.contains("/no/such"), "unknown paths are not labels")

        // Each histogram: cumulative buckets, +Inf equal to _count, and _count equal to the
        // requests counted for that route.
        let histograms = Set(
            samples.filter { $0.name.hasSuffix("_bucket") }.map { $0.labels.filter { $0.key != "le" } })
        XCTAssertGreaterThan(histograms.count, 5)
        for labels in histograms {
            let buckets = samples.filter {
                $0.name == "tamga_cosigner_http_request_duration_seconds_bucket"
                    && $0.labels.filter { $0.key != "le" } == labels
            }
            XCTAssertEqual(buckets.last?.labels["le"], "+Inf")
            XCTAssertEqual(buckets.map(\.value), buckets.map(\.value).sorted(), "cumulative: \(labels)")
            let count = value("tamga_cosigner_http_request_duration_seconds_count", labels)
            XCTAssertEqual(buckets.last?.value, count)
            let requests = samples.filter {
                $0.name == "tamga_cosigner_http_requests_total" && $0.labels.filter { $0.key != "status" } == labels
            }.map(\.value).reduce(0, +)
            XCTAssertEqual(count, requests, "\(labels)")
            XCTAssertNotNil(value("tamga_cosigner_http_request_duration_seconds_sum", labels))
        }
        XCTAssertEqual(value("tamga_cosigner_sessions", ["state": "COMPLETE"]), 1)
        XCTAssertEqual(value("tamga_cosigner_sessions", ["state": "PENDING"]), 1)
        XCTAssertEqual(value("tamga_cosigner_sessions", ["state": "FAILED"]), 0)
        XCTAssertEqual(value("tamga_cosigner_enrolled_keys", ["role": "sign"]), 1)
        XCTAssertEqual(value("tamga_cosigner_enrolled_keys", ["role": "auth"]), 0)
        XCTAssertEqual(value("tamga_cosigner_database_up", [:]), 1)
    }

    /// Requests from many connections at once are each counted once (the counters are shared
    /// by the server's threads).
    func testConcurrentRequestsAreEachCountedOnce() async throws {
        let url = URL(string: base + "/v3/health")!
        let transport = self.transport
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<50 { _ = try await transport.get(url, service: "test") } }
            }
            try await group.waitForAll()
        }
        let samples = try PrometheusText.parse(try get("/metrics").body)
        let counted = samples.first {
            $0.name == "tamga_cosigner_http_requests_total"
                && $0.labels == ["method": "GET", "route": "/v3/health", "status": "200"]
        }
        XCTAssertEqual(counted?.value, 400)
        let histogram = samples.first {
            $0.name == "tamga_cosigner_http_request_duration_seconds_count"
                && $0.labels == ["method": "GET", "route": "/v3/health"]
        }
        XCTAssertEqual(histogram?.value, 400)
    }

    /// Without --metrics the route does not exist (404, the API's error shape).
    func testMetricsAreOffUnlessAskedFor() throws {
        server.stop()
        let router = OperationsRouter(service: service)
        server = try HTTPServer { router.handle($0) }
        let answer = try get("/metrics")
        XCTAssertEqual(answer.status, 404)
        XCTAssertEqual((answer.json["error"] as? [String: Any])?["code"] as? String, "not-found")
        XCTAssertEqual(try get("/v3/ready").status, 200)
    }
}

/// A strict reader of the Prometheus text exposition format 0.0.4, for the tests: every line is
/// blank, a `# HELP`/`# TYPE` comment (a TYPE before the family's first sample, once), or
/// `name{label="value",…} value` with a valid name, quoted and escaped label values and a
/// number. Anything else fails.
enum PrometheusText {
    struct Sample: Equatable {
        let name: String
        let labels: [String: String]
        let value: Double
    }
    struct Malformed: Error, CustomStringConvertible {
        let line: String
        let why: String
        var description: String { "\(why): \(line)" }
    }

    static func parse(_ text: String) throws -> [Sample] {
        XCTAssertTrue(text.hasSuffix("\n"), "the text ends with a line feed")
        var samples: [Sample] = []
        var typed: [String: String] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) where !line.isEmpty {
            if line.hasPrefix("#") {
                let words = line.split(separator: " ", maxSplits: 3).map(String.init)
                guard words.count >= 3, words[0] == "#" else {
                    throw Malformed(line: line, why: "a comment that is neither HELP nor TYPE")
                }
                guard isName(words[2]) else { throw Malformed(line: line, why: "bad metric name") }
                if words[1] == "TYPE" {
                    guard words.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(words[3])
                    else { throw Malformed(line: line, why: "bad type") }
                    guard typed[words[2]] == nil else { throw Malformed(line: line, why: "TYPE given twice") }
                    guard !samples.contains(where: { family($0.name, typed: [words[2]: words[3]]) == words[2] }) else {
                        throw Malformed(line: line, why: "TYPE after samples")
                    }
                    typed[words[2]] = words[3]
                } else if words[1] != "HELP" {
                    throw Malformed(line: line, why: "a comment that is neither HELP nor TYPE")
                }
                continue
            }
            samples.append(try sample(line))
            guard family(samples[samples.count - 1].name, typed: typed) != nil else {
                throw Malformed(line: line, why: "a sample without a TYPE")
            }
        }
        return samples
    }

    /// The family a sample name belongs to (a histogram's _bucket, _sum and _count belong to it).
    static func family(_ name: String, typed: [String: String]) -> String? {
        if typed[name] != nil { return name }
        for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
            let base = String(name.dropLast(suffix.count))
            if typed[base] == "histogram" || typed[base] == "summary" { return base }
        }
        return nil
    }

    static func isName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic || first == "_" || first == ":"
        else { return false }
        return name.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" || $0 == ":"
        }
    }

    static func sample(_ line: String) throws -> Sample {
        var rest = Substring(line)
        let name = String(rest.prefix { $0 != "{" && $0 != " " })
        guard isName(name) else { throw Malformed(line: line, why: "bad metric name") }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let label = String(rest.prefix { $0 != "=" })
                guard isName(label), !label.contains(":"), labels[label] == nil else {
                    throw Malformed(line: line, why: "bad or repeated label name")
                }
                rest = rest.dropFirst(label.count)
                guard rest.hasPrefix("=\"") else { throw Malformed(line: line, why: "a label value must be quoted") }
                rest = rest.dropFirst(2)
                var value = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    if character == "\\" {
                        switch rest.first {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: throw Malformed(line: line, why: "bad escape")
                        }
                        rest = rest.dropFirst()
                    } else {
                        guard character != "\n" else { throw Malformed(line: line, why: "raw line feed") }
                        value.append(character)
                    }
                }
                guard rest.first == "\"" else { throw Malformed(line: line, why: "unterminated label value") }
                rest = rest.dropFirst()
                labels[label] = value
                if rest.first == "," {
                    rest = rest.dropFirst()
                } else if rest.first != "}" {
                    throw Malformed(line: line, why: "expected , or }")
                }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { throw Malformed(line: line, why: "no value") }
        let fields = rest.dropFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard (1...2).contains(fields.count), let value = number(String(fields[0])),
            fields.count == 1 || Int64(fields[1]) != nil
        else {
            throw Malformed(line: line, why: "bad value or timestamp")
        }
        return Sample(name: name, labels: labels, value: value)
    }

    static func number(_ text: String) -> Double? {
        switch text {
        case "+Inf": return .infinity
        case "-Inf": return -.infinity
        case "NaN": return .nan
        default: return text.isEmpty || text.contains(where: { !"0123456789.eE+-".contains($0) }) ? nil : Double(text)
        }
    }
}

/// The server identity on a database that several instances share.
final class ServerIdentityTests: XCTestCase {
    var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("server-identity") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    /// Two instances start at once on an empty database: both make parameters (the slow part),
    /// the first to insert wins, and the other serves the winner's — never its own — so every
    /// client pins the same parameters whichever instance it reached.
    func testInstancesRacingOnAnEmptyDatabaseShareTheFirstInsertedIdentity() throws {
        let path = folder.appendingPathComponent("shared.db").path
        let key = [UInt8](repeating: 7, count: 32)
        let first = try CoSignerStore(path: path, serverKey: key),
            second = try CoSignerStore(path: path, serverKey: key)
        // Same primes, fresh t and λ: two distinct parameter sets, as two instances would make.
        let mine = CoSignerStoreTests.ringPedersen
        var winner: (pid: [UInt8], ringPedersen: RingPedersenSecret)?
        let loser = try second.serverIdentity { random in
            // While the second instance is still making its set, the first finishes and stores its own.
            winner = try first.serverIdentity { _ in try Self.fresh(from: mine, random: random) }
            return mine
        }
        let stored = try XCTUnwrap(winner)
        XCTAssertNotEqual(
            stored.ringPedersen.parameters, mine.parameters, "the sets differ, so the test can tell whose won")
        XCTAssertEqual(loser.pid, stored.pid)
        XCTAssertEqual(
            loser.ringPedersen.parameters, stored.ringPedersen.parameters, "the loser serves the winner's parameters")
        XCTAssertEqual(try first.database.query("SELECT COUNT(*) FROM server_identity").first?.first?.integer, 1)
        // And a restart of either reads the same, without making any.
        let again = try CoSignerStore(path: path, serverKey: key).serverIdentity { _ in
            XCTFail("made parameters again")
            return mine
        }
        XCTAssertEqual(again.ringPedersen.parameters, stored.ringPedersen.parameters)
    }

    /// Parameters on the same primes with new t and λ (the primes are the slow part).
    static func fresh(from secret: RingPedersenSecret, random: RandomSource) throws -> RingPedersenSecret {
        let bytes = secret.storageBytes
        return try RingPedersenSecret(
            p: BigInt(bytes: bytes[0..<128]), q: BigInt(bytes: bytes[128..<256]), random: random)
    }
}
