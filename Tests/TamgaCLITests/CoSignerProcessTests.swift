import CoSigner
import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

/// `tamga cosigner serve` as a real process with a real SQLite file: enrollment over HTTP,
/// then `kill -9` and a restart — the key, the server identity the client pinned, and signing
/// all survive.
final class CoSignerProcessTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    private var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("cosigner-process") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    private var database: String { folder.appendingPathComponent("cosigner.db").path }

    private func serve() throws -> (Process, String) {
        let (process, url) = try TestEnvironment.startListening(
            executable: binary, ["cosigner", "serve", "--db", database])
        return (process, url.absoluteString)
    }

    /// The operator's commands refuse a database that does not exist (a new one would hold
    /// codes the running co-signer never sees) unless told to create one, and say where a code went.
    func testIssueCodeAndAddRPRefuseAMissingDatabase() throws {
        let missing = folder.appendingPathComponent("typo.db").path
        for command in [
            ["cosigner", "issue-code", "38001085718", "--db", missing],
            ["cosigner", "add-rp", "Bank", "--db", missing],
        ] {
            let result = try TestEnvironment.run(binary, command)
            XCTAssertEqual(result.status, 2, result.error)
            XCTAssertTrue(result.error.contains("no co-signer database at \(missing)"), result.error)
            XCTAssertFalse(FileManager.default.fileExists(atPath: missing), "nothing was created")
        }
        let created = try TestEnvironment.run(
            binary, ["cosigner", "issue-code", "38001085718", "--db", database, "--create"])
        XCTAssertEqual(created.status, 0, created.error)
        XCTAssertTrue(created.error.contains("written to \(database)"), created.error)
        let again = try TestEnvironment.run(
            binary, ["cosigner", "issue-code", "49001010000", "--db", database, "--json"])
        XCTAssertEqual(again.status, 0, again.error)
        XCTAssertTrue(again.output.contains("\"database\""), again.output)
    }

    /// `--threads N` sets the HTTP worker threads: a value outside 1…64 is a usage error that
    /// creates nothing, and the process runs the number asked for (libmicrohttpd names its
    /// threads `MHD-…`), answering with each count.
    func testThreadsOptionSetsTheWorkerThreads() throws {
        for bad in ["0", "65", "four", "2.5"] {
            let result = try TestEnvironment.run(binary, ["cosigner", "serve", "--db", database, "--threads", bad])
            XCTAssertEqual(result.status, 2, bad)
            XCTAssertTrue(result.error.contains("--threads takes a number from 1 to 64"), result.error)
            XCTAssertFalse(FileManager.default.fileExists(atPath: database), "nothing was created for \(bad)")
        }
        func threads(_ count: String) throws -> Int {
            let (process, url) = try TestEnvironment.startListening(
                executable: binary, ["cosigner", "serve", "--db", database, "--threads", count])
            defer { TestEnvironment.terminate(process) }
            for _ in 0..<4 {
                let health = try TestEnvironment.run(
                    "/usr/bin/curl",
                    [
                        "-s", "-o", "/dev/null", "-w", "%{http_code}",
                        url.appendingPathComponent("v3/health").absoluteString,
                    ])
                XCTAssertEqual(health.output, "200", "--threads \(count)")
            }
            let tasks = "/proc/\(process.processIdentifier)/task"
            return try FileManager.default.contentsOfDirectory(atPath: tasks).filter { task in
                (try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8))?.hasPrefix("MHD-") == true
            }.count
        }
        XCTAssertEqual(try threads("1"), 1)
        XCTAssertEqual(try threads("7"), 7)
    }

    /// `--trusted-proxy` takes addresses and CIDR ranges, IPv4 and IPv6, repeated or
    /// comma-separated; anything else is a usage error that creates nothing.
    func testTrustedProxyTakesAddressesAndRangesOnly() throws {
        for bad in ["10.0.0.0/33", "proxy.example", "127.0.0.1,", "::/129", "10.0.0.0/8/8", "127.0.0.1/8 x"] {
            let result = try TestEnvironment.run(
                binary, ["cosigner", "serve", "--db", database, "--trusted-proxy", bad])
            XCTAssertEqual(result.status, 2, bad)
            XCTAssertTrue(result.error.contains("--trusted-proxy takes an IPv4 or IPv6 address or range"), result.error)
            XCTAssertFalse(FileManager.default.fileExists(atPath: database), "nothing was created for \(bad)")
        }
        let (process, url) = try TestEnvironment.startListening(
            executable: binary,
            [
                "cosigner", "serve", "--db", database,
                "--trusted-proxy", "10.0.0.0/8,fd00::/8", "--trusted-proxy", "192.0.2.1",
            ])
        defer { TestEnvironment.terminate(process) }
        // 127.0.0.1 is not among them: its connections are its own, without a header.
        let health = try TestEnvironment.run(
            "/usr/bin/curl",
            ["-s", "-o", "/dev/null", "-w", "%{http_code}", url.appendingPathComponent("v3/health").absoluteString])
        XCTAssertEqual(health.output, "200")
    }

    /// `add-rp` refuses the names the co-signer gives its own sessions, says why, and its help
    /// lists them.
    func testAddRPRefusesTheCoSignersOwnNames() throws {
        XCTAssertEqual(
            try TestEnvironment.run(binary, ["cosigner", "issue-code", "38001085718", "--db", database, "--create"])
                .status, 0)
        for name in ["this device", "Co-Signer CA"] {
            let refused = try TestEnvironment.run(binary, ["cosigner", "add-rp", name, "--db", database, "--json"])
            XCTAssertEqual(refused.status, 3, refused.error)
            XCTAssertTrue(
                refused.output.contains("threshold-reserved-name") || refused.error.contains("threshold-reserved-name"),
                refused.output + refused.error)
        }
        let help = try TestEnvironment.run(binary, ["cosigner", "add-rp", "--help"])
        XCTAssertTrue(help.output.contains("\"this device\", \"co-signer CA\""), help.output + help.error)
    }

    func testKeysAndTheServerIdentitySurviveKill9AndRestart() async throws {
        let (first, base) = try serve()
        let code = try TestEnvironment.run(binary, ["cosigner", "issue-code", "38001085718", "--db", database]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(code.count, 12, code)
        // One device (one device key) talks to both server processes.
        let device = DeviceAttestation(key: try DeviceKey(file: folder.appendingPathComponent("device.key").path))
        let (share, registration) = try await ThresholdClient(server: URL(string: base)!, attestation: device)
            .enrollShare(code: code, role: .sign, clientPID: Transcript.taggedHash("device", [[9]]))
        let pin = try XCTUnwrap(BigInt(hex: registration.ringPedersenPin)?.bytes(width: 32))

        kill(first.processIdentifier, SIGKILL)  // no chance to tidy up
        TestEnvironment.terminate(first)

        let (second, base2) = try serve()
        defer { TestEnvironment.terminate(second) }
        let client = ThresholdClient(server: URL(string: base2)!, attestation: device)
        // The same server identity: a client that pinned it enrolls again without re-checking Π^prm
        // (enrollShare with the pin refuses other parameters).
        let code2 = try TestEnvironment.run(binary, ["cosigner", "issue-code", "49001010000", "--db", database]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let (_, again) = try await client.enrollShare(
            code: code2, role: .sign, clientPID: Transcript.taggedHash("device", [[10]]), pinnedRingPedersen: pin)
        XCTAssertEqual(again.ringPedersenPin, registration.ringPedersenPin)
        // The key enrolled before the kill signs, and the device's calls are attested across the restart.
        let digest = Array(Digest.compute(.sha256, over: Data("after restart".utf8)).bytes)
        let rpKey = try TestEnvironment.run(binary, ["cosigner", "add-rp", "rp", "--db", database]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let session = try await client.call(
            "POST", "v3/rp/session",
            ["keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest), "displayText": "t"],
            apiKey: rpKey)
        let id = try XCTUnwrap(session["sessionID"] as? String)
        let signature = try await client.approve(
            sessionID: id, digest: digest, share: share.publicShare, token: registration.deviceToken,
            guard: ShareStateFile(path: folder.appendingPathComponent("guard").path)
        ) { share.secretKey }
        XCTAssertTrue(
            TwoPartySigning.verify(
                r: signature.r, s: signature.s, digest: try Digest(algorithm: .sha256, bytes: Data(digest)),
                publicKey: share.publicKey))
        let result = try await client.call("GET", "v3/rp/session/\(id)", nil, apiKey: rpKey)
        XCTAssertEqual(result["state"] as? String, "COMPLETE")
    }
}

/// A share guard in memory: each signature here has its own, the test is about the server.
private struct MemoryShareGuard: ShareGuard {
    func isLocked() throws -> Bool { false }
    func markInFlight() throws {}
    func clearInFlight() throws {}
    func lock() throws {}
    func reset() throws {}
}

/// What the load tasks saw confirmed by the co-signer before it was killed.
private actor Confirmed {
    var keys: [[UInt8]] = []
    var sessions: [String] = []
    func key(_ id: [UInt8]) { keys.append(id) }
    func session(_ id: String) { sessions.append(id) }
}

extension CoSignerProcessTests {
    /// `kill -9` while devices enroll and sign: the database opens, passes SQLite's integrity
    /// check, holds every key whose enrollment was answered and every signature whose finish
    /// was answered, and the restarted co-signer signs with those keys.
    func testKill9UnderLoadLosesNoAnsweredEnrollmentOrSignature() async throws {
        let (first, base) = try serve()
        let setup = try CoSignerStore(path: database, serverKey: CoSignerStore.serverKey(file: database + ".key"))
        let codes = try (0..<40).map { try setup.issueEnrollmentCode(documentNumber: "load-\($0)") }
        let rpKey = try setup.addRelyingParty(name: "load")
        let confirmed = Confirmed()
        // Four devices enrolled before the load starts.
        var devices: [(ClientKeyShare, ThresholdClient.Registration, ThresholdClient)] = []
        for index in 0..<4 {
            let client = ThresholdClient(
                server: URL(string: base)!,
                attestation: DeviceAttestation(
                    key: try DeviceKey(file: folder.appendingPathComponent("d\(index).key").path)))
            let (share, registration) = try await client.enrollShare(
                code: codes[index], role: .sign, clientPID: Transcript.taggedHash("load", [[UInt8(index)]]))
            await confirmed.key(share.keyID)
            devices.append((share, registration, client))
        }
        let folder = self.folder!
        let loadDevices = devices
        let load = Task { @Sendable in
            await withTaskGroup(of: Void.self) { group in
                for (index, device) in loadDevices.enumerated() {
                    group.addTask {
                        for n in 0..<10_000 {
                            let digest = Array(Digest.compute(.sha256, over: Data("kill \(index) \(n)".utf8)).bytes)
                            guard
                                let session = try? await device.2.call(
                                    "POST", "v3/rp/session",
                                    ["keyID": WireFormat.hex(device.0.keyID), "digest": WireFormat.hex(digest)],
                                    apiKey: rpKey),
                                let id = session["sessionID"] as? String
                            else { return }
                            guard
                                (try? await device.2.approve(
                                    sessionID: id, digest: digest, share: device.0.publicShare,
                                    token: device.1.deviceToken,
                                    guard: MemoryShareGuard()
                                ) { device.0.secretKey }) != nil
                            else { return }
                            await confirmed.session(id)
                        }
                    }
                }
                group.addTask {  // and enrollments alongside
                    for index in 4..<codes.count {
                        guard let key = try? DeviceKey(file: folder.appendingPathComponent("d\(index).key").path) else {
                            return
                        }
                        let client = ThresholdClient(
                            server: URL(string: base)!, attestation: DeviceAttestation(key: key))
                        guard
                            let (share, _) = try? await client.enrollShare(
                                code: codes[index], role: .sign,
                                clientPID: Transcript.taggedHash("load", [[UInt8(index)]]))
                        else { return }
                        await confirmed.key(share.keyID)
                    }
                }
            }
        }
        // Let the load run until a good number of signatures went through, then pull the plug.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let (signed, enrolled) = (await confirmed.sessions.count, await confirmed.keys.count)
            if signed >= 60 && enrolled >= 6 { break }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        kill(first.processIdentifier, SIGKILL)
        TestEnvironment.terminate(first)
        await load.value
        let keys = await confirmed.keys, sessions = await confirmed.sessions
        XCTAssertGreaterThanOrEqual(sessions.count, 60, "the signing load ran")
        XCTAssertGreaterThanOrEqual(keys.count, 6, "enrollments ran alongside")

        let store = try CoSignerStore(path: database, serverKey: CoSignerStore.serverKey(file: database + ".key"))
        XCTAssertEqual(try store.database.query("PRAGMA integrity_check").first?.first?.text, "ok")
        for key in keys {
            XCTAssertNotNil(try store.loadKey(key), "an answered enrollment is in the database and opens")
        }
        for id in sessions {
            XCTAssertEqual(
                try store.database.query("SELECT state FROM sessions WHERE id = ?", [.text(id)]).first?.first?.text,
                "COMPLETE")
        }
        // Every state is one the state machine knows (the CHECK constraint held).
        let states = Set(try store.database.query("SELECT DISTINCT state FROM sessions").compactMap { $0.first?.text })
        XCTAssertTrue(
            states.isSubset(of: ["PENDING", "COMMITTED", "PROVED", "COMPLETE", "FAILED", "EXPIRED"]), "\(states)")

        // The restarted co-signer signs with a key enrolled before the kill.
        let (second, base2) = try serve()
        defer { TestEnvironment.terminate(second) }
        let device = devices[0]
        let client = ThresholdClient(server: URL(string: base2)!, attestation: device.2.attestation)
        // A session the kill cut off stays open across the restart (its state is in the
        // database): the device whose approve was cut off abandons it, as after a lost answer.
        for open in try store.database.query(
            "SELECT id FROM sessions WHERE key_id = ? AND state IN ('COMMITTED', 'PROVED')",
            [.text(WireFormat.hex(device.0.keyID))]
        ).compactMap({ $0.first?.text }) {
            let ended = try await client.call(
                "POST", "v3/mobile/session/\(open)/sign/abandon", ["reason": "c3-not-received"],
                token: device.1.deviceToken)
            XCTAssertEqual(ended["state"] as? String, "ABANDONED")
        }
        let digest = Array(Digest.compute(.sha256, over: Data("after the kill".utf8)).bytes)
        let session = try await client.call(
            "POST", "v3/rp/session", ["keyID": WireFormat.hex(device.0.keyID), "digest": WireFormat.hex(digest)],
            apiKey: rpKey)
        let signature = try await client.approve(
            sessionID: try XCTUnwrap(session["sessionID"] as? String), digest: digest, share: device.0.publicShare,
            token: device.1.deviceToken, guard: MemoryShareGuard()
        ) { device.0.secretKey }
        XCTAssertTrue(
            TwoPartySigning.verify(
                r: signature.r, s: signature.s, digest: try Digest(algorithm: .sha256, bytes: Data(digest)),
                publicKey: device.0.publicKey))
    }
}

/// The whole split-key flow with the binaries: `cosigner serve` with its CA, `cosigner
/// issue-code`, `threshold enroll`, `sign --with threshold:ACCOUNT` at LT, `verify`.
final class ThresholdCommandTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    func testEnrollAndSignWithTheSplitKeyFromTheCommandLine() throws {
        let folder = try TestEnvironment.temporaryFolder("threshold-cli")
        defer { TestEnvironment.removeFolder(folder) }
        let fixture = try CoSignerFixture(folder: folder)
        defer { fixture.stop() }
        let (services, database) = (fixture.services, fixture.database)
        let (server, url) = try TestEnvironment.startListening(executable: binary, fixture.serveArguments)
        defer { TestEnvironment.terminate(server) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("xdg").path
        environment["TAMGA_PIN"] = "24680"
        let code = try TestEnvironment.run(binary, ["cosigner", "issue-code", "38001085718", "--db", database]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // PIN2 shorter than 5 characters: refused (exit 9) before anything is sent.
        var short = environment
        short["TAMGA_PIN"] = "2468"
        let refused = try TestEnvironment.run(
            binary,
            ["threshold", "enroll", "--server", url.absoluteString, "--code", code, "--account", "38001085718"],
            environment: short)
        XCTAssertEqual(refused.status, 9, refused.error)
        XCTAssertTrue(
            refused.error.contains("PIN2 (signing) must have at least 5 characters")
                && !refused.error.contains("enrollment 1/2"), refused.error)
        let enrolled = try TestEnvironment.run(
            binary,
            ["threshold", "enroll", "--server", url.absoluteString, "--code", code, "--account", "38001085718"],
            environment: environment)
        XCTAssertEqual(enrolled.status, 0, enrolled.error)
        XCTAssertTrue(enrolled.output.contains("PNOEE-38001085718"), enrolled.output)
        // The code is used up: a second enrollment is refused, and the co-signer's reason is shown.
        var other = environment
        other["XDG_DATA_HOME"] = folder.appendingPathComponent("xdg2").path
        let reused = try TestEnvironment.run(
            binary, ["threshold", "enroll", "--server", url.absoluteString, "--code", code, "--account", "again"],
            environment: other)
        XCTAssertEqual(reused.status, 7, reused.error)
        XCTAssertTrue(
            reused.error.contains("bad-enrollment-code") && reused.error.contains("unknown, expired, or already used"),
            reused.error)
        XCTAssertTrue(enrolled.error.contains("enrollment 2/2"), "progress per round: \(enrolled.error)")
        let container = folder.appendingPathComponent("split.asice").path
        let document = try TestEnvironment.write("split key\n", named: "doc.txt", in: folder)
        let signed = try TestEnvironment.run(
            binary,
            [
                "sign", container, document, "--with", "threshold:38001085718", "--tsa",
                services.url("tsa").absoluteString,
                "--ocsp", services.url("ocsp").absoluteString, "--certs", TestEnvironment.pki("issuing-ca.cert.pem"),
            ],
            environment: environment)
        XCTAssertEqual(signed.status, 0, signed.error)
        let verified = try TestEnvironment.run(
            binary, ["verify", container, "--trust", TestEnvironment.pki("root.cert.pem")])
        XCTAssertEqual(verified.status, 0, verified.output + verified.error)
        XCTAssertTrue(verified.output.contains("THRESHOLD SIGNING KEY"), verified.output)
        // A wrong PIN: exit 9, the container unchanged.
        let before = try TestEnvironment.bytes(container)
        environment["TAMGA_PIN"] = "11111"
        let wrong = try TestEnvironment.run(
            binary, ["sign", container, "--with", "threshold:38001085718", "--profile", "B"], environment: environment)
        XCTAssertEqual(wrong.status, 9, wrong.error)
        XCTAssertEqual(try TestEnvironment.bytes(container), before)

        // A relying party's session, listed and approved from the command line.
        environment["TAMGA_PIN"] = "24680"
        let keyID = try XCTUnwrap(
            try Data(contentsOf: folder.appendingPathComponent("xdg/tamga/threshold/38001085718/sign.public"))
                .withUnsafeBytes { try JSONSerialization.jsonObject(with: Data($0)) as? [String: String] }?["keyID"])
        let digest = Digest.compute(.sha256, over: Data("rp document".utf8)).hex
        let rpKey = try TestEnvironment.run(binary, ["cosigner", "add-rp", "Test Bank", "--db", database]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(rpKey.count, 64)
        let created = try TestEnvironment.run(
            "/usr/bin/curl",
            [
                "-s", "-X", "POST", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(rpKey)",
                "-d",
                "{\"keyID\":\"\(keyID)\",\"digest\":\"\(digest)\",\"displayText\":\"Open an account\"}",
                url.absoluteString + "/v3/rp/session",
            ])
        let answer = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(created.output.utf8)) as? [String: String], created.output)
        let sessionID = try XCTUnwrap(answer["sessionID"], created.output)
        // The verification code: the relying party gets it with the session, the device shows the
        // same, computed from the digest it signs (Smart-ID's rule).
        let shownCode = try XCTUnwrap(answer["verificationCode"], created.output)
        XCTAssertEqual(shownCode, "7310", "SHA-256 of the digest, its last two bytes mod 10000 (python3 hashlib)")
        let pending = try TestEnvironment.run(
            binary, ["threshold", "pending", "--account", "38001085718"], environment: environment)
        XCTAssertTrue(
            pending.output.contains(sessionID) && pending.output.contains("Test Bank: Open an account"),
            pending.output + pending.error)
        XCTAssertTrue(pending.output.contains("\(sessionID)  SIGN  \(shownCode)  Test Bank"), pending.output)
        let pendingJSON = try TestEnvironment.run(
            binary, ["threshold", "pending", "--account", "38001085718", "--json"], environment: environment)
        let listed = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(pendingJSON.output.utf8)) as? [String: [[String: String]]])?[
                "sessions"], pendingJSON.output)
        XCTAssertEqual(listed.first { $0["id"] == sessionID }?["verificationCode"], shownCode, pendingJSON.output)
        try JSONOutputSchemaTests.conform(pendingJSON.output, to: "threshold-pending")
        let infoJSON = try TestEnvironment.run(
            binary, ["threshold", "info", sessionID, "--account", "38001085718", "--json"], environment: environment)
        XCTAssertEqual(infoJSON.status, 0, infoJSON.error)
        try JSONOutputSchemaTests.conform(infoJSON.output, to: "threshold-info")
        XCTAssertTrue(infoJSON.output.contains("\"verificationCode\" : \"\(shownCode)\""), infoJSON.output)
        let approved = try TestEnvironment.run(
            binary, ["threshold", "approve", sessionID, "--account", "38001085718"], environment: environment)
        XCTAssertEqual(approved.status, 0, approved.error)
        XCTAssertTrue(approved.error.contains("Test Bank asks (SIGN): Open an account"), approved.error)
        XCTAssertTrue(approved.error.contains("Verification code: \(shownCode)"), approved.error)
        let result = try TestEnvironment.run(
            "/usr/bin/curl",
            ["-s", "-H", "Authorization: Bearer \(rpKey)", url.absoluteString + "/v3/rp/session/" + sessionID])
        XCTAssertTrue(result.output.contains("\"state\":\"COMPLETE\""), result.output)
        let activity = try TestEnvironment.run(
            binary, ["threshold", "activity", "--account", "38001085718"], environment: environment)
        XCTAssertTrue(activity.output.contains("session-signed"), activity.output)
        let activityJSON = try TestEnvironment.run(
            binary, ["threshold", "activity", "--account", "38001085718", "--json"], environment: environment)
        XCTAssertEqual(activityJSON.status, 0, activityJSON.error)
        try JSONOutputSchemaTests.conform(activityJSON.output, to: "threshold-activity")
        XCTAssertTrue(activityJSON.output.contains("\"session-signed\""), activityJSON.output)

        try authenticate(binary: binary, url: url, code: code, folder: folder, environment: environment, rpKey: rpKey)

        // PIN management and deletion.
        environment["TAMGA_PIN"] = "99999"
        XCTAssertEqual(
            try TestEnvironment.run(
                binary, ["threshold", "verify-pin", "--account", "38001085718"], environment: environment
            ).status, 9)
        environment["TAMGA_PIN"] = "24680"
        environment["TAMGA_NEW_PIN"] = "13579"
        let changed = try TestEnvironment.run(
            binary, ["threshold", "change-pin", "--account", "38001085718", "--json"], environment: environment)
        XCTAssertEqual(changed.status, 0, changed.error)
        try JSONOutputSchemaTests.conform(changed.output, to: "threshold-pin")
        environment["TAMGA_PIN"] = "13579"
        let pinChecked = try TestEnvironment.run(
            binary, ["threshold", "verify-pin", "--account", "38001085718", "--json"], environment: environment)
        XCTAssertEqual(pinChecked.status, 0, pinChecked.error)
        try JSONOutputSchemaTests.conform(pinChecked.output, to: "threshold-pin")
        XCTAssertTrue(pinChecked.output.contains("\"pin-correct\""), pinChecked.output)
        let afterChange = try TestEnvironment.run(
            binary, ["sign", container, "--with", "threshold:38001085718", "--profile", "B"], environment: environment)
        XCTAssertEqual(afterChange.status, 0, "the new PIN signs: \(afterChange.error)")
        let deleted = try TestEnvironment.run(
            binary, ["threshold", "delete", "--account", "38001085718", "--json"], environment: environment)
        XCTAssertEqual(deleted.status, 0, deleted.error)
        try JSONOutputSchemaTests.conform(deleted.output, to: "threshold-delete")
        let gone = try TestEnvironment.run(
            binary, ["sign", container, "--with", "threshold:38001085718", "--profile", "B"], environment: environment)
        XCTAssertEqual(gone.status, 3, gone.error)
    }
}

