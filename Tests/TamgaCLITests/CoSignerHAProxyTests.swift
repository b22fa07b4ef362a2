import CoSigner
import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The shape operators run when one machine is not enough: two `tamga cosigner serve` processes
/// on one PostgreSQL database behind HAProxy (Debian `haproxy`, health-checking `/v3/ready`),
/// eight devices enrolling and signing through it at once, and then something failing in the
/// middle: an instance killed with `kill -9`, or the database stopped and started again.
/// What must hold afterwards: every enrollment a device was told succeeded is in the database,
/// every signature a device was handed verifies and its session is COMPLETE, no two signatures
/// share an r (no nonce share used twice), no session is left open and no key is locked.
final class CoSignerHAProxyTests: XCTestCase {
    private static let haproxy = "/usr/sbin/haproxy"
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    private var folder: URL!
    private var processes: [Process] = []
    private var keyFile: String { folder.appendingPathComponent("server.key").path }

    override func setUpWithError() throws {
        // make test installs haproxy (CHECK_PACKAGES): without it the set-up is broken, and the
        // test fails rather than passing unseen.
        guard FileManager.default.isExecutableFile(atPath: Self.haproxy) else {
            throw Self.setupFailure("haproxy is not installed (apt-get install haproxy)")
        }
        folder = try TestEnvironment.temporaryFolder("cosigner-haproxy")
    }

    override func tearDown() {
        for process in processes { TestEnvironment.terminate(process) }
        if let folder { TestEnvironment.removeFolder(folder) }
    }

    /// An instance behind HAProxy: it believes the PROXY protocol header of HAProxy's address
    /// only, and counts its limits against the client the header names.
    private func serve(_ database: String, standardError: Pipe? = nil) throws -> (process: Process, url: URL) {
        let started = try TestEnvironment.startListening(
            executable: binary,
            ["cosigner", "serve", "--db", database, "--key", keyFile, "--trusted-proxy", "127.0.0.1"],
            standardError: standardError)
        processes.append(started.process)
        return started
    }

