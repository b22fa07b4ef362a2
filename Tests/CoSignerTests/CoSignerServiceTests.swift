import CoSigner
import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

/// The co-signer's HTTP API on loopback with a real SQLite file: enrollment with a one-time
/// code, a relying party's SIGN session, the device's commit → prove → finish, hostile requests.
final class CoSignerServiceTests: XCTestCase {
    var folder: URL!
    var server: HTTPServer!
    var service: CoSignerService!
    var base: String { "http://127.0.0.1:\(server.port)" }
    let transport = HTTPTransport(timeout: 10)

    override func setUpWithError() throws {
        folder = try TestEnvironment.temporaryFolder("cosigner")
        let store = try CoSignerStore(path: folder.appendingPathComponent("cosigner.db").path, serverKey: [UInt8](repeating: 3, count: 32))
        service = CoSignerService(store: store, party: try ServerParty(pid: Transcript.taggedHash("svc", [[1]]), ringPedersen: CoSignerStoreTests.ringPedersen))
        let handler = service!
        server = try HTTPServer { handler.handle($0) }
    }
    override func tearDown() {
        server.stop()
        TestEnvironment.removeFolder(folder)
    }

    /// POSTs/GETs JSON; returns (status, object).
    func call(_ method: String, _ path: String, _ body: [String: Any]? = nil, token: String? = nil) async throws -> (Int, [String: Any]) {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        var headers = ["Content-Type": "application/json", "Accept": "application/json"]
        headers["X-Device-Token"] = token
        do {
            let answer = try await transport.request(method: method, url: URL(string: base + path)!, body: data, headers: headers, service: "co-signer")
            return (200, (try JSONSerialization.jsonObject(with: answer) as? [String: Any]) ?? [:])
        } catch CoreError.serviceHTTPStatus(_, _, let status) {
            return (status, [:])
        }
    }

    func message(_ object: WireFormat.Object, _ lists: WireFormat.Lists = [:]) -> [String: Any] {
        var combined: [String: Any] = object
        for (key, value) in lists { combined[key] = value }
        return combined
    }

    func enroll(document: String) async throws -> (ClientKeyShare, String) {
        let code = try service.store.issueEnrollmentCode(documentNumber: document)
        let client = try ClientEnrollment(pid: Transcript.taggedHash("device", [Array(document.utf8)]))
        let (s1, r1) = try await call("POST", "/v3/enrollment/init", ["code": code, "role": "sign", "message": WireFormat.encode(client.initRequest)])
        XCTAssertEqual(s1, 200)
        let m1 = try XCTUnwrap(r1["message"] as? [String: Any])
        let initResponse = try WireFormat.decodeEnrollInitResponse(m1.compactMapValues { $0 as? String }, m1.compactMapValues { $0 as? [String] })
        let (o2, l2) = try WireFormat.encode(client.complete(initResponse))
        let (s2, r2) = try await call("POST", "/v3/enrollment/complete", ["code": code, "role": "sign", "clientNonce": WireFormat.hex(client.initRequest.clientNonce),
                                                                           "deviceKey": "3059", "message": message(o2, l2)])
        XCTAssertEqual(s2, 200)
        let share = try client.finish(WireFormat.decodeEnrollCompleteResponse(XCTUnwrap(r2["message"] as? [String: String])))
        return (share, try XCTUnwrap(r2["deviceToken"] as? String))
    }