extension ThresholdCommandTests {
    /// The same code enrolls the auth key (PIN1); a relying party's AUTH session is listed,
    /// inspected and approved from the command line, and the relying party checks the result
    /// with openssl: the signature over ACSP_V2 verifies under the returned certificate, which
    /// is for client authentication.
    func authenticate(
        binary: String, url: URL, code: String, folder: URL, environment base: [String: String], rpKey: String
    ) throws {
        var environment = base
        environment["TAMGA_PIN"] = "1357"
        let enrolled = try TestEnvironment.run(
            binary,
            [
                "threshold", "enroll", "--server", url.absoluteString, "--code", code, "--account", "38001085718",
                "--role", "auth",
            ], environment: environment)
        XCTAssertEqual(enrolled.status, 0, enrolled.error)
        XCTAssertTrue(enrolled.output.contains("THRESHOLD AUTHENTICATION KEY"), enrolled.output)
        let challenge = Data((0..<64).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        let created = try TestEnvironment.run(
            "/usr/bin/curl",
            [
                "-s", "-X", "POST", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(rpKey)",
                "-d",
                "{\"kind\":\"AUTH\",\"documentNumber\":\"38001085718\",\"rpChallenge\":\"\(challenge)\",\"displayText\":\"Log in\"}",
                url.absoluteString + "/v3/rp/session",
            ])
        let sessionID = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(created.output.utf8)) as? [String: String])?["sessionID"],
            created.output)
        let pending = try TestEnvironment.run(
            binary, ["threshold", "pending", "--account", "38001085718"], environment: environment)
        XCTAssertTrue(pending.output.contains("\(sessionID)  AUTH"), pending.output + pending.error)
        let info = try TestEnvironment.run(
            binary, ["threshold", "info", sessionID, "--account", "38001085718"], environment: environment)
        XCTAssertEqual(info.status, 0, info.error)
        XCTAssertTrue(
            info.output.contains("ACSP_V2 of the challenge and this device's key") && info.output.contains(challenge),
            info.output)
        let infoJSON = try TestEnvironment.run(
            binary, ["threshold", "info", sessionID, "--account", "38001085718", "--json"], environment: environment)
        XCTAssertEqual(infoJSON.status, 0, infoJSON.error)
        try JSONOutputSchemaTests.conform(infoJSON.output, to: "threshold-info")
        XCTAssertTrue(infoJSON.output.contains("\"rpChallenge\""), infoJSON.output)
        // The sign key's PIN does not open the auth key (PIN1 and PIN2 are separate).
        environment["TAMGA_PIN"] = "24680"
        let wrong = try TestEnvironment.run(
            binary, ["threshold", "approve", sessionID, "--account", "38001085718"], environment: environment)
        XCTAssertEqual(wrong.status, 9, wrong.error)
        let created2 = try TestEnvironment.run(
            "/usr/bin/curl",
            [
                "-s", "-X", "POST", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(rpKey)",
                "-d",
                "{\"kind\":\"AUTH\",\"documentNumber\":\"38001085718\",\"rpChallenge\":\"\(challenge)\",\"displayText\":\"Log in\"}",
                url.absoluteString + "/v3/rp/session",
            ])
        let session2 = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(created2.output.utf8)) as? [String: String])?["sessionID"],
            created2.output)
        environment["TAMGA_PIN"] = "1357"
        let approved = try TestEnvironment.run(
            binary, ["threshold", "approve", session2, "--account", "38001085718", "--json"], environment: environment)
        XCTAssertEqual(approved.status, 0, approved.error)
        try JSONOutputSchemaTests.conform(approved.output, to: "threshold-approve")
        XCTAssertTrue(approved.error.contains("Test Bank asks (AUTH): Log in"), approved.error)

        // The relying party's side, with openssl only.
        let result = try TestEnvironment.run(
            "/usr/bin/curl",
            ["-s", "-H", "Authorization: Bearer \(rpKey)", url.absoluteString + "/v3/rp/session/" + session2])
        let answer = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: String], result.output)
        XCTAssertEqual(answer["state"], "COMPLETE")
        let certificateDER = try XCTUnwrap(BigInt(hex: XCTUnwrap(answer["certificate"]))?.bytes)
        let raw = try XCTUnwrap(BigInt(hex: XCTUnwrap(answer["signature"]))?.bytes(width: 64))
        let certificate = try Certificate(der: Data(certificateDER))
        let payload = AuthenticationChallenge.payload(
            rpChallenge: Array(Data(base64Encoded: challenge)!),
            subjectPublicKeyInfo: try XCTUnwrap(certificate.publicKey.subjectPublicKeyInfo),
            rpName: "Test Bank")
        let files = folder.appendingPathComponent("rp")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        try Data(certificateDER).write(to: files.appendingPathComponent("auth.der"))
        try Data(payload.utf8).write(to: files.appendingPathComponent("payload"))
        try ECDSASignature.der(fromRaw: Data(raw), curve: .p256).write(to: files.appendingPathComponent("sig.der"))
        let publicKey = try TestEnvironment.run(
            "/usr/bin/openssl",
            [
                "x509", "-inform", "DER", "-in", files.appendingPathComponent("auth.der").path,
                "-pubkey", "-noout", "-out", files.appendingPathComponent("pub.pem").path,
            ])
        XCTAssertEqual(publicKey.status, 0, publicKey.error)
        let verified = try TestEnvironment.run(
            "/usr/bin/openssl",
            [
                "dgst", "-sha256", "-verify", files.appendingPathComponent("pub.pem").path,
                "-signature", files.appendingPathComponent("sig.der").path,
                files.appendingPathComponent("payload").path,
            ])
        XCTAssertEqual(verified.status, 0, verified.output + verified.error)
        let text = try TestEnvironment.run(
            "/usr/bin/openssl",
            ["x509", "-inform", "DER", "-in", files.appendingPathComponent("auth.der").path, "-noout", "-text"])
        XCTAssertTrue(
            text.output.contains("TLS Web Client Authentication") && !text.output.contains("Non Repudiation"),
            text.output)
    }
}