    private func cli(_ arguments: [String], _ database: String) throws -> String {
        let result = try TestEnvironment.run(binary, arguments + ["--db", database, "--key", keyFile])
        XCTAssertEqual(result.status, 0, result.error)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A loopback port nobody listens on just now (HAProxy needs a number in its configuration).
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Self.setupFailure("no socket (errno \(errno))") }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw Self.setupFailure("cannot bind a loopback port (errno \(errno))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// HAProxy in the foreground (`-db`, so it is stopped by its PID) in front of `backends`,
    /// as the README's sample does it (`send-proxy-v2`: each connection to an instance starts
    /// with a PROXY protocol v2 header naming the client, its health checks' with a LOCAL one)
    /// but on loopback without TLS, with quick health checks (`checks`) so that a dead instance
    /// is taken out within a second. A request whose connection to an
    /// instance fails is sent to another (`retry-on conn-failure` + `redispatch`): such a
    /// request never reached the dead one. Nothing that did reach it is sent again — that is
    /// for the device to decide, with the protocol's own rules. A connection to an instance
    /// serves one client connection and closes with it (`http-reuse never`, as the README's
    /// sample does): with a PROXY header HAProxy could reuse it only for the same client address
    /// and port, so a pooled one would just hold an instance's slot.
    private func startHAProxy(
        _ backends: [URL], maxconn: Int = 512, checks: String = "inter 200ms fall 1 rise 2"
    ) throws -> URL {
        // The free port is picked, then bound by HAProxy: another process may take it between
        // the two, so a start that does not answer is tried again on another port.
        for attempt in 1...3 {
            if let url = try startHAProxy(
                backends, port: Self.freePort(), maxconn: maxconn, checks: checks, lastAttempt: attempt == 3)
            {
                return url
            }
        }
        throw Self.setupFailure("haproxy did not start")
    }

    private static func setupFailure(_ message: String) -> Error {
        NSError(domain: "CoSignerHAProxyTests", code: 2, userInfo: [NSLocalizedDescriptionKey: message])
    }

    private func startHAProxy(
        _ backends: [URL], port: Int, maxconn: Int, checks: String, lastAttempt: Bool
    ) throws -> URL? {
        let servers = backends.enumerated().map {
            "    server cosigner\($0.offset) 127.0.0.1:\($0.element.port ?? 0) check send-proxy-v2"
        }.joined(separator: "\n")
        let config = try TestEnvironment.write(
            """
            global
                maxconn \(maxconn)
            defaults
                mode http
                timeout connect 2s
                timeout http-request 10s
                timeout client 30s
                timeout server 30s
                retries 3
                option redispatch
                retry-on conn-failure
            frontend cosigner
                bind 127.0.0.1:\(port)
                default_backend cosigners
            backend cosigners
                balance roundrobin
                http-reuse never
                option httpchk
                http-check send meth GET uri /v3/ready
                http-check expect status 200
                # A check gets 2 s to answer: a killed instance refuses the connection at once
                # (so fall 1 still takes it out within one interval), while one busy verifying
                # enrollment proofs on a loaded machine is not taken out for answering late.
                timeout check 2s
                default-server \(checks)
            \(servers)

            """, named: "haproxy.cfg", in: folder)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.haproxy)
        process.arguments = ["-db", "-f", config]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        processes.append(process)
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)"))
        // Ready once every instance has passed its checks: each answers /v3/ready through it.
        let deadline = Date().addingTimeInterval(30)
        var answered = 0
        while Date() < deadline, answered < 2 * backends.count {
            let ready = try TestEnvironment.run(
                "/usr/bin/curl",
                ["-s", "-o", "/dev/null", "-w", "%{http_code}", url.appendingPathComponent("v3/ready").absoluteString])
            answered = ready.output == "200" ? answered + 1 : 0
            usleep(200_000)
        }
        guard answered >= 2 * backends.count else {
            TestEnvironment.terminate(process)
            if lastAttempt { throw Self.setupFailure("haproxy did not answer /v3/ready on port \(port) within 30 s") }
            return nil
        }
        return url
    }

    /// One instance killed with `kill -9` after a third of the signatures.
    func testEightClientsThroughHAProxyWhileAnInstanceIsKilled() async throws {
        let database = try PostgreSQLRig.shared.newDatabase()
        let first = try serve(database)
        let second = try serve(database)
        let proxy = try startHAProxy([first.url, second.url])
        let outcome = try await signFromEightClients(database: database, proxy: proxy, signaturesEach: 8) {
            kill(first.process.processIdentifier, SIGKILL)
        }
        try check(outcome, database: PostgreSQLRig.shared, name: database)
    }

    /// The database stopped (a fast shutdown: every connection ended) after a third of the
    /// signatures and started again 1.5 s later: requests meanwhile get 503
    /// `database-unavailable` (said as such, retried by the device or its next session), and
    /// afterwards every client goes on signing through the same instances, which reconnect.
    func testEightClientsThroughHAProxyWhileTheDatabaseStopsAndStarts() async throws {
        let rig = try PostgreSQLRig()
        defer { rig.stop() }
        let database = try rig.newDatabase()
        let first = try serve(database)
        let second = try serve(database)
        let proxy = try startHAProxy([first.url, second.url])
        let outcome = try await signFromEightClients(database: database, proxy: proxy, signaturesEach: 8) {
            rig.stop()
            usleep(1_500_000)
            try? rig.start()
        }
        XCTAssertGreaterThan(
            outcome.statuses[503, default: 0], 0, "some request met the stopped database: \(outcome.statuses)")
        try check(outcome, database: rig, name: database)
    }

    /// The starvation test through HAProxy: behind a proxy every client had the proxy's address, so
    /// the per-address limit could not tell them apart. With `send-proxy-v2` and `--trusted-proxy`,
    /// 50 addresses of slow clients (10 each, whole headers and then a body a byte a second, which
    /// HAProxy passes on; slow headers HAProxy holds itself until its `timeout http-request`) each
    /// reopened 50 ms after it is closed, and a new address's 100 health checks through HAProxy,
    /// one every 100 ms, each within 1 s: at least 99 answer 200. The co-signer's log names the
    /// slow clients' own addresses in its refusals: it counted them, not HAProxy.
    func testFiftyAddressesThroughHAProxyCannotStarveANewClient() async throws {
        let log = Pipe()
        let instance = try serve(folder.appendingPathComponent("cosigner.db").path, standardError: log)
        // HAProxy's own limit well above the attack's 500, and the README's check timing: this
        // is about the co-signer's slots, not HAProxy's queue or a check taking the instance out.
        let proxy = try startHAProxy([instance.url], maxconn: 4096, checks: "inter 2s fall 2 rise 2")
        let port = try XCTUnwrap(proxy.port.map(UInt16.init))
        let attack = SlowClients(
            port: port, addresses: (1...50).map { "127.0.1.\($0)" }, perAddress: 10, openings: [.body])
        attack.start()
        defer { attack.stop() }
        try await Task.sleep(nanoseconds: 3_000_000_000)  // the attack takes the slots first
        var report = ProbeReport()
        for _ in 0..<100 {
            let started = Date()
            let (status, failure) = timedGet("/v3/health", port: port, from: "127.0.2.1", within: 1)
            let elapsed = Date().timeIntervalSince(started)
            report.latencies.append(min(elapsed, 1))
            if status == 200, elapsed <= 1 {
                report.succeeded += 1
            } else {
                report.failures.append(failure ?? "status \(status.map(String.init) ?? "none")")
            }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        let held = attack.current
        attack.stop()
        TestEnvironment.terminate(instance.process)
        let said = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        print("starvation through haproxy: \(report); attack: \(held)")
        XCTAssertGreaterThanOrEqual(report.succeeded, 99, "\(report)")
        XCTAssertGreaterThan(held.closedByServer, 500, "the slow clients were cut and came back: \(held)")
        XCTAssertTrue(
            said.contains("refused a connection from 127.0.1."),
            "the co-signer refused slow clients by their own addresses: \(said.suffix(2000))")
        XCTAssertFalse(
            said.contains("proxy-header"),
            "every connection from HAProxy had a valid PROXY header: \(said.suffix(2000))")
    }

    // MARK: The clients

    struct Outcome {
        var enrolledKeys: [String] = []
        var signatures: [(session: String, r: BigInt)] = []
        /// Signatures completed before and after the event.
        var before = 0, after = 0
        /// How the failed attempts failed (HTTP status, 0 for no answer at all).
        var statuses: [Int: Int] = [:]
        /// Enrollments started again after a 503 (before the event: the database was up).
        var enrollmentRetries = 0
    }

    private actor Progress {
        var completed = 0
        var eventDone = false
        var outcome = Outcome()
        func enrolled(_ key: String) { outcome.enrolledKeys.append(key) }
        func enrollmentRetried() { outcome.enrollmentRetries += 1 }
        func signed(_ session: String, _ r: BigInt) {
            outcome.signatures.append((session, r))
            completed += 1
            if eventDone { outcome.after += 1 } else { outcome.before += 1 }
        }
        func failed(_ error: Error) {
            let status: Int
            switch error {
            case ThresholdError.sessionAbandoned(let why):
                status = why.contains("503") ? 503 : why.contains("502") ? 502 : 0
            default: status = RetryPolicy.status(error) ?? 0
            }
            outcome.statuses[status, default: 0] += 1
        }
        func markEvent() { eventDone = true }
        func isTimeForTheEvent(signatures: Int, devices: Int) -> Bool {
            completed >= signatures && outcome.enrolledKeys.count >= devices
        }
    }

    /// Eight devices, each enrolling through the proxy and then signing `signaturesEach` relying
    /// party sessions; `event` runs once all have enrolled and a third of the signatures are done. A device whose
    /// attempt fails (no answer, 5xx, the session abandoned) tries a new session, as a person
    /// would press "sign" again; a session it could not abandon (the co-signer unreachable just
    /// then) it abandons before the next one, so the key's one open session is freed.
    private func signFromEightClients(
        database: String, proxy: URL, signaturesEach: Int, event: @escaping @Sendable () throws -> Void
    ) async throws -> Outcome {
        let rpKey = try cli(["cosigner", "add-rp", "rp"], database)
        let codes = try (0..<8).map { try cli(["cosigner", "issue-code", "3800108571\($0)"], database) }
        let progress = Progress()
        let total = 8 * signaturesEach
        let watcher = Task {
            // After every device has enrolled (an enrollment cut by a failure is the device's to
            // start again with a new code; kill -9 during enrollments is CoSignerProcessTests').
            while await !progress.isTimeForTheEvent(signatures: total / 3, devices: 8) {
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            try event()
            await progress.markEvent()
        }
        let folder = self.folder!
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let device = DeviceAttestation(
                        key: try DeviceKey(file: folder.appendingPathComponent("device\(index).key").path))
                    let client = ThresholdClient(
                        server: proxy, attestation: device, retry: RetryPolicy(attempts: 6, firstDelay: 0.2))
                    // A 503 (HAProxy with no instance passing its checks just then, or the
                    // co-signer's database busy) wrote nothing and left the code unused: the
                    // device starts again from init, as a person would press "enrol" again.
                    var enrolled: (ClientKeyShare, ThresholdClient.Registration)?
                    for attempt in 1...3 where enrolled == nil {
                        do {
                            enrolled = try await client.enrollShare(
                                code: codes[index], role: .sign,
                                clientPID: Transcript.taggedHash("device", [[UInt8(index)]]))
                        } catch  where attempt < 3 && RetryPolicy.status(error) == 503 {
                            await progress.enrollmentRetried()
                            try await Task.sleep(nanoseconds: 500_000_000)
                        }
                    }
                    let (share, registration) = try XCTUnwrap(enrolled)
                    await progress.enrolled(WireFormat.hex(share.keyID))
                    var signed = 0, attempts = 0
                    var unfinished: String?
                    while signed < signaturesEach {
                        attempts += 1
                        guard attempts <= signaturesEach + 40 else {
                            throw NSError(
                                domain: "CoSignerHAProxyTests", code: 1,
                                userInfo: [
                                    NSLocalizedDescriptionKey:
                                        "client \(index): \(attempts) attempts for \(signed) signatures"
                                ])
                        }
                        if let open = unfinished {
                            // Free the key: the earlier session's c3 never arrived.
                            do {
                                _ = try await client.call(
                                    "POST", "v3/mobile/session/\(open)/sign/abandon", ["reason": "c3-not-received"],
                                    token: registration.deviceToken)
                                unfinished = nil
                            } catch CoreError.serviceRefused(_, _, let status, _, _) where (400..<500).contains(status)
                            {
                                unfinished = nil  // it had ended already
                            } catch {
                                await progress.failed(error)
                                try await Task.sleep(nanoseconds: 300_000_000)
                                continue
                            }
                        }
                        let digest = Array(
                            Digest.compute(
                                .sha256, over: Data("client \(index) signature \(signed) attempt \(attempts)".utf8)
                            ).bytes)
                        let session: String
                        do {
                            let answer = try await client.call(
                                "POST", "v3/rp/session",
                                [
                                    "keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest),
                                    "displayText": "\(signed)",
                                ], apiKey: rpKey)
                            session = try XCTUnwrap(answer["sessionID"] as? String)
                        } catch {
                            await progress.failed(error)
                            try await Task.sleep(nanoseconds: 300_000_000)
                            continue
                        }
                        do {
                            let approval = try await client.approveSession(
                                sessionID: session, digest: digest, share: share.publicShare,
                                token: registration.deviceToken, guard: HAProxyShareGuard()
                            ) { share.secretKey }
                            XCTAssertTrue(
                                TwoPartySigning.verify(
                                    r: approval.r, s: approval.s,
                                    digest: try Digest(algorithm: .sha256, bytes: Data(digest)),
                                    publicKey: share.publicKey),
                                "client \(index): a signature handed to the device verifies")
                            if approval.delivered {
                                await progress.signed(session, approval.r)
                                signed += 1
                            } else {
                                await progress.failed(ThresholdError.signatureNotDelivered(approval.notDelivered ?? ""))
                                unfinished = nil
                                // Deliver it again until the co-signer confirms, as the caller must.
                                for _ in 0..<50 {
                                    if (try? await client.call(
                                        "POST", "v3/mobile/session/\(session)/sign/finish",
                                        [
                                            "message": WireFormat.encode(
                                                ThresholdMessage.SignFinishRequest(signature: approval.signature))
                                        ],
                                        token: registration.deviceToken)) != nil
                                    {
                                        break
                                    }
                                    let state =
                                        try? await client.call(
                                            "GET", "v3/mobile/session/\(session)", nil, token: registration.deviceToken)[
                                            "state"] as? String
                                    if state == "COMPLETE" { break }
                                    try await Task.sleep(nanoseconds: 300_000_000)
                                }
                                await progress.signed(session, approval.r)
                                signed += 1
                            }
                        } catch {
                            await progress.failed(error)
                            // A refusal (409: a session of the key still open) or a lost c3:
                            // either way this session is given up; abandon it to be sure.
                            unfinished = session
                            try await Task.sleep(nanoseconds: 300_000_000)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        try await watcher.value
        return await progress.outcome
    }

    private func check(_ outcome: Outcome, database rig: PostgreSQLRig, name: String) throws {
        print(
            "haproxy: \(outcome.before) signatures before the failure, \(outcome.after) after; failed attempts by status: \(outcome.statuses.sorted { $0.key < $1.key }); enrollments started again after a 503: \(outcome.enrollmentRetries)"
        )
        let databaseName = try XCTUnwrap(URL(string: name)?.path.dropFirst().description)
        XCTAssertEqual(outcome.signatures.count, 64, "every client got its eight signatures")
        XCTAssertGreaterThan(outcome.before, 0)
        XCTAssertGreaterThan(outcome.after, 0, "signing went on after the failure")
        XCTAssertEqual(
            Set(outcome.signatures.map { Scalar.encode($0.r) }).count, outcome.signatures.count,
            "no r twice: no nonce share used twice")
        // Every enrollment answered is kept, with nothing locked.
        let keys = Set(
            try rig.psql(databaseName, "SELECT key_id FROM keys WHERE locked = 0").split(separator: "\n").map(
                String.init))
        XCTAssertEqual(keys, Set(outcome.enrolledKeys))
        // Every signature handed out is a COMPLETE session holding it; nothing is left open.
        let complete = Set(
            try rig.psql(databaseName, "SELECT id FROM sessions WHERE state = 'COMPLETE' AND signature IS NOT NULL")
                .split(separator: "\n").map(String.init))
        XCTAssertEqual(
            complete, Set(outcome.signatures.map(\.session)),
            "the sessions COMPLETE are the signatures the devices hold")
        XCTAssertEqual(
            try rig.psql(
                databaseName,
                "SELECT count(*) FROM sessions WHERE state IN ('COMMITTED', 'PROVED') OR protocol_state IS NOT NULL"),
            "0",
            "no session left open or holding a nonce share")
        XCTAssertEqual(
            try rig.psql(databaseName, "SELECT count(*) FROM sessions WHERE state = 'FAILED'"), "0",
            "a failure of the service locks nothing")
    }
}

/// The device's share guard in memory (the test is about the server side).
private struct HAProxyShareGuard: ShareGuard {
    func isLocked() throws -> Bool { false }
    func markInFlight() throws {}
    func clearInFlight() throws {}
    func lock() throws {}
    func reset() throws {}
}
