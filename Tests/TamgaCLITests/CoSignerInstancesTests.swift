import CoSigner
import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

/// Several `tamga cosigner serve` processes on one database, on different ports: one SQLite
/// file (WAL lets processes on one machine share it) here, one PostgreSQL database in
/// `CoSignerInstancesPostgreSQLTests`. Every piece of a session's state is in the database, so
/// any instance answers any step, a restart ends nothing, and the compare-and-set state moves
/// make each nonce share serve at most one c3 across all of them.
class CoSignerInstancesTests: XCTestCase {
    /// Whether the instances share a PostgreSQL database (the subclass) instead of a SQLite file.
    class var onPostgreSQL: Bool { false }
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    private var folder: URL!
    private var processes: [Process] = []
    /// The SQLite file or the PostgreSQL URI, and the server key every instance is given.
    private var database = ""
    private var serverKeyFile: String { folder.appendingPathComponent("server.key").path }
    private var device: DeviceAttestation!
    private var rpKey = ""

    override func setUpWithError() throws {
        folder = try TestEnvironment.temporaryFolder("cosigner-instances")
        database =
            Self.onPostgreSQL
            ? try PostgreSQLRig.shared.newDatabase() : folder.appendingPathComponent("cosigner.db").path
        device = DeviceAttestation(key: try DeviceKey(file: folder.appendingPathComponent("device.key").path))
    }

    override func tearDown() {
        for process in processes { TestEnvironment.terminate(process) }
        TestEnvironment.removeFolder(folder)
    }

    /// One more instance on the shared database; the first makes the database and the server
    /// identity, so the others start after it.
    private func serve() throws -> (process: Process, client: ThresholdClient) {
        let (process, url) = try TestEnvironment.startListening(
            executable: binary, ["cosigner", "serve", "--db", database, "--key", serverKeyFile])
        processes.append(process)
        return (process, ThresholdClient(server: url, attestation: device))
    }

    private func cli(_ arguments: [String]) throws -> String {
        let result = try TestEnvironment.run(binary, arguments + ["--db", database, "--key", serverKeyFile])
        XCTAssertEqual(result.status, 0, result.error)
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// enroll/init on `first`, enroll/complete on `second`: the pending enrollment is in the database.
    private func enroll(
        init first: ThresholdClient, complete second: ThresholdClient, document: String
    ) async throws -> (ClientKeyShare, String) {
        let code = try cli(["cosigner", "issue-code", document])
        let enrollment = try ClientEnrollment(pid: Transcript.taggedHash("device", [Array(document.utf8)]))
        let answer = try await first.call(
            "POST", "v3/enrollment/init",
            ["code": code, "role": "sign", "message": WireFormat.encode(enrollment.initRequest)])
        let m1 = try XCTUnwrap(answer["message"] as? [String: Any])
        let response = try WireFormat.decodeEnrollInitResponse(
            m1.compactMapValues { $0 as? String }, m1.compactMapValues { $0 as? [String] })
        let (object, lists) = try WireFormat.encode(enrollment.complete(response))
        var message: [String: Any] = object
        for (key, value) in lists { message[key] = value }
        let second = try await second.call(
            "POST", "v3/enrollment/complete",
            [
                "code": code, "role": "sign", "clientNonce": WireFormat.hex(enrollment.initRequest.clientNonce),
                "deviceKey": WireFormat.hex(Array(device.key.subjectPublicKeyInfo)), "message": message,
            ])
        let share = try enrollment.finish(
            WireFormat.decodeEnrollCompleteResponse(XCTUnwrap(second["message"] as? [String: String])))
        return (share, try XCTUnwrap(second["deviceToken"] as? String))
    }

    private func newSession(_ client: ThresholdClient, key: [UInt8], digest: [UInt8]) async throws -> String {
        let answer = try await client.call(
            "POST", "v3/rp/session",
            ["keyID": WireFormat.hex(key), "digest": WireFormat.hex(digest), "displayText": "t"], apiKey: rpKey)
        return try XCTUnwrap(answer["sessionID"] as? String)
    }

    private func step(
        _ client: ThresholdClient, _ id: String, _ step: String, _ message: [String: String], token: String
    ) async throws -> [String: String] {
        let answer = try await client.call(
            "POST", "v3/mobile/session/\(id)/sign/\(step)", ["message": message], token: token)
        return (answer["message"] as? [String: String]) ?? [:]
    }

    private func state(_ id: String) throws -> String? {
        try CoSignerStore(url: database, serverKey: Array(try TestEnvironment.bytes(serverKeyFile))).database
            .query("SELECT state FROM sessions WHERE id = ?", [.text(id)]).first?.first?.text
    }

    private static func verifies(
        _ signature: (r: BigInt, s: BigInt), _ digest: [UInt8], _ share: ClientKeyShare
    ) throws -> Bool {
        TwoPartySigning.verify(
            r: signature.r, s: signature.s, digest: try Digest(algorithm: .sha256, bytes: Data(digest)),
            publicKey: share.publicKey)
    }

    /// Enroll across two instances; commit on A, prove on B, finish on C; then commit on A,
    /// `kill -9` A and start it again, prove on the new A and finish on B.
    func testEveryStepOnAnotherInstanceAndAcrossARestart() async throws {
        var a = try serve()
        let b = try serve(), c = try serve()
        rpKey = try cli(["cosigner", "add-rp", "rp"])
        let (share, token) = try await enroll(init: a.client, complete: b.client, document: "38001085718")

        let digest = Array(Digest.compute(.sha256, over: Data("three instances".utf8)).bytes)
        let id = try await newSession(c.client, key: share.keyID, digest: digest)
        let signing = try ClientSigning(share: share.publicShare, digest: digest, guard: InstancesShareGuard())
        let committed = try await step(a.client, id, "commit", WireFormat.encode(signing.commitRequest), token: token)
        let prove = try signing.prove(WireFormat.decodeSignCommitResponse(committed))
        let proved = try await step(b.client, id, "prove", WireFormat.encode(prove), token: token)
        let signature = try signing.finish(WireFormat.decodeSignProveResponse(proved), secretKey: share.secretKey)
        _ = try await step(
            c.client, id, "finish", WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: signature)),
            token: token)
        XCTAssertTrue(try Self.verifies(signature, digest, share))
        XCTAssertEqual(try state(id), "COMPLETE")