/// HTTPS co-signer: the device pins its TLS key at enrollment and refuses another one later.
final class CoSignerTLSTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    private func makeCertificate(in folder: URL, name: String) throws -> (String, String) {
        let key = folder.appendingPathComponent("\(name).key").path,
            cert = folder.appendingPathComponent("\(name).pem").path
        let made = try TestEnvironment.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert,
            ])
        XCTAssertEqual(made.status, 0, made.error)
        return (cert, key)
    }

    func testTheCoSignersKeyIsPinnedAtEnrollment() throws {
        let folder = try TestEnvironment.temporaryFolder("cosigner-tls")
        defer { TestEnvironment.removeFolder(folder) }
        let fixture = try CoSignerFixture(folder: folder)
        defer { fixture.stop() }
        let database = fixture.database
        let (cert, key) = try makeCertificate(in: folder, name: "tls")
        let serveArguments = fixture.serveArguments + ["--port", "0"]
        let (server, url) = try TestEnvironment.startListening(
            executable: binary, serveArguments + ["--tls-cert", cert, "--tls-key", key])
        XCTAssertEqual(url.scheme, "https")
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("xdg").path
        environment["TAMGA_PIN"] = "24680"
        let code = try TestEnvironment.run(binary, ["cosigner", "issue-code", "38001085718", "--db", database]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // Without trusting its certificate the first contact is refused …
        let untrusted = try TestEnvironment.run(
            binary, ["threshold", "enroll", "--server", url.absoluteString, "--code", code, "--account", "a"],
            environment: environment)
        XCTAssertEqual(untrusted.status, 7, untrusted.error)
        XCTAssertTrue(
            untrusted.error.contains("not trusted") && untrusted.error.contains("--ca-file"),
            "names the option, not the network: \(untrusted.error)")
        // … with it, enrollment pins the key.
        // (both keys with one code: PIN2 from TAMGA_PIN, PIN1 from TAMGA_PIN1)
        environment["TAMGA_PIN1"] = "1111"
        let enrolled = try TestEnvironment.run(
            binary,
            [
                "threshold", "enroll", "--server", url.absoluteString, "--code", code, "--account", "a", "--ca-file",
                cert,
                "--role", "both", "--json",
            ], environment: environment)
        XCTAssertEqual(enrolled.status, 0, enrolled.error)
        try JSONOutputSchemaTests.conform(enrolled.output, to: "threshold-enroll")
        let keys = try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(enrolled.output.utf8)) as? [String: Any])?["keys"]
                as? [[String: String]], enrolled.output)
        XCTAssertEqual(keys.map { $0["role"] ?? "" }, ["sign", "auth"])
        XCTAssertTrue(keys[1]["certificate"]?.contains("AUTHENTICATION") == true, "\(keys)")
        let document = try TestEnvironment.write("pinned\n", named: "p.txt", in: folder)
        let container = folder.appendingPathComponent("p.asice").path
        // The only account on this device: --with threshold needs no name.
        XCTAssertEqual(
            try TestEnvironment.run(
                binary, ["sign", container, document, "--with", "threshold", "--profile", "B"], environment: environment
            ).status, 0)
        environment["TAMGA_PIN"] = "1111"
        XCTAssertEqual(
            try TestEnvironment.run(
                binary, ["threshold", "verify-pin", "--account", "a", "--role", "auth"], environment: environment
            ).status, 0, "PIN1 opens the auth key")
        environment["TAMGA_PIN"] = "24680"
        TestEnvironment.terminate(server)
        // The same co-signer with another TLS key on the same port: the device refuses to talk.
        let (otherCert, otherKey) = try makeCertificate(in: folder, name: "other")
        let (second, _) = try TestEnvironment.startListening(
            executable: binary,
            serveArguments.map { $0 == "0" ? String(url.port!) : $0 } + [
                "--tls-cert", otherCert, "--tls-key", otherKey,
            ])
        defer { TestEnvironment.terminate(second) }
        let refused = try TestEnvironment.run(
            binary, ["sign", container, "--with", "threshold:a", "--profile", "B"], environment: environment)
        XCTAssertEqual(refused.status, 7, refused.error)
        XCTAssertTrue(refused.error.contains("not the one pinned"), refused.error)
    }
}
