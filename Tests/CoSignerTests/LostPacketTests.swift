import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

@testable import CoSigner
@testable import HTTPService

/// One lost segment costs at most a retry, never a lock (a lost `finish` once locked the key).
/// A real co-signer (SQLite file, HTTP on loopback) behind `LossyProxy`, which drops the request
/// or the answer of one step, or answers it with a 5xx; the device is the real `ThresholdClient`.
/// Each test checks: the key is not locked on either side, no session got a second c3, and the
/// signature was either delivered or the session cleanly abandoned — and the next signing works.
final class LostPacketTests: XCTestCase {
    var folder: URL!
    var path: String { folder.appendingPathComponent("cosigner.db").path }
    var service: CoSignerService!
    var server: HTTPServer!
    var proxy: LossyProxy!
    var share: ClientKeyShare!
    var registration: ThresholdClient.Registration!
    var device: DeviceAttestation!
    var rpKey = ""
    /// The device's own terminal-abort state, one for the key across its signatures.
    let guardian = MemoryGuardForService()

    /// A co-signer on the database at `path` (new or restarted), its party's sessions living
    /// `partyLifetime` seconds.
    func start(partyLifetime: TimeInterval = 300) throws {
        let store = try CoSignerStore(path: path, serverKey: [UInt8](repeating: 9, count: 32))
        // The process's shared ring-Pedersen parameters, stored as a first start stores its own
        // (two 1,024-bit safe primes take seconds to find; a restart reads them back).
        let identity = try store.serverIdentity { _ in CoSignerStoreTests.ringPedersen }
        let service = CoSignerService(
            store: store,
            party: try ServerParty(
                pid: identity.pid, ringPedersen: identity.ringPedersen, sessionLifetime: partyLifetime))
        self.service = service
        server = try HTTPServer { service.handle($0) }
    }

    /// Stops the co-signer and starts it again on the same database (its memory — open sessions'
    /// k2, attestation nonces — is gone), the proxy pointed at the new one.
    func restart() throws {
        server.stop()
        try start()
        proxy.retarget(server.port)
    }

    override func setUp() async throws {
        folder = try TestEnvironment.temporaryFolder("lost-packet")
        try start()
        proxy = try LossyProxy(upstreamPort: server.port)
        rpKey = try service.store.addRelyingParty(name: "Test Bank")
        device = try testDevice(in: folder)
        let code = try service.store.issueEnrollmentCode(documentNumber: "38001085718")
        (share, registration) = try await enrollOverHTTP(direct, code: code, document: "38001085718")
    }

    override func tearDown() {
        proxy.stop()
        server.stop()
        TestEnvironment.removeFolder(folder)
    }

    /// The device straight to the co-signer (for what is not under test).
    var direct: ThresholdClient {
        ThresholdClient(server: URL(string: "http://127.0.0.1:\(server.port)")!, attestation: device)
    }
    /// The device through the lossy link; short pauses between its resends.
    var lossy: ThresholdClient {
        ThresholdClient(
            server: proxy.url, transport: HTTPTransport(timeout: 10), attestation: device,
            retry: RetryPolicy(attempts: 4, firstDelay: 0.05))
    }