    func testEnrollThenARelyingPartySessionIsSignedByTheDevice() async throws {
        let (share, token) = try await enroll(document: "38001085718")
        let digest = Array(Digest.compute(.sha256, over: Data("contract".utf8)).bytes)
        let (status, created) = try await call("POST", "/v3/rp/session", ["keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest),
                                                                          "rpName": "Test Bank", "displayText": "Sign the contract"])
        XCTAssertEqual(status, 200)
        let sessionID = try XCTUnwrap(created["sessionID"] as? String)
        let (_, pending) = try await call("GET", "/v3/mobile/pending/38001085718", token: token)
        XCTAssertEqual((pending["sessions"] as? [[String: Any]])?.first?["id"] as? String, sessionID)
        XCTAssertEqual((pending["sessions"] as? [[String: Any]])?.first?["displayText"] as? String, "Sign the contract")

        let signing = try ClientSigning(share: share.publicShare, digest: digest, guard: MemoryGuardForService())
        let (_, c) = try await call("POST", "/v3/mobile/session/\(sessionID)/sign/commit", ["message": WireFormat.encode(signing.commitRequest)], token: token)
        let commitResponse = try WireFormat.decodeSignCommitResponse(XCTUnwrap(c["message"] as? [String: String]))
        let prove = try signing.prove(commitResponse)
        let (_, p) = try await call("POST", "/v3/mobile/session/\(sessionID)/sign/prove", ["message": WireFormat.encode(prove)], token: token)
        let signature = try signing.finish(WireFormat.decodeSignProveResponse(XCTUnwrap(p["message"] as? [String: String])), secretKey: share.secretKey)
        let (sf, _) = try await call("POST", "/v3/mobile/session/\(sessionID)/sign/finish", ["message": WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: signature))], token: token)
        XCTAssertEqual(sf, 200)
        let (_, result) = try await call("GET", "/v3/rp/session/\(sessionID)")
        XCTAssertEqual(result["state"] as? String, "COMPLETE")
        let raw = try XCTUnwrap(BigInt(hex: XCTUnwrap(result["signature"] as? String))?.bytes(width: 64))
        XCTAssertTrue(TwoPartySigning.verify(r: BigInt(bytes: raw[0..<32]), s: BigInt(bytes: raw[32...]),
                                             digest: try Digest(algorithm: .sha256, bytes: Data(digest)), publicKey: share.publicKey))
        // The same commit again: the session has moved on.
        let (again, _) = try await call("POST", "/v3/mobile/session/\(sessionID)/sign/commit", ["message": WireFormat.encode(signing.commitRequest)], token: token)
        XCTAssertEqual(again, 409)
    }

    func testHostileRequestsGet4xxAndChangeNothing() async throws {
        let (share, token) = try await enroll(document: "49001010000")
        let (_, other) = try await enroll(document: "50001010000")
        let digest = [UInt8](repeating: 1, count: 32)
        let (_, created) = try await call("POST", "/v3/rp/session", ["keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest), "rpName": "x", "displayText": "y"])
        let sessionID = try XCTUnwrap(created["sessionID"] as? String)
        let signing = try ClientSigning(share: share.publicShare, digest: digest, guard: MemoryGuardForService())
        let commit = ["message": WireFormat.encode(signing.commitRequest)]
        let status1 = try await call("POST", "/v3/mobile/session/\(sessionID)/sign/commit", commit).0
        XCTAssertEqual(status1, 403, "no device token")
        let status2 = try await call("POST", "/v3/mobile/session/\(sessionID)/sign/commit", commit, token: String(repeating: "0", count: 64)).0
        XCTAssertEqual(status2, 403, "unknown token")
        let status3 = try await call("POST", "/v3/mobile/session/\(sessionID)/sign/commit", commit, token: other).0
        XCTAssertEqual(status3, 403, "another device's session")
        let status4 = try await call("GET", "/v3/mobile/pending/49001010000", token: other).0
        XCTAssertEqual(status4, 403)
        let status5 = try await call("POST", "/v3/mobile/session/\(sessionID)/sign/prove", ["message": [:]], token: token).0
        XCTAssertEqual(status5, 409, "prove before commit")
        let status6 = try await call("POST", "/v3/enrollment/init", ["code": "WRONGCODE000", "role": "sign", "message": [:]]).0
        XCTAssertEqual(status6, 403)
        let status7 = try await call("POST", "/v3/rp/session", ["keyID": "zz"]).0
        XCTAssertEqual(status7, 400)
        let status8 = try await call("GET", "/v3/nowhere").0
        XCTAssertEqual(status8, 404)
        // Malformed JSON body.
        do {
            _ = try await transport.request(method: "POST", url: URL(string: base + "/v3/rp/session")!, body: Data("{not json".utf8), headers: [:], service: "t")
            XCTFail("accepted")
        } catch CoreError.serviceHTTPStatus(_, _, let status) { XCTAssertEqual(status, 400) }
        // Nothing moved: the session is still pending and the key unlocked.
        XCTAssertEqual(try service.store.database.query("SELECT state FROM sessions WHERE id = ?", [.text(sessionID)]).first?.first?.text, "PENDING")
        XCTAssertEqual(try service.store.loadKey(share.keyID)?.locked, false)
    }
}

final class MemoryGuardForService: ShareGuard, @unchecked Sendable {   // unchecked: `mutex` guards `state`
    private let mutex = NSLock()
    private var state = "ready"
    func isLocked() throws -> Bool { mutex.withLock { state != "ready" } }
    func markInFlight() throws { try mutex.withLock { guard state == "ready" else { throw ThresholdError.shareLocked }; state = "in-flight" } }
    func clearInFlight() throws { try mutex.withLock { guard state == "in-flight" else { throw ThresholdError.shareLocked }; state = "ready" } }
    func lock() throws { mutex.withLock { state = "locked" } }
    func reset() throws { mutex.withLock { state = "ready" } }
}

/// Restarts between the signing steps and concurrent steps on one session.
final class CoSignerRestartTests: XCTestCase {
    func testRestartsBetweenStepsEndSessionsInADefinedStateAndLoseNoKey() async throws {
        let folder = try TestEnvironment.temporaryFolder("restart")
        defer { TestEnvironment.removeFolder(folder) }
        let path = folder.appendingPathComponent("cosigner.db").path
        let key = [UInt8](repeating: 4, count: 32)
        func start() throws -> (CoSignerService, HTTPServer) {
            let store = try CoSignerStore(path: path, serverKey: key)
            let identity = try store.serverIdentity()
            let service = CoSignerService(store: store, party: try ServerParty(pid: identity.pid, ringPedersen: identity.ringPedersen))
            return (service, try HTTPServer { service.handle($0) })
        }
        var (service, server) = try start()
        let keyStore = try ShareKeyStore(account: "r", root: folder.appendingPathComponent("device"))
        let code = try service.store.issueEnrollmentCode(documentNumber: "r1")
        let client = { ThresholdClient(server: URL(string: "http://127.0.0.1:\(server.port)")!) }
        let (share, registration) = try await enrollOverHTTP(client(), code: code, document: "r1")
        _ = keyStore
        func newSession() async throws -> String {
            let answer = try await client().call("POST", "v3/rp/session", ["keyID": WireFormat.hex(share.keyID), "digest": String(repeating: "ab", count: 32),
                                                                            "rpName": "rp", "displayText": "t"])
            return try XCTUnwrap(answer["sessionID"] as? String)
        }
        func state(_ id: String) throws -> String? { try service.store.database.query("SELECT state FROM sessions WHERE id = ?", [.text(id)]).first?.first?.text }

        // Restart between commit and prove: prove fails, the session is FAILED, the key works.
        let first = try await newSession()
        let signing = try ClientSigning(share: share.publicShare, digest: [UInt8](repeating: 0xAB, count: 32), guard: MemoryGuardForService())
        let commit = try await client().call("POST", "v3/mobile/session/\(first)/sign/commit", ["message": WireFormat.encode(signing.commitRequest)], token: registration.deviceToken)
        let prove = try signing.prove(WireFormat.decodeSignCommitResponse(XCTUnwrap(commit["message"] as? [String: String])))
        server.stop()
        (service, server) = try start()
        do {
            _ = try await client().call("POST", "v3/mobile/session/\(first)/sign/prove", ["message": WireFormat.encode(prove)], token: registration.deviceToken)
            XCTFail("a prove after a restart cannot have a c3")
        } catch CoreError.serviceHTTPStatus(_, _, let status) { XCTAssertEqual(status, 422) }
        XCTAssertEqual(try state(first), "FAILED")
        XCTAssertEqual(try service.store.loadKey(share.keyID)?.locked, false)

        // Restart between prove and finish: the signature is still checked under the key; COMPLETE.
        let second = try await newSession()
        let signing2 = try ClientSigning(share: share.publicShare, digest: [UInt8](repeating: 0xAB, count: 32), guard: MemoryGuardForService())
        let commit2 = try await client().call("POST", "v3/mobile/session/\(second)/sign/commit", ["message": WireFormat.encode(signing2.commitRequest)], token: registration.deviceToken)
        let prove2 = try signing2.prove(WireFormat.decodeSignCommitResponse(XCTUnwrap(commit2["message"] as? [String: String])))
        let proved = try await client().call("POST", "v3/mobile/session/\(second)/sign/prove", ["message": WireFormat.encode(prove2)], token: registration.deviceToken)
        let signature = try signing2.finish(WireFormat.decodeSignProveResponse(XCTUnwrap(proved["message"] as? [String: String])), secretKey: share.secretKey)
        server.stop()
        (service, server) = try start()
        _ = try await client().call("POST", "v3/mobile/session/\(second)/sign/finish", ["message": WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: signature))],
                                    token: registration.deviceToken)
        XCTAssertEqual(try state(second), "COMPLETE")

        // Two proves at once on one session: exactly one gets a c3.
        let third = try await newSession()
        let signing3 = try ClientSigning(share: share.publicShare, digest: [UInt8](repeating: 0xAB, count: 32), guard: MemoryGuardForService())
        let commit3 = try await client().call("POST", "v3/mobile/session/\(third)/sign/commit", ["message": WireFormat.encode(signing3.commitRequest)], token: registration.deviceToken)
        let prove3 = WireFormat.encode(try signing3.prove(WireFormat.decodeSignCommitResponse(XCTUnwrap(commit3["message"] as? [String: String]))))
        let base = client()
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask { (try? await base.call("POST", "v3/mobile/session/\(third)/sign/prove", ["message": prove3], token: registration.deviceToken)) != nil }
            }
            var results: [Bool] = []
            for await result in group { results.append(result) }
            return results
        }
        XCTAssertEqual(outcomes.filter { $0 }.count, 1, "\(outcomes)")
        server.stop()
    }

}