        let digest2 = Array(Digest.compute(.sha256, over: Data("across a restart".utf8)).bytes)
        let id2 = try await newSession(a.client, key: share.keyID, digest: digest2)
        let signing2 = try ClientSigning(share: share.publicShare, digest: digest2, guard: InstancesShareGuard())
        let committed2 = try await step(
            a.client, id2, "commit", WireFormat.encode(signing2.commitRequest), token: token)
        kill(a.process.processIdentifier, SIGKILL)
        TestEnvironment.terminate(a.process)
        a = try serve()
        let proved2 = try await step(
            a.client, id2, "prove", WireFormat.encode(signing2.prove(WireFormat.decodeSignCommitResponse(committed2))),
            token: token)
        let signature2 = try signing2.finish(WireFormat.decodeSignProveResponse(proved2), secretKey: share.secretKey)
        _ = try await step(
            b.client, id2, "finish", WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: signature2)),
            token: token)
        XCTAssertTrue(try Self.verifies(signature2, digest2, share))
        XCTAssertEqual(try state(id2), "COMPLETE")
    }

    /// The same prove sent to two instances at the same moment, 50 times: each time exactly one
    /// c3 and one 409, every signature verifies, and no two share an r (no nonce used twice).
    func testTheSameProveToTwoInstancesAtOnceGetsOneAnswer() async throws {
        let a = try serve(), b = try serve()
        rpKey = try cli(["cosigner", "add-rp", "rp"])
        let (share, token) = try await enroll(init: a.client, complete: a.client, document: "38001085718")
        var rValues = Set<[UInt8]>()
        for round in 0..<50 {
            let digest = Array(Digest.compute(.sha256, over: Data("round \(round)".utf8)).bytes)
            let id = try await newSession(a.client, key: share.keyID, digest: digest)
            let signing = try ClientSigning(share: share.publicShare, digest: digest, guard: InstancesShareGuard())
            let prove = WireFormat.encode(
                try signing.prove(
                    WireFormat.decodeSignCommitResponse(
                        try await step(
                            round % 2 == 0 ? a.client : b.client, id, "commit",
                            WireFormat.encode(signing.commitRequest), token: token))))
            async let first = Self.attempt(a.client, id, "prove", prove, token: token)
            async let second = Self.attempt(b.client, id, "prove", prove, token: token)
            let outcomes = await [first, second]
            let answers = outcomes.compactMap { $0.answer }
            XCTAssertEqual(answers.count, 1, "round \(round): \(outcomes.map { $0.refusal.map { "\($0)" } ?? "c3" })")
            XCTAssertEqual(outcomes.compactMap { $0.refusal?.0 }, [409], "round \(round)")
            guard let c3 = answers.first else { continue }
            let signature = try signing.finish(WireFormat.decodeSignProveResponse(c3), secretKey: share.secretKey)
            _ = try await step(
                round % 3 == 0 ? a.client : b.client, id, "finish",
                WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: signature)), token: token)
            XCTAssertTrue(try Self.verifies(signature, digest, share), "round \(round)")
            XCTAssertTrue(rValues.insert(Scalar.encode(signature.r)).inserted, "round \(round): r seen before")
        }
        XCTAssertEqual(rValues.count, 50)
    }

    /// One step sent on its own task: its answer, or the status and code it was refused with.
    private static func attempt(
        _ client: ThresholdClient, _ id: String, _ step: String, _ message: [String: String], token: String
    ) async
        -> (answer: [String: String]?, refusal: (Int, String)?)
    {
        do {
            let answer = try await client.call(
                "POST", "v3/mobile/session/\(id)/sign/\(step)", ["message": message], token: token)
            return ((answer["message"] as? [String: String]) ?? [:], nil)
        } catch CoreError.serviceRefused(_, _, let status, let code, _) {
            return (nil, (status, code))
        } catch {
            return (nil, (0, "\(error)"))
        }
    }

    /// Two sessions of one key committed on two instances at the same moment, 20 times: one
    /// opens, the other is refused (409), because "one open session per key" is a unique index.
    func testTwoInstancesCannotOpenTwoSessionsOfOneKey() async throws {
        let a = try serve(), b = try serve()
        rpKey = try cli(["cosigner", "add-rp", "rp"])
        let (share, token) = try await enroll(init: b.client, complete: a.client, document: "38001085718")
        for round in 0..<20 {
            let digests = (0..<2).map {
                Array(Digest.compute(.sha256, over: Data("round \(round) session \($0)".utf8)).bytes)
            }
            let ids = [
                try await newSession(a.client, key: share.keyID, digest: digests[0]),
                try await newSession(b.client, key: share.keyID, digest: digests[1]),
            ]
            let signings = try digests.map {
                try ClientSigning(share: share.publicShare, digest: $0, guard: InstancesShareGuard())
            }
            let commits = signings.map { WireFormat.encode($0.commitRequest) }
            async let first = Self.attempt(a.client, ids[0], "commit", commits[0], token: token)
            async let second = Self.attempt(b.client, ids[1], "commit", commits[1], token: token)
            let outcomes = await [first, second].map { $0.refusal }
            XCTAssertEqual(outcomes.filter { $0 == nil }.count, 1, "round \(round): \(outcomes)")
            XCTAssertEqual(outcomes.compactMap { $0?.0 }, [409], "round \(round): \(outcomes)")
            let states = try ids.map { try state($0) }
            XCTAssertEqual(states.filter { $0 == "COMMITTED" }.count, 1, "round \(round): \(states)")
            // Close the open one (declined): the refused commit recorded nothing, so sent again
            // it opens its session now; that one is declined too, and the next round starts clean.
            guard let open = ids.firstIndex(where: { (try? state($0)) == "COMMITTED" }) else { continue }
            _ = try await a.client.call("POST", "v3/mobile/session/\(ids[open])/sign/cancel", [:], token: token)
            _ = try await step(b.client, ids[1 - open], "commit", commits[1 - open], token: token)
            _ = try await b.client.call("POST", "v3/mobile/session/\(ids[1 - open])/sign/cancel", [:], token: token)
        }
    }
}

/// The same, with the instances on one PostgreSQL database (the shape of a deployment:
/// instances on several machines), where the compare-and-set moves meet real concurrency.
/// (Linux's test discovery lists only the methods a class declares itself, so each is named.)
final class CoSignerInstancesPostgreSQLTests: CoSignerInstancesTests {
    override class var onPostgreSQL: Bool { true }
    override func testEveryStepOnAnotherInstanceAndAcrossARestart() async throws {
        try await super.testEveryStepOnAnotherInstanceAndAcrossARestart()
    }
    override func testTheSameProveToTwoInstancesAtOnceGetsOneAnswer() async throws {
        try await super.testTheSameProveToTwoInstancesAtOnceGetsOneAnswer()
    }
    override func testTwoInstancesCannotOpenTwoSessionsOfOneKey() async throws {
        try await super.testTwoInstancesCannotOpenTwoSessionsOfOneKey()
    }
}

/// The device's share guard in memory (the test is about the server).
private struct InstancesShareGuard: ShareGuard {
    func isLocked() throws -> Bool { false }
    func markInFlight() throws {}
    func clearInFlight() throws {}
    func lock() throws {}
    func reset() throws {}
}