    /// A relying party's SIGN session for the key (opened on the co-signer directly).
    func newSession(_ label: String) async throws -> (String, [UInt8]) {
        let digest = Array(Digest.compute(.sha256, over: Data(label.utf8)).bytes)
        let answer = try await direct.call(
            "POST", "v3/rp/session",
            ["keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest), "displayText": label],
            apiKey: rpKey)
        return (try XCTUnwrap(answer["sessionID"] as? String), digest)
    }

    /// Approves a new session through the proxy.
    func approve(_ label: String) async throws -> (id: String, digest: [UInt8], approval: Approval) {
        let (id, digest) = try await newSession(label)
        let approval = try await lossy.approveSession(
            sessionID: id, digest: digest, share: share.publicShare, token: registration.deviceToken,
            guard: guardian
        ) { self.share.secretKey }
        return (id, digest, approval)
    }

    func state(_ id: String) throws -> String? {
        try service.store.database.query("SELECT state FROM sessions WHERE id = ?", [.text(id)]).first?.first?.text
    }

    func verifies(_ approval: Approval, _ digest: [UInt8]) throws -> Bool {
        TwoPartySigning.verify(
            r: approval.r, s: approval.s, digest: try Digest(algorithm: .sha256, bytes: Data(digest)),
            publicKey: share.publicKey)
    }

    /// Neither side locked, and the co-signer answered at most one prove of `session` (one c3
    /// for its one k2).
    func assertNothingLocked(_ session: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(
            try service.store.loadKey(share.keyID)?.locked, false, "the co-signer locked the key", file: file,
            line: line)
        XCTAssertFalse(try guardian.isLocked(), "the device locked its share", file: file, line: line)
        let proves = proxy.log.filter { $0.path.contains("\(session)/sign/prove") && $0.serverStatus != nil }
        XCTAssertLessThanOrEqual(
            proves.count, 1, "prove reached the co-signer more than once: \(proves)", file: file, line: line)
        XCTAssertLessThanOrEqual(proves.filter { $0.serverStatus == 200 }.count, 1, file: file, line: line)
    }

    /// After a failure, the next signature goes through the same link and is delivered.
    func assertNextSigningWorks(file: StaticString = #filePath, line: UInt = #line) async throws {
        let next = try await approve("next after a lost segment")
        XCTAssertNil(next.approval.notDelivered, file: file, line: line)
        XCTAssertTrue(try verifies(next.approval, next.digest), file: file, line: line)
        XCTAssertEqual(try state(next.id), "COMPLETE", file: file, line: line)
    }

    /// Runs `approve` expecting it to end in `sessionAbandoned`.
    func approveAbandoned(_ label: String, file: StaticString = #filePath, line: UInt = #line) async throws -> String {
        let (id, digest) = try await newSession(label)
        do {
            _ = try await lossy.approveSession(
                sessionID: id, digest: digest, share: share.publicShare, token: registration.deviceToken,
                guard: guardian
            ) { self.share.secretKey }
            XCTFail("signed although a segment was lost", file: file, line: line)
        } catch ThresholdError.sessionAbandoned(let why) {
            XCTAssertFalse(why.isEmpty, file: file, line: line)
        }
        return id
    }

    // MARK: commit

    func testALostCommitAnswerAbandonsTheSessionAndTheNextSigningWorks() async throws {
        proxy.inject(.dropAnswer(), whenPathContains: "/sign/commit")
        let id = try await approveAbandoned("commit answer lost")
        XCTAssertEqual(try state(id), "ABANDONED", "the co-signer had committed; the device ended it")
        try assertNothingLocked(id)
        try await assertNextSigningWorks()
    }

    func testALostCommitRequestLeavesTheSessionWaiting() async throws {
        proxy.inject(.dropRequest, whenPathContains: "/sign/commit")
        let id = try await approveAbandoned("commit request lost")
        XCTAssertEqual(try state(id), "PENDING", "nothing reached the co-signer; the session can still be approved")
        try assertNothingLocked(id)
        try await assertNextSigningWorks()
    }

    // MARK: prove

    func testALostProveRequestAbandonsTheCommittedSession() async throws {
        proxy.inject(.dropRequest, whenPathContains: "/sign/prove")
        let id = try await approveAbandoned("prove request lost")
        XCTAssertEqual(try state(id), "ABANDONED")
        try assertNothingLocked(id)
        try await assertNextSigningWorks()
    }

    func testAProveAnswered503AbandonsTheSession() async throws {
        proxy.inject(.answer(status: 503), whenPathContains: "/sign/prove")
        let id = try await approveAbandoned("prove 503")
        XCTAssertEqual(try state(id), "ABANDONED")
        try assertNothingLocked(id)
        try await assertNextSigningWorks()
    }

    /// The c3 left the co-signer and never arrived: the device says so, the session ends
    /// ABANDONED, unlocked, without a second prove; the next signing works at once.
    func testALostProveAnswerEndsTheSessionUnlockedWithoutASecondC3() async throws {
        proxy.inject(.dropAnswer(), whenPathContains: "/sign/prove")
        let id = try await approveAbandoned("prove answer lost")
        XCTAssertEqual(
            proxy.log.filter { $0.path.contains("/sign/prove") }.map(\.serverStatus), [200],
            "one c3 computed, none delivered")
        XCTAssertEqual(try state(id), "ABANDONED")
        XCTAssertTrue(
            try service.store.activity(documentNumber: "38001085718").contains {
                $0.event == "session-abandoned" && $0.detail.contains("after c3")
            })
        try assertNothingLocked(id)
        try await assertNextSigningWorks()
    }

    /// The device cannot get a second c3 for one k2: after a c3, `prove` is refused whether the
    /// session is still PROVED or was abandoned; a new commit is the only way on.
    func testAProveSentAgainNeverGetsASecondC3() async throws {
        let (id, digest) = try await newSession("twice")
        let signing = try ClientSigning(share: share.publicShare, digest: digest, guard: MemoryGuardForService())
        let base = "v3/mobile/session/\(id)/sign/"
        let commit = try await direct.call(
            "POST", base + "commit", ["message": WireFormat.encode(signing.commitRequest)],
            token: registration.deviceToken)
        let prove = [
            "message": WireFormat.encode(
                try signing.prove(WireFormat.decodeSignCommitResponse(commit["message"] as? [String: String] ?? [:])))
        ]
        _ = try await direct.call("POST", base + "prove", prove, token: registration.deviceToken)
        for step in ["again while PROVED", "again after abandon"] {
            if step.hasSuffix("abandon") {
                _ = try await direct.call(
                    "POST", base + "abandon", ["reason": "c3-not-received"], token: registration.deviceToken)
            }
            do {
                _ = try await direct.call("POST", base + "prove", prove, token: registration.deviceToken)
                XCTFail("a second c3 (\(step))")
            } catch CoreError.serviceRefused(_, _, let status, _, _) {
                XCTAssertEqual(status, 409, step)
            }
        }
        XCTAssertEqual(try state(id), "ABANDONED")
        // abandon is only for a c3 not received: any other reason is refused (a failed c3 is
        // reported with finish, which locks).
        let (other, _) = try await newSession("reason")
        do {
            _ = try await direct.call(
                "POST", "v3/mobile/session/\(other)/sign/abandon", ["reason": "crypto_fail"],
                token: registration.deviceToken)
            XCTFail("abandon with another reason")
        } catch CoreError.serviceRefused(_, _, let status, let code, _) {
            XCTAssertEqual(status, 400)
            XCTAssertEqual(code, "bad-request")
        }
        try assertNothingLocked(id)
    }

    // MARK: finish

    /// Before the fix the device took the lost request for a failure and sent crypto_fail, which
    /// reached the session still PROVED and locked the key.
    func testALostFinishRequestIsResentAndDelivered() async throws {
        proxy.inject(.dropRequest, whenPathContains: "/sign/finish")
        let signed = try await approve("finish request lost")
        XCTAssertNil(signed.approval.notDelivered)
        XCTAssertTrue(try verifies(signed.approval, signed.digest))
        XCTAssertEqual(try state(signed.id), "COMPLETE")
        try assertNothingLocked(signed.id)
        try await assertNextSigningWorks()
    }

    /// Before the fix the signature was dropped (approve threw) although the co-signer had it
    /// COMPLETE.
    func testALostFinishAnswerStillReturnsTheSignatureAndTheSessionIsComplete() async throws {
        proxy.inject(.dropAnswer(), whenPathContains: "/sign/finish")
        let signed = try await approve("finish answer lost")
        XCTAssertNil(signed.approval.notDelivered, "the resend got 409 and the session was COMPLETE")
        XCTAssertTrue(try verifies(signed.approval, signed.digest))
        XCTAssertEqual(try state(signed.id), "COMPLETE")
        let answer = try await direct.call("GET", "v3/rp/session/\(signed.id)", nil, apiKey: rpKey)
        XCTAssertEqual(
            answer["signature"] as? String,
            WireFormat.hex(Scalar.encode(signed.approval.r) + Scalar.encode(signed.approval.s)),
            "the relying party has the very signature the device returned")
        try assertNothingLocked(signed.id)
        try await assertNextSigningWorks()
    }

    /// The answer to finish is held past the device's timeout (a stalled link): the device
    /// gives up on that try, resends, and finds the session COMPLETE.
    func testAFinishAnswerThatTimesOutIsResent() async throws {
        proxy.inject(.dropAnswer(before: { usleep(4_000_000) }), whenPathContains: "/sign/finish")
        let (id, digest) = try await newSession("finish times out")
        let impatient = ThresholdClient(
            server: proxy.url, transport: HTTPTransport(timeout: 2), attestation: device,
            retry: RetryPolicy(attempts: 4, firstDelay: 0.05))
        let started = Date()
        let approval = try await impatient.approveSession(
            sessionID: id, digest: digest, share: share.publicShare, token: registration.deviceToken,
            guard: guardian
        ) { self.share.secretKey }
        XCTAssertLessThan(Date().timeIntervalSince(started), 4, "the device did not wait for the stalled answer")
        XCTAssertNil(approval.notDelivered)
        XCTAssertTrue(try verifies(approval, digest))
        XCTAssertEqual(try state(id), "COMPLETE")
        try assertNothingLocked(id)
    }

    func testAFinishAnswered502OnceIsResent() async throws {
        proxy.inject(.answer(status: 502), whenPathContains: "/sign/finish")
        let signed = try await approve("finish 502")
        XCTAssertNil(signed.approval.notDelivered)
        XCTAssertEqual(try state(signed.id), "COMPLETE")
        try assertNothingLocked(signed.id)
    }

    /// The database fails the COMPLETE write (a statement timeout, a cancelled query, a
    /// read-only failover; here a SQLite trigger that refuses it): the service's failure, not
    /// the device's, so nothing locks, the session stays PROVED, and the same finish sent once
    /// the database works again completes it. (Before the fix any error but "unavailable" at
    /// finish locked the key, as if the signature had been wrong.)
    func testADatabaseErrorAtFinishLocksNothingAndTheFinishCanBeSentAgain() async throws {
        try service.store.database.executeScript(
            """
            CREATE TRIGGER refuse_complete BEFORE UPDATE OF state ON sessions WHEN NEW.state = 'COMPLETE'
            BEGIN SELECT RAISE(ABORT, 'injected failure'); END;
            """)
        let (id, digest) = try await newSession("database fails at finish")
        let client = ThresholdClient(
            server: URL(string: "http://127.0.0.1:\(server.port)")!, attestation: device,
            retry: RetryPolicy(attempts: 2, firstDelay: 0.05))
        let approval = try await client.approveSession(
            sessionID: id, digest: digest, share: share.publicShare, token: registration.deviceToken,
            guard: guardian
        ) { self.share.secretKey }
        XCTAssertNotNil(approval.notDelivered, "the co-signer could not record it")
        XCTAssertTrue(try verifies(approval, digest))
        XCTAssertEqual(try state(id), "PROVED")
        XCTAssertEqual(try service.store.loadKey(share.keyID)?.locked, false, "a database error locked the key")
        XCTAssertFalse(try guardian.isLocked())
        try service.store.database.executeScript("DROP TRIGGER refuse_complete")
        _ = try await direct.call(
            "POST", "v3/mobile/session/\(id)/sign/finish",
            ["message": WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: approval.signature))],
            token: registration.deviceToken)
        XCTAssertEqual(try state(id), "COMPLETE")
        try await assertNextSigningWorks()
    }

    /// No try gets through: the verified signature is still returned, marked not delivered
    /// (`approve` throws signatureNotDelivered for a relying party's session); nothing locks.
    func testAFinishThatNeverArrivesReturnsTheSignatureMarkedUndelivered() async throws {
        proxy.inject(.dropRequest, whenPathContains: "/sign/finish", times: 4)
        let signed = try await approve("finish never arrives")
        XCTAssertNotNil(signed.approval.notDelivered)
        XCTAssertTrue(try verifies(signed.approval, signed.digest))
        XCTAssertEqual(try state(signed.id), "PROVED")
        XCTAssertEqual(proxy.pendingFaults, 0, "four tries")
        try assertNothingLocked(signed.id)
        proxy.inject(.dropRequest, whenPathContains: "/sign/finish", times: 4)
        let (id, digest) = try await newSession("relying party, undelivered")
        // The first session stays open (one per key, held in the database, across restarts)
        // until its deadline: move the deadline to move on quickly.
        try service.store.database.execute(
            "UPDATE sessions SET open_until = ? WHERE id = ?", [.integer(CoSignerStore.now() - 1), .text(signed.id)])
        do {
            _ = try await lossy.approve(
                sessionID: id, digest: digest, share: share.publicShare, token: registration.deviceToken,
                guard: guardian
            ) { self.share.secretKey }
            XCTFail("approve returned a signature the relying party never got")
        } catch ThresholdError.signatureNotDelivered(let why) {
            XCTAssertTrue(why.contains("finish"), why)
        }
        try assertNothingLocked(id)
    }

    /// The one failure that still locks, unchanged: a c3 changed on the wire fails the device's
    /// own checks, so the device locks its share (before decrypting) and reports crypto_fail,
    /// which locks the key on the co-signer.
    func testATamperedC3StillLocksBothSides() async throws {
        proxy.inject(
            .rewriteAnswer { answer in
                var bytes = answer
                let marker = Array("\"c3\":\"".utf8)
                guard
                    let start = (0...(bytes.count - marker.count)).first(where: {
                        bytes[$0..<$0 + marker.count].elementsEqual(marker)
                    })
                else { return bytes }
                let digit = start + marker.count + 200
                bytes[digit] = bytes[digit] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
                return bytes
            }, whenPathContains: "/sign/prove")
        let (id, digest) = try await newSession("tampered")
        do {
            _ = try await lossy.approveSession(
                sessionID: id, digest: digest, share: share.publicShare, token: registration.deviceToken,
                guard: guardian
            ) { self.share.secretKey }
            XCTFail("signed with a tampered c3")
        } catch let error as ThresholdError {
            XCTAssertNotEqual(
                error.code, ThresholdError.sessionAbandoned("").code,
                "a c3 that arrived and failed is not a lost packet")
        }
        XCTAssertEqual(proxy.log.filter { $0.path.contains("/sign/prove") }.map(\.fault), ["rewriteAnswer"])
        XCTAssertTrue(try guardian.isLocked(), "the device's share is locked")
        XCTAssertEqual(try state(id), "FAILED")
        XCTAssertEqual(
            try service.store.loadKey(share.keyID)?.locked, true, "crypto_fail locked the key on the co-signer")
    }

    // MARK: restarts and expiry

    /// The co-signer restarts after its c3 left and before the device's abandon: the abandon
    /// reaches the new process, the session ends unlocked, the next signing works.
    func testACoSignerRestartAfterProveDoesNotLock() async throws {
        let restarter = RestartHook(self)
        proxy.inject(.dropAnswer(before: { restarter.restart() }), whenPathContains: "/sign/prove")
        let id = try await approveAbandoned("restart after prove")
        XCTAssertNil(restarter.failure)
        XCTAssertEqual(try state(id), "ABANDONED")
        try assertNothingLocked(id)
        try await assertNextSigningWorks()
    }

    /// Worst case: the c3 is lost, the co-signer restarts, and every abandon is lost too. The
    /// session stays PROVED until it expires; then it ends EXPIRED at the key's next commit,
    /// without locking (before the fix: 423, the key locked).
    func testAProvedSessionThatExpiresDoesNotLockTheKey() async throws {
        let restarter = RestartHook(self)
        proxy.inject(.dropAnswer(before: { restarter.restart() }), whenPathContains: "/sign/prove")
        proxy.inject(.dropRequest, whenPathContains: "/sign/abandon", times: 4)
        let id = try await approveAbandoned("restart, abandon lost")
        XCTAssertEqual(try state(id), "PROVED")
        // The restart did not end the session (its state is in the database): it ends at its deadline.
        try service.store.database.execute(
            "UPDATE sessions SET expires_at = ?, open_until = ? WHERE id = ?",
            [.integer(CoSignerStore.now() - 10_000), .integer(CoSignerStore.now() - 10_000), .text(id)])
        try await assertNextSigningWorks()
        XCTAssertEqual(try state(id), "EXPIRED")
        XCTAssertTrue(
            try service.store.activity(documentNumber: "38001085718").contains { $0.event == "session-expired" })
        try assertNothingLocked(id)
    }

    /// The same without a restart: the party's own PROVED session past its deadline ends too.
    func testAPartySessionLeftProvedExpiresUnlocked() async throws {
        server.stop()
        try start(partyLifetime: 2)
        proxy.retarget(server.port)
        proxy.inject(.dropAnswer(), whenPathContains: "/sign/prove")
        proxy.inject(.dropRequest, whenPathContains: "/sign/abandon", times: 4)
        let id = try await approveAbandoned("abandon lost")
        XCTAssertEqual(try state(id), "PROVED")
        try await Task.sleep(nanoseconds: 2_500_000_000)
        // The deadlines in the past outright: they are whole seconds, and "open past its deadline"
        // is a strict comparison, so 2.5 s after a commit is not always past a 2 s lifetime
        // (a commit at x.0–x.4 s has open_until x+2, and x+2.5…x+2.9 still reads as x+2).
        try service.store.database.execute(
            "UPDATE sessions SET expires_at = ?, open_until = ? WHERE id = ?",
            [.integer(CoSignerStore.now() - 10_000), .integer(CoSignerStore.now() - 10_000), .text(id)])
        try await assertNextSigningWorks()
        XCTAssertEqual(try state(id), "EXPIRED")
        try assertNothingLocked(id)
    }
}