/// Load on loopback: 8 devices with a key each sign concurrently; every signature verifies,
/// none is lost, no error, in bounded time.
final class CoSignerLoadTests: XCTestCase {
    func testEightClientsFiveHundredSignatures() async throws {
        let folder = try TestEnvironment.temporaryFolder("load")
        defer { TestEnvironment.removeFolder(folder) }
        let store = try CoSignerStore(path: folder.appendingPathComponent("cosigner.db").path, serverKey: [UInt8](repeating: 6, count: 32))
        let identity = try store.serverIdentity()
        let service = CoSignerService(store: store, party: try ServerParty(pid: identity.pid, ringPedersen: identity.ringPedersen))
        let server = try HTTPServer(threads: 8) { service.handle($0) }
        defer { server.stop() }
        let client = ThresholdClient(server: URL(string: "http://127.0.0.1:\(server.port)")!)
        var devices: [(ClientKeyShare, ThresholdClient.Registration)] = []
        for index in 0..<8 {
            devices.append(try await enrollOverHTTP(client, code: store.issueEnrollmentCode(documentNumber: "doc\(index)"), document: "doc\(index)"))
        }
        let total = Int(ProcessInfo.processInfo.environment["TAMGA_LOAD_SIGNATURES"] ?? "") ?? 500
        let start = Date()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, device) in devices.enumerated() {
                let count = total / 8 + (index < total % 8 ? 1 : 0)
                group.addTask {
                    var verified = 0
                    for n in 0..<count {
                        let digest = Array(Digest.compute(.sha256, over: Data("load \(index) \(n)".utf8)).bytes)
                        let session = try await client.call("POST", "v3/rp/session", ["keyID": WireFormat.hex(device.0.keyID), "digest": WireFormat.hex(digest),
                                                                                      "rpName": "load", "displayText": "\(n)"])
                        let id = session["sessionID"] as? String ?? ""
                        let signature = try await client.approve(sessionID: id, digest: digest, share: device.0.publicShare, token: device.1.deviceToken,
                                                                 guard: MemoryGuardForService()) { device.0.secretKey }
                        if TwoPartySigning.verify(r: signature.r, s: signature.s, digest: try Digest(algorithm: .sha256, bytes: Data(digest)), publicKey: device.0.publicKey) {
                            verified += 1
                        }
                    }
                    return verified
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = Date().timeIntervalSince(start)
        XCTAssertEqual(results, total, "every signature verifies, none lost")
        XCTAssertEqual(try store.database.query("SELECT count(*) FROM sessions WHERE state = 'COMPLETE'").first?.first, .integer(Int64(total)))
        XCTAssertLessThan(elapsed, 300, "bounded: \(elapsed) s for \(total) signatures")
    }
}


/// Enrollment over HTTP without a CA (these services have none): the share and a registration.
func enrollOverHTTP(_ client: ThresholdClient, code: String, document: String) async throws -> (ClientKeyShare, ThresholdClient.Registration) {
    let enrollment = try ClientEnrollment(pid: Transcript.taggedHash("test-device", [Array(document.utf8)]))
    let first = try await client.call("POST", "v3/enrollment/init", ["code": code, "role": "sign", "message": WireFormat.encode(enrollment.initRequest)])
    let m1 = first["message"] as? [String: Any] ?? [:]
    let (o2, l2) = try WireFormat.encode(enrollment.complete(WireFormat.decodeEnrollInitResponse(m1.compactMapValues { $0 as? String }, m1.compactMapValues { $0 as? [String] })))
    var message: [String: Any] = o2
    for (key, value) in l2 { message[key] = value }
    let second = try await client.call("POST", "v3/enrollment/complete", ["code": code, "role": "sign", "clientNonce": WireFormat.hex(enrollment.initRequest.clientNonce),
                                                                          "deviceKey": "00", "message": message])
    let share = try enrollment.finish(WireFormat.decodeEnrollCompleteResponse((second["message"] as? [String: String]) ?? [:]))
    return (share, ThresholdClient.Registration(server: client.server.absoluteString, documentNumber: document,
                                                deviceToken: second["deviceToken"] as? String ?? "", ringPedersenPin: ""))
}