/// Restarts the test's co-signer from the proxy's thread, between a dropped answer and the
/// client's next request.
// unchecked: `failure` is written once, on the proxy's thread, before the client goes on
final class RestartHook: @unchecked Sendable {
    private let test: LostPacketTests
    private(set) var failure: Error?
    init(_ test: LostPacketTests) { self.test = test }
    func restart() {
        do { try test.restart() } catch { failure = error }
    }
}

/// The sessions table learns ABANDONED by a rebuild (SQLite cannot change a CHECK): an existing
/// database keeps its sessions and takes the new state.
final class AbandonedStateMigrationTests: XCTestCase {
    func testAnExistingDatabaseKeepsItsSessionsAndAcceptsAbandoned() throws {
        let folder = try TestEnvironment.temporaryFolder("abandon-migration")
        defer { TestEnvironment.removeFolder(folder) }
        let path = folder.appendingPathComponent("cosigner.db").path
        let rebuild = try XCTUnwrap(CoSignerStore.migrations.firstIndex { $0.sqlite.contains("sessions_new") })
        do {
            let old = try Database(path: path, migrations: Array(CoSignerStore.migrations.prefix(rebuild)))
            try old.execute(
                "INSERT INTO keys (key_id, document_number, role, share, public_key, created_at) VALUES ('k', 'd', 'sign', x'00', x'00', 1)"
            )
            try old.execute(
                """
                INSERT INTO sessions (id, key_id, kind, digest, rp_name, display_text, state, created_at, expires_at, signature, rp_challenge)
                VALUES ('s', 'k', 'AUTH', x'01', 'rp', 'text', 'PROVED', 2, 3, x'02', x'03')
                """)
            XCTAssertThrowsError(
                try old.execute("UPDATE sessions SET state = 'ABANDONED' WHERE id = 's'"), "the old CHECK refuses it")
        }
        let store = try CoSignerStore(path: path, serverKey: [UInt8](repeating: 1, count: 32))
        XCTAssertEqual(
            try store.database.query(
                "SELECT id, key_id, kind, digest, rp_name, display_text, state, created_at, expires_at, signature, rp_challenge FROM sessions"
            ),
            [
                [
                    .text("s"), .text("k"), .text("AUTH"), .blob([1]), .text("rp"), .text("text"), .text("PROVED"),
                    .integer(2), .integer(3), .blob([2]), .blob([3]),
                ]
            ])
        XCTAssertEqual(try store.database.execute("UPDATE sessions SET state = 'ABANDONED' WHERE id = 's'"), 1)
        XCTAssertThrowsError(
            try store.database.execute("UPDATE sessions SET state = 'LOST' WHERE id = 's'"), "still checked")
        XCTAssertEqual(try store.database.query("PRAGMA integrity_check").first?.first?.text, "ok")
        XCTAssertEqual(
            try store.database.query(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'sessions_by_key'"
            ).first?.first, .integer(1))
    }
}
