import CoSigner
import Foundation
import HTTPService
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

/// A co-signer on loopback with a real SQLite file (or, in the PostgreSQL subclasses, a real
/// PostgreSQL database: `storeKind`), and devices that talk to it.
class CoSignerHTTPTestCase: XCTestCase {
    /// Which database the co-signer runs on; a subclass says `.postgresql` to run the same tests there.
    class var storeKind: TestStoreKind { .sqlite }
    var folder: URL!
    var server: HTTPServer!
    var service: CoSignerService!
    var base: String { "http://127.0.0.1:\(server.port)" }
    let transport = HTTPTransport(timeout: 10)

    override func setUpWithError() throws {
        folder = try TestEnvironment.temporaryFolder("cosigner")
        let store = try CoSignerStore(
            url: type(of: self).storeKind.newDatabase(in: folder), serverKey: [UInt8](repeating: 3, count: 32))
        service = CoSignerService(
            store: store,
            party: try ServerParty(
                pid: Transcript.taggedHash("svc", [[1]]), ringPedersen: CoSignerStoreTests.ringPedersen))
        rpKey = try store.addRelyingParty(name: "Test Bank")
        let handler = service!
        server = try HTTPServer { handler.handle($0) }
    }
    override func tearDown() {
        server?.stop()
        TestEnvironment.removeFolder(folder)
        // XCTest keeps every test case object until the run ends: let go of the store (and
        // with it its PostgreSQL connections) now.
        (server, service) = (nil, nil)
    }

    /// Each enrolled device's key, by its device token: calls with a token are attested by it.
    var devices: [String: DeviceAttestation] = [:]
    /// The API key of the relying party "Test Bank", sent on every /v3/rp/ call.
    var rpKey = ""

    /// POSTs/GETs JSON as the device owning `token` would (attested); returns (status, object).
    func call(
        _ method: String, _ path: String, _ body: [String: Any]? = nil, token: String? = nil
    ) async throws -> (Int, [String: Any]) {
        let client = ThresholdClient(
            server: URL(string: base)!, transport: transport, attestation: token.flatMap { devices[$0] })
        do {
            return (
                200,
                try await client.call(
                    method, String(path.dropFirst()), body, token: token,
                    apiKey: path.hasPrefix("/v3/rp/") ? rpKey : nil)
            )
        } catch CoreError.serviceHTTPStatus(_, _, let status) {
            return (status, [:])
        } catch CoreError.serviceRefused(_, _, let status, _, _) {
            return (status, [:])
        }
    }

    /// A device key in the test's folder.
    func newDevice() throws -> DeviceAttestation {
        DeviceAttestation(
            key: try DeviceKey(file: folder.appendingPathComponent("device-\(UUID().uuidString).key").path))
    }

    func message(_ object: WireFormat.Object, _ lists: WireFormat.Lists = [:]) -> [String: Any] {
        var combined: [String: Any] = object
        for (key, value) in lists { combined[key] = value }
        return combined
    }

    func enroll(document: String) async throws -> (ClientKeyShare, String) {
        let code = try service.store.issueEnrollmentCode(documentNumber: document)
        let device = try newDevice()
        let client = ThresholdClient(server: URL(string: base)!, transport: transport, attestation: device)
        let (share, registration) = try await client.enrollShare(
            code: code, role: .sign, clientPID: Transcript.taggedHash("device", [Array(document.utf8)]))
        XCTAssertEqual(registration.documentNumber, document)
        devices[registration.deviceToken] = device
        return (share, registration.deviceToken)
    }
}

/// The co-signer's HTTP API: enrollment with a one-time code, a relying party's SIGN session,
/// the device's commit → prove → finish, hostile requests.
class CoSignerServiceTests: CoSignerHTTPTestCase {
    func testEnrollThenARelyingPartySessionIsSignedByTheDevice() async throws {
        let (share, token) = try await enroll(document: "38001085718")
        let digest = Array(Digest.compute(.sha256, over: Data("contract".utf8)).bytes)
        let (status, created) = try await call(
            "POST", "/v3/rp/session",
            [
                "keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest),
                "rpName": "Test Bank", "displayText": "Sign the contract",
            ])
        XCTAssertEqual(status, 200)
        let sessionID = try XCTUnwrap(created["sessionID"] as? String)
        let (_, pending) = try await call("GET", "/v3/mobile/pending/38001085718", token: token)
        XCTAssertEqual((pending["sessions"] as? [[String: Any]])?.first?["id"] as? String, sessionID)
        XCTAssertEqual((pending["sessions"] as? [[String: Any]])?.first?["displayText"] as? String, "Sign the contract")

        let signing = try ClientSigning(share: share.publicShare, digest: digest, guard: MemoryGuardForService())
        let (_, c) = try await call(
            "POST", "/v3/mobile/session/\(sessionID)/sign/commit",
            ["message": WireFormat.encode(signing.commitRequest)], token: token)
        let commitResponse = try WireFormat.decodeSignCommitResponse(XCTUnwrap(c["message"] as? [String: String]))
        let prove = try signing.prove(commitResponse)
        let (_, p) = try await call(
            "POST", "/v3/mobile/session/\(sessionID)/sign/prove", ["message": WireFormat.encode(prove)], token: token)
        let signature = try signing.finish(
            WireFormat.decodeSignProveResponse(XCTUnwrap(p["message"] as? [String: String])), secretKey: share.secretKey
        )
        let (sf, _) = try await call(
            "POST", "/v3/mobile/session/\(sessionID)/sign/finish",
            ["message": WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: signature))], token: token)
        XCTAssertEqual(sf, 200)
        let (_, result) = try await call("GET", "/v3/rp/session/\(sessionID)")
        XCTAssertEqual(result["state"] as? String, "COMPLETE")
        let raw = try XCTUnwrap(BigInt(hex: XCTUnwrap(result["signature"] as? String))?.bytes(width: 64))
        XCTAssertTrue(
            TwoPartySigning.verify(
                r: BigInt(bytes: raw[0..<32]), s: BigInt(bytes: raw[32...]),
                digest: try Digest(algorithm: .sha256, bytes: Data(digest)), publicKey: share.publicKey))
        // The same commit again: the session has moved on.
        let (again, _) = try await call(
            "POST", "/v3/mobile/session/\(sessionID)/sign/commit",
            ["message": WireFormat.encode(signing.commitRequest)], token: token)
        XCTAssertEqual(again, 409)
    }

    func testHostileRequestsGet4xxAndChangeNothing() async throws {
        let (share, token) = try await enroll(document: "49001010000")
        let (_, other) = try await enroll(document: "50001010000")
        let digest = [UInt8](repeating: 1, count: 32)
        let (_, created) = try await call(
            "POST", "/v3/rp/session",
            ["keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest), "rpName": "x", "displayText": "y"])
        let sessionID = try XCTUnwrap(created["sessionID"] as? String)
        let signing = try ClientSigning(share: share.publicShare, digest: digest, guard: MemoryGuardForService())
        let commit = ["message": WireFormat.encode(signing.commitRequest)]
        let status1 = try await call("POST", "/v3/mobile/session/\(sessionID)/sign/commit", commit).0
        XCTAssertEqual(status1, 403, "no device token")
        let status2 = try await call(
            "POST", "/v3/mobile/session/\(sessionID)/sign/commit", commit, token: String(repeating: "0", count: 64)
        ).0
        XCTAssertEqual(status2, 403, "unknown token")
        let status3 = try await call("POST", "/v3/mobile/session/\(sessionID)/sign/commit", commit, token: other).0
        XCTAssertEqual(status3, 403, "another device's session")
        let status4 = try await call("GET", "/v3/mobile/pending/49001010000", token: other).0
        XCTAssertEqual(status4, 403)
        let status5 = try await call(
            "POST", "/v3/mobile/session/\(sessionID)/sign/prove", ["message": [:]], token: token
        ).0
        XCTAssertEqual(status5, 409, "prove before commit")
        let status6 = try await call(
            "POST", "/v3/enrollment/init", ["code": "WRONGCODE000", "role": "sign", "message": [:]]
        ).0
        XCTAssertEqual(status6, 403)
        let status7 = try await call("POST", "/v3/rp/session", ["keyID": "zz"]).0
        XCTAssertEqual(status7, 400)
        let status8 = try await call("GET", "/v3/nowhere").0
        XCTAssertEqual(status8, 404)
        // Malformed JSON body.
        do {
            _ = try await transport.request(
                method: "POST", url: URL(string: base + "/v3/rp/session")!, body: Data("{not json".utf8),
                headers: ["Authorization": "Bearer \(rpKey)"], service: "t")
            XCTFail("accepted")
        } catch CoreError.serviceHTTPStatus(_, _, let status) { XCTAssertEqual(status, 400) }
        // Relying parties must authenticate; one cannot read another's session.
        let anonymous = ThresholdClient(server: URL(string: base)!, transport: transport)
        do {
            _ = try await anonymous.call(
                "POST", "v3/rp/session", ["keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest)])
            XCTFail("an unauthenticated relying party opened a session")
        } catch CoreError.serviceRefused(_, _, let status, _, _) { XCTAssertEqual(status, 401) }
        let otherRP = try service.store.addRelyingParty(name: "Other Shop")
        do {
            _ = try await anonymous.call("GET", "v3/rp/session/\(sessionID)", nil, apiKey: otherRP)
            XCTFail("another relying party read the session")
        } catch CoreError.serviceRefused(_, _, let status, _, _) { XCTAssertEqual(status, 404) }
        // Nothing moved: the session is still pending and the key unlocked.
        XCTAssertEqual(
            try service.store.database.query("SELECT state FROM sessions WHERE id = ?", [.text(sessionID)]).first?
                .first?.text, "PENDING")
        XCTAssertEqual(try service.store.loadKey(share.keyID)?.locked, false)
    }
}

extension CoSignerHTTPTestCase {
    /// Sends one request with hand-made headers; (status, lower-case headers of a 200 answer).
    func raw(
        _ method: String, _ path: String, _ body: [String: Any]?, headers: [String: String]
    ) async throws -> (Int, [String: String]) {
        do {
            let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
            let answer = try await transport.requestWithHeaders(
                method: method, url: URL(string: base + path)!, body: data,
                headers: headers.merging(["Content-Type": "application/json"]) { $1 }, service: "t")
            return (200, answer.headers)
        } catch CoreError.serviceHTTPStatus(_, _, let status) {
            return (status, [:])
        }
    }

    func challenge() async throws -> [UInt8] {
        let (_, answer) = try await call("GET", "/v3/attestation/challenge")
        return try XCTUnwrap(BigInt(hex: XCTUnwrap(answer["nonce"] as? String))?.bytes(width: 32))
    }
}

/// Device attestation: every device call is signed by the key registered at enrollment, over a
/// one-time nonce bound to that very request.
class DeviceAttestationTests: CoSignerHTTPTestCase {
    var fixture: CoSignerHTTPTestCase { self }

    func testEveryDeviceCallMustBeSignedByTheEnrolledKeyOverAFreshNonce() async throws {
        let (_, token) = try await fixture.enroll(document: "38001085718")
        let device = try XCTUnwrap(fixture.devices[token])
        let path = "/v3/mobile/pending/38001085718"
        let headers = ["X-Device-Token": token]

        // No attestation at all.
        let (missing, _) = try await fixture.raw("GET", path, nil, headers: headers)
        XCTAssertEqual(missing, 401)
        // Signed by another key.
        let stranger = try fixture.newDevice()
        let nonce1 = try await fixture.challenge()
        let (forged, _) = try await fixture.raw(
            "GET", path, nil,
            headers: headers.merging([
                "X-Attestation": try stranger.header(nonce: nonce1, method: "GET", path: path, body: [])
            ]) { $1 })
        XCTAssertEqual(forged, 401)
        // A forged header did not burn the nonce: the right key still uses it once ...
        let good = try device.header(nonce: nonce1, method: "GET", path: path, body: [])
        let (ok, answerHeaders) = try await fixture.raw(
            "GET", path, nil, headers: headers.merging(["X-Attestation": good]) { $1 })
        XCTAssertEqual(ok, 200)
        // ... and only once.
        let (replayed, _) = try await fixture.raw(
            "GET", path, nil, headers: headers.merging(["X-Attestation": good]) { $1 })
        XCTAssertEqual(replayed, 401)
        // A signature over another request (path) with a live nonce.
        let nonce2 = try await fixture.challenge()
        let other = try device.header(nonce: nonce2, method: "GET", path: "/v3/mobile/activity/38001085718", body: [])
        let (moved, _) = try await fixture.raw(
            "GET", path, nil, headers: headers.merging(["X-Attestation": other]) { $1 })
        XCTAssertEqual(moved, 401)
        // Garbage in the header.
        let (garbage, _) = try await fixture.raw(
            "GET", path, nil, headers: headers.merging(["X-Attestation": "v1:zz:00"]) { $1 })
        XCTAssertEqual(garbage, 401)

        // The answer carried the next nonce: the following call needs no challenge.
        let next = try XCTUnwrap(
            answerHeaders["x-next-attestation-nonce"].flatMap { BigInt(hex: $0)?.bytes(width: 32) })
        let (chained, _) = try await fixture.raw(
            "GET", path, nil,
            headers: headers.merging([
                "X-Attestation": try device.header(nonce: next, method: "GET", path: path, body: [])
            ]) { $1 })
        XCTAssertEqual(chained, 200)
    }

    func testANonceHandedToOneDeviceIsUselessToAnother() async throws {
        let (_, tokenA) = try await fixture.enroll(document: "49001010000")
        let (_, tokenB) = try await fixture.enroll(document: "50001010000")
        let deviceA = try XCTUnwrap(fixture.devices[tokenA]), deviceB = try XCTUnwrap(fixture.devices[tokenB])
        let pathA = "/v3/mobile/pending/49001010000", pathB = "/v3/mobile/pending/50001010000"
        let nonce = try await fixture.challenge()
        let (status, headers) = try await fixture.raw(
            "GET", pathA, nil,
            headers: [
                "X-Device-Token": tokenA,
                "X-Attestation": try deviceA.header(nonce: nonce, method: "GET", path: pathA, body: []),
            ])
        XCTAssertEqual(status, 200)
        let handedToA = try XCTUnwrap(headers["x-next-attestation-nonce"].flatMap { BigInt(hex: $0)?.bytes(width: 32) })
        let (stolen, _) = try await fixture.raw(
            "GET", pathB, nil,
            headers: [
                "X-Device-Token": tokenB,
                "X-Attestation": try deviceB.header(nonce: handedToA, method: "GET", path: pathB, body: []),
            ])
        XCTAssertEqual(stolen, 401)
    }

    func testEnrollmentRegistersOnlyAKeyTheDeviceProvesItHolds() async throws {
        let code = try fixture.service.store.issueEnrollmentCode(documentNumber: "60001010000")
        // A client without a device key: refused at the last step, the code still unused.
        let bare = ThresholdClient(server: URL(string: fixture.base)!)
        do {
            _ = try await bare.enrollShare(code: code, role: .sign, clientPID: Transcript.taggedHash("t", [[1]]))
            XCTFail("enrolled without a device key")
        } catch CoreError.serviceRefused(_, _, let status, _, _) { XCTAssertEqual(status, 401) }
        XCTAssertEqual(try fixture.service.store.enrollmentCode(code, allows: .sign), "60001010000")
        XCTAssertEqual(try fixture.service.store.database.query("SELECT count(*) FROM keys").first?.first, .integer(0))
        // With one it works, and the stored key is the device's.
        let device = try fixture.newDevice()
        let (_, registration) = try await ThresholdClient(server: URL(string: fixture.base)!, attestation: device)
            .enrollShare(code: code, role: .sign, clientPID: Transcript.taggedHash("t", [[2]]))
        let stored = try fixture.service.store.database.query(
            "SELECT device_key FROM devices WHERE token_hash = ?", [.text(CoSignerStore.hash(registration.deviceToken))]
        )
        XCTAssertEqual(stored.first?.first?.blob, Array(device.key.subjectPublicKeyInfo))
    }

    func testOneCodeEnrollsAnAuthAndASignKeyEachOnce() async throws {
        let code = try fixture.service.store.issueEnrollmentCode(documentNumber: "70001010000")
        let client = ThresholdClient(server: URL(string: fixture.base)!, attestation: try fixture.newDevice())
        let (sign, _) = try await client.enrollShare(
            code: code, role: .sign, clientPID: Transcript.taggedHash("t", [[3]]))
        do {
            _ = try await client.enrollShare(code: code, role: .sign, clientPID: Transcript.taggedHash("t", [[4]]))
            XCTFail("a second sign key with one code")
        } catch CoreError.serviceRefused(_, _, let status, _, _) { XCTAssertEqual(status, 403) }
        let (auth, _) = try await client.enrollShare(
            code: code, role: .auth, clientPID: Transcript.taggedHash("t", [[5]]))
        XCTAssertNotEqual(sign.keyID, auth.keyID)
        let roles = try fixture.service.store.database.query(
            "SELECT role FROM keys WHERE document_number = '70001010000' ORDER BY role"
        ).map { $0[0].text ?? "" }
        XCTAssertEqual(roles, ["auth", "sign"])
        XCTAssertNil(try fixture.service.store.enrollmentCode(code, allows: .auth), "spent")
        XCTAssertNil(try fixture.service.store.enrollmentCode(code, allows: .sign), "spent")
    }
}

/// AUTH sessions: the relying party's challenge, signed as ACSP_V2 over the challenge and the
/// device's own key, which the device computes itself.
class AuthenticationSessionTests: CoSignerHTTPTestCase {
    func testAnAuthSessionIsSignedOverTheChallengeAndTheDevicesOwnKey() async throws {
        let code = try service.store.issueEnrollmentCode(documentNumber: "38001085718")
        let device = try newDevice()
        let client = ThresholdClient(server: URL(string: base)!, transport: transport, attestation: device)
        let (share, registration) = try await client.enrollShare(
            code: code, role: .auth, clientPID: Transcript.taggedHash("auth", [[1]]))
        let challenge = [UInt8]((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })

        // No sign key yet: a SIGN session by document number is refused; the auth key cannot sign documents.
        let (noSignKey, _) = try await call(
            "POST", "/v3/rp/session", ["documentNumber": "38001085718", "digest": String(repeating: "ab", count: 32)])
        XCTAssertEqual(noSignKey, 404)
        let (wrongRole, _) = try await call(
            "POST", "/v3/rp/session",
            ["keyID": WireFormat.hex(share.keyID), "digest": String(repeating: "ab", count: 32)])
        XCTAssertEqual(wrongRole, 422)
        let (shortChallenge, _) = try await call(
            "POST", "/v3/rp/session",
            [
                "kind": "AUTH", "documentNumber": "38001085718",
                "rpChallenge": Data(challenge.prefix(16)).base64EncodedString(),
            ])
        XCTAssertEqual(shortChallenge, 400)

        // The body's rpName is ignored: the registered name is what the device shows and binds.
        let (status, created) = try await call(
            "POST", "/v3/rp/session",
            [
                "kind": "AUTH", "documentNumber": "38001085718", "rpName": "Somebody Else",
                "displayText": "Log in", "rpChallenge": Data(challenge).base64EncodedString(),
            ])
        XCTAssertEqual(status, 200)
        let sessionID = try XCTUnwrap(created["sessionID"] as? String)
        let info = try await client.session(sessionID, registration: registration)
        XCTAssertEqual(info.kind, "AUTH")
        XCTAssertEqual(info.role, .auth)
        XCTAssertEqual(info.rpChallenge, challenge)
        let spki = TwoPartySigning.subjectPublicKeyInfo(share.publicKey)
        let digest = try info.digestToSign(subjectPublicKeyInfo: spki)
        XCTAssertEqual(
            digest,
            AuthenticationChallenge.digest(rpChallenge: challenge, subjectPublicKeyInfo: spki, rpName: "Test Bank"))
        let signature = try await client.approve(
            sessionID: sessionID, digest: digest, share: share.publicShare, token: registration.deviceToken,
            guard: MemoryGuardForService()
        ) { share.secretKey }
        let (_, result) = try await call("GET", "/v3/rp/session/\(sessionID)")
        XCTAssertEqual(result["state"] as? String, "COMPLETE")
        XCTAssertEqual(result["kind"] as? String, "AUTH")
        XCTAssertEqual(
            result["signature"] as? String, WireFormat.hex(Scalar.encode(signature.r) + Scalar.encode(signature.s)))
        // The relying party's own check, from its challenge and the key.
        XCTAssertTrue(
            TwoPartySigning.verify(
                r: signature.r, s: signature.s,
                digest: try Digest(
                    algorithm: .sha256,
                    bytes: Data(
                        AuthenticationChallenge.digest(
                            rpChallenge: challenge, subjectPublicKeyInfo: spki, rpName: "Test Bank"))),
                publicKey: share.publicKey))
        // Another relying party name gives another message: the signature does not carry over.
        XCTAssertFalse(
            TwoPartySigning.verify(
                r: signature.r, s: signature.s,
                digest: try Digest(
                    algorithm: .sha256,
                    bytes: Data(
                        AuthenticationChallenge.digest(
                            rpChallenge: challenge, subjectPublicKeyInfo: spki, rpName: "Other Bank"))),
                publicKey: share.publicKey))
    }

    func testTheDeviceRefusesAnAuthDigestItDidNotComputeItself() async throws {
        let code = try service.store.issueEnrollmentCode(documentNumber: "49001010000")
        let client = ThresholdClient(server: URL(string: base)!, transport: transport, attestation: try newDevice())
        let (share, registration) = try await client.enrollShare(
            code: code, role: .auth, clientPID: Transcript.taggedHash("auth", [[2]]))
        let (_, created) = try await call(
            "POST", "/v3/rp/session",
            [
                "kind": "AUTH", "documentNumber": "49001010000", "rpName": "Test Bank",
                "rpChallenge": Data(repeating: 7, count: 32).base64EncodedString(),
            ])
        let sessionID = try XCTUnwrap(created["sessionID"] as? String)
        // A co-signer that swaps in a document digest (someone else's contract) under an AUTH label.
        try service.store.database.execute(
            "UPDATE sessions SET digest = ? WHERE id = ?",
            [.blob([UInt8](repeating: 0xCD, count: 32)), .text(sessionID)])
        let info = try await client.session(sessionID, registration: registration)
        XCTAssertThrowsError(
            try info.digestToSign(subjectPublicKeyInfo: TwoPartySigning.subjectPublicKeyInfo(share.publicKey)))
    }
}

/// Sessions of one key do not interfere, devices reach only the keys they enrolled, and the
/// last step changes state once.
class SessionIsolationTests: CoSignerHTTPTestCase {
    func session(_ share: ClientKeyShare, _ label: String) async throws -> (String, [UInt8]) {
        let digest = Array(Digest.compute(.sha256, over: Data(label.utf8)).bytes)
        let (_, created) = try await call(
            "POST", "/v3/rp/session", ["keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest)])
        return (try XCTUnwrap(created["sessionID"] as? String), digest)
    }

    func commit(
        _ id: String, _ share: ClientKeyShare, _ digest: [UInt8], token: String
    ) async throws -> (ClientSigning, ThresholdMessage.SignProveRequest) {
        let signing = try ClientSigning(share: share.publicShare, digest: digest, guard: MemoryGuardForService())
        let (status, c) = try await call(
            "POST", "/v3/mobile/session/\(id)/sign/commit", ["message": WireFormat.encode(signing.commitRequest)],
            token: token)
        XCTAssertEqual(status, 200)
        return (
            signing,
            try signing.prove(WireFormat.decodeSignCommitResponse(XCTUnwrap(c["message"] as? [String: String])))
        )
    }

    func state(_ id: String) throws -> String? {
        try service.store.database.query("SELECT state FROM sessions WHERE id = ?", [.text(id)]).first?.first?.text
    }

    func testACancelSentToAnotherSessionDoesNotEndTheOpenOne() async throws {
        let (share, token) = try await enroll(document: "38001085718")
        let (first, digest) = try await session(share, "first")
        let (second, _) = try await session(share, "second")
        let (signing, prove) = try await commit(first, share, digest, token: token)
        let (cancelled, _) = try await call("POST", "/v3/mobile/session/\(second)/sign/cancel", [:], token: token)
        XCTAssertEqual(cancelled, 409, "the second session is PENDING")
        // The first session's commit is intact: prove and finish go through.
        let (_, p) = try await call(
            "POST", "/v3/mobile/session/\(first)/sign/prove", ["message": WireFormat.encode(prove)], token: token)
        let signature = try signing.finish(
            WireFormat.decodeSignProveResponse(XCTUnwrap(p["message"] as? [String: String])), secretKey: share.secretKey
        )
        let (finished, _) = try await call(
            "POST", "/v3/mobile/session/\(first)/sign/finish",
            ["message": WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: signature))], token: token)
        XCTAssertEqual(finished, 200)
        // A second finish (a retry after a lost answer) changes nothing and locks nothing.
        let (again, _) = try await call(
            "POST", "/v3/mobile/session/\(first)/sign/finish",
            ["message": WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: nil))], token: token)
        XCTAssertEqual(again, 409)
        XCTAssertEqual(try state(first), "COMPLETE")
        XCTAssertEqual(try service.store.loadKey(share.keyID)?.locked, false)
    }

    func testACryptoFailureAtFinishFailsTheSessionAndLocksTheKeyDurably() async throws {
        let (share, token) = try await enroll(document: "49001010000")
        let (id, digest) = try await session(share, "doomed")
        let (_, prove) = try await commit(id, share, digest, token: token)
        _ = try await call(
            "POST", "/v3/mobile/session/\(id)/sign/prove", ["message": WireFormat.encode(prove)], token: token)
        let (status, _) = try await call(
            "POST", "/v3/mobile/session/\(id)/sign/finish",
            ["message": WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: nil))], token: token)
        XCTAssertEqual(status, 422)
        XCTAssertEqual(try state(id), "FAILED")
        XCTAssertEqual(try service.store.loadKey(share.keyID)?.locked, true, "in the database, not only in memory")
    }

    // A session left PROVED no longer locks its key when it expires: LostPacketTests.

    func testADeviceReachesOnlyTheKeysItEnrolledAndReEnrollmentRevokesTheOldDevice() async throws {
        let code = try service.store.issueEnrollmentCode(documentNumber: "60001010000")
        let phoneA = try newDevice(), phoneB = try newDevice()
        let clientA = ThresholdClient(server: URL(string: base)!, transport: transport, attestation: phoneA)
        let clientB = ThresholdClient(server: URL(string: base)!, transport: transport, attestation: phoneB)
        let (sign, registrationA) = try await clientA.enrollShare(
            code: code, role: .sign, clientPID: Transcript.taggedHash("a", [[1]]))
        let (_, registrationB) = try await clientB.enrollShare(
            code: code, role: .auth, clientPID: Transcript.taggedHash("b", [[1]]))
        devices[registrationA.deviceToken] = phoneA
        devices[registrationB.deviceToken] = phoneB
        let (id, digest) = try await session(sign, "A's")
        let (_, pendingB) = try await call("GET", "/v3/mobile/pending/60001010000", token: registrationB.deviceToken)
        XCTAssertEqual((pendingB["sessions"] as? [Any])?.count, 0, "phone B sees nothing of phone A's key")
        let signing = try ClientSigning(share: sign.publicShare, digest: digest, guard: MemoryGuardForService())
        let (stolen, _) = try await call(
            "POST", "/v3/mobile/session/\(id)/sign/commit", ["message": WireFormat.encode(signing.commitRequest)],
            token: registrationB.deviceToken)
        XCTAssertEqual(stolen, 403)
        XCTAssertEqual(try state(id), "PENDING")
        // Phone A is lost: the person enrolls a new sign key from phone C with a new code.
        let phoneC = try newDevice()
        let code2 = try service.store.issueEnrollmentCode(documentNumber: "60001010000")
        let (_, registrationC) = try await ThresholdClient(
            server: URL(string: base)!, transport: transport, attestation: phoneC
        )
        .enrollShare(code: code2, role: .sign, clientPID: Transcript.taggedHash("c", [[1]]))
        devices[registrationC.deviceToken] = phoneC
        XCTAssertEqual(try service.store.loadKey(sign.keyID)?.locked, true, "the old sign key is superseded")
        let (oldPhone, _) = try await call("GET", "/v3/mobile/pending/60001010000", token: registrationA.deviceToken)
        XCTAssertEqual(oldPhone, 403, "the lost phone's token no longer works")
        let (newPhone, _) = try await call("GET", "/v3/mobile/pending/60001010000", token: registrationC.deviceToken)
        XCTAssertEqual(newPhone, 200)
        let (auth, _) = try await call("GET", "/v3/mobile/pending/60001010000", token: registrationB.deviceToken)
        XCTAssertEqual(auth, 200, "the auth key's phone is not affected")
    }
}

final class MemoryGuardForService: ShareGuard, @unchecked Sendable {  // unchecked: `mutex` guards `state`
    private let mutex = NSLock()
    private var state = "ready"
    func isLocked() throws -> Bool { mutex.withLock { state != "ready" } }
    func markInFlight() throws {
        try mutex.withLock {
            guard state == "ready" else { throw ThresholdError.shareLocked }
            state = "in-flight"
        }
    }
    func clearInFlight() throws {
        try mutex.withLock {
            guard state == "in-flight" else { throw ThresholdError.shareLocked }
            state = "ready"
        }
    }
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
            let service = CoSignerService(
                store: store, party: try ServerParty(pid: identity.pid, ringPedersen: identity.ringPedersen))
            return (service, try HTTPServer { service.handle($0) })
        }
        var (service, server) = try start()
        let code = try service.store.issueEnrollmentCode(documentNumber: "r1")
        // One device (one key) across the restarts: the nonce it keeps from the last answer is
        // gone from the restarted co-signer's memory, so its next call fetches a new challenge.
        let device = try testDevice(in: folder)
        let client = { ThresholdClient(server: URL(string: "http://127.0.0.1:\(server.port)")!, attestation: device) }
        let (share, registration) = try await enrollOverHTTP(client(), code: code, document: "r1")
        let rpKey = try service.store.addRelyingParty(name: "rp")
        func newSession() async throws -> String {
            let answer = try await client().call(
                "POST", "v3/rp/session",
                [
                    "keyID": WireFormat.hex(share.keyID), "digest": String(repeating: "ab", count: 32),
                    "displayText": "t",
                ], apiKey: rpKey)
            return try XCTUnwrap(answer["sessionID"] as? String)
        }
        func state(_ id: String) throws -> String? {
            try service.store.database.query("SELECT state FROM sessions WHERE id = ?", [.text(id)]).first?.first?.text
        }

        // Restart between commit and prove: the session's state (k2) is in the database, so the
        // restarted co-signer proves and finishes it, and the signature verifies.
        let first = try await newSession()
        let signing = try ClientSigning(
            share: share.publicShare, digest: [UInt8](repeating: 0xAB, count: 32), guard: MemoryGuardForService())
        let commit = try await client().call(
            "POST", "v3/mobile/session/\(first)/sign/commit", ["message": WireFormat.encode(signing.commitRequest)],
            token: registration.deviceToken)
        let prove = try signing.prove(
            WireFormat.decodeSignCommitResponse(XCTUnwrap(commit["message"] as? [String: String])))
        server.stop()
        (service, server) = try start()
        let proved1 = try await client().call(
            "POST", "v3/mobile/session/\(first)/sign/prove", ["message": WireFormat.encode(prove)],
            token: registration.deviceToken)
        let signature1 = try signing.finish(
            WireFormat.decodeSignProveResponse(XCTUnwrap(proved1["message"] as? [String: String])),
            secretKey: share.secretKey)
        _ = try await client().call(
            "POST", "v3/mobile/session/\(first)/sign/finish",
            ["message": WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: signature1))],
            token: registration.deviceToken)
        XCTAssertEqual(try state(first), "COMPLETE")
        XCTAssertTrue(
            TwoPartySigning.verify(
                r: signature1.r, s: signature1.s,
                digest: try Digest(algorithm: .sha256, bytes: Data(repeating: 0xAB, count: 32)),
                publicKey: share.publicShare.publicKey))
        XCTAssertEqual(try service.store.loadKey(share.keyID)?.locked, false)

        // Restart between prove and finish: the signature is still checked under the key; COMPLETE.
        let second = try await newSession()
        let signing2 = try ClientSigning(
            share: share.publicShare, digest: [UInt8](repeating: 0xAB, count: 32), guard: MemoryGuardForService())
        let commit2 = try await client().call(
            "POST", "v3/mobile/session/\(second)/sign/commit", ["message": WireFormat.encode(signing2.commitRequest)],
            token: registration.deviceToken)
        let prove2 = try signing2.prove(
            WireFormat.decodeSignCommitResponse(XCTUnwrap(commit2["message"] as? [String: String])))
        let proved = try await client().call(
            "POST", "v3/mobile/session/\(second)/sign/prove", ["message": WireFormat.encode(prove2)],
            token: registration.deviceToken)
        let signature = try signing2.finish(
            WireFormat.decodeSignProveResponse(XCTUnwrap(proved["message"] as? [String: String])),
            secretKey: share.secretKey)
        server.stop()
        (service, server) = try start()
        _ = try await client().call(
            "POST", "v3/mobile/session/\(second)/sign/finish",
            ["message": WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: signature))],
            token: registration.deviceToken)
        XCTAssertEqual(try state(second), "COMPLETE")

        // Two proves at once on one session: exactly one gets a c3.
        let third = try await newSession()
        let signing3 = try ClientSigning(
            share: share.publicShare, digest: [UInt8](repeating: 0xAB, count: 32), guard: MemoryGuardForService())
        let commit3 = try await client().call(
            "POST", "v3/mobile/session/\(third)/sign/commit", ["message": WireFormat.encode(signing3.commitRequest)],
            token: registration.deviceToken)
        let prove3 = WireFormat.encode(
            try signing3.prove(WireFormat.decodeSignCommitResponse(XCTUnwrap(commit3["message"] as? [String: String]))))
        let base = client()
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    (try? await base.call(
                        "POST", "v3/mobile/session/\(third)/sign/prove", ["message": prove3],
                        token: registration.deviceToken)) != nil
                }
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
class CoSignerLoadTests: XCTestCase {
    /// Which database the co-signer runs on (`PostgreSQLCoSignerLoadTests` says `.postgresql`).
    class var storeKind: TestStoreKind { .sqlite }
    /// How many signatures, unless TAMGA_LOAD_SIGNATURES says otherwise.
    class var signatures: Int { 500 }

    func testEightClientsFiveHundredSignatures() async throws {
        let folder = try TestEnvironment.temporaryFolder("load")
        defer { TestEnvironment.removeFolder(folder) }
        let store = try CoSignerStore(
            url: type(of: self).storeKind.newDatabase(in: folder), serverKey: [UInt8](repeating: 6, count: 32))
        let identity = try store.serverIdentity { _ in CoSignerStoreTests.ringPedersen }
        let service = CoSignerService(
            store: store, party: try ServerParty(pid: identity.pid, ringPedersen: identity.ringPedersen))
        let server = try HTTPServer(threads: 8) { service.handle($0) }
        defer { server.stop() }
        var devices: [(ClientKeyShare, ThresholdClient.Registration, ThresholdClient)] = []
        let rpKey = try store.addRelyingParty(name: "load")
        for index in 0..<8 {
            let client = ThresholdClient(
                server: URL(string: "http://127.0.0.1:\(server.port)")!, attestation: try testDevice(in: folder))
            let (share, registration) = try await enrollOverHTTP(
                client, code: store.issueEnrollmentCode(documentNumber: "doc\(index)"), document: "doc\(index)")
            devices.append((share, registration, client))
        }
        let total = Int(ProcessInfo.processInfo.environment["TAMGA_LOAD_SIGNATURES"] ?? "") ?? type(of: self).signatures
        let start = Date()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, device) in devices.enumerated() {
                let count = total / 8 + (index < total % 8 ? 1 : 0)
                group.addTask {
                    var verified = 0
                    for n in 0..<count {
                        let digest = Array(Digest.compute(.sha256, over: Data("load \(index) \(n)".utf8)).bytes)
                        let client = device.2
                        let session = try await client.call(
                            "POST", "v3/rp/session",
                            [
                                "keyID": WireFormat.hex(device.0.keyID), "digest": WireFormat.hex(digest),
                                "displayText": "\(n)",
                            ], apiKey: rpKey)
                        let id = session["sessionID"] as? String ?? ""
                        let signature = try await client.approve(
                            sessionID: id, digest: digest, share: device.0.publicShare, token: device.1.deviceToken,
                            guard: MemoryGuardForService()
                        ) { device.0.secretKey }
                        if TwoPartySigning.verify(
                            r: signature.r, s: signature.s, digest: try Digest(algorithm: .sha256, bytes: Data(digest)),
                            publicKey: device.0.publicKey)
                        {
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
        XCTAssertEqual(
            try store.database.query("SELECT count(*) FROM sessions WHERE state = 'COMPLETE'").first?.first,
            .integer(Int64(total)))
        XCTAssertLessThan(elapsed, 300, "bounded: \(elapsed) s for \(total) signatures")
    }
}

/// Enrollment over HTTP without a CA (these services have none): the share and a registration.
/// `client` must carry the device's attestation key.
func enrollOverHTTP(
    _ client: ThresholdClient, code: String, document: String
) async throws -> (ClientKeyShare, ThresholdClient.Registration) {
    try await client.enrollShare(
        code: code, role: .sign, clientPID: Transcript.taggedHash("test-device", [Array(document.utf8)]))
}

/// A throwaway device key in `folder`.
func testDevice(in folder: URL) throws -> DeviceAttestation {
    DeviceAttestation(key: try DeviceKey(file: folder.appendingPathComponent("device-\(UUID().uuidString).key").path))
}

/// Hex, base64 and decimal fields with non-ASCII digits (fullwidth U+FF10…, Arabic-Indic U+0660…,
/// which `Character.isHexDigit`/`isNumber` accept and no radix parser reads) in every place a
/// client can put them: each answers 400 (or 401/403 for a header), and the server goes on.
final class NonASCIIDigitTests: CoSignerHTTPTestCase {
    static let fullwidth64 = String(repeating: "\u{FF10}", count: 63) + "\u{FF41}"
    static let arabicIndic64 = String(repeating: "\u{0661}", count: 64)

    func testNonASCIIDigitsInEveryFieldAreRefusedAndTheServerGoesOn() async throws {
        let (share, token) = try await enroll(document: "38001085718")
        let keyID = WireFormat.hex(share.keyID)
        let digest = WireFormat.hex([UInt8](repeating: 7, count: 32))
        let code = try service.store.issueEnrollmentCode(documentNumber: "38001085718")
        for digits in [Self.fullwidth64, Self.arabicIndic64] {
            var statuses: [String: Int] = [:]
            statuses["enrollment clientNonce"] = try await raw(
                "POST", "/v3/enrollment/complete",
                ["code": code, "role": "auth", "clientNonce": digits, "message": [:]], headers: [:]
            ).0
            statuses["enrollment deviceKey"] = try await raw(
                "POST", "/v3/enrollment/complete",
                ["code": code, "role": "auth", "clientNonce": digest, "deviceKey": digits + digits, "message": [:]],
                headers: ["X-Attestation": "v1:\(digest):\(digest)\(digest)"]
            ).0
            statuses["X-Attestation"] = try await raw(
                "GET", "/v3/mobile/pending/38001085718", nil,
                headers: ["X-Device-Token": token, "X-Attestation": "v1:\(digits):\(digits)\(digits)"]
            ).0
            statuses["X-Device-Token"] = try await raw(
                "GET", "/v3/mobile/pending/38001085718", nil, headers: ["X-Device-Token": digits]
            ).0
            let rp = ["Authorization": "Bearer \(rpKey)"]
            statuses["rp keyID"] = try await raw(
                "POST", "/v3/rp/session", ["keyID": digits, "digest": digest], headers: rp
            ).0
            statuses["rp digest"] = try await raw(
                "POST", "/v3/rp/session", ["keyID": keyID, "digest": digits], headers: rp
            ).0
            statuses["rp rpChallenge"] = try await raw(
                "POST", "/v3/rp/session",
                [
                    "documentNumber": "38001085718", "kind": "AUTH",
                    "rpChallenge": String(repeating: "\u{FF21}", count: 44),
                ], headers: rp
            ).0
            statuses["rp bearer"] = try await raw(
                "POST", "/v3/rp/session", ["keyID": keyID, "digest": digest],
                headers: ["Authorization": "Bearer \(digits)"]
            ).0
            statuses["device keyID"] = try await call(
                "POST", "/v3/mobile/session", ["keyID": digits, "digest": digest], token: token
            ).0
            statuses["device digest"] = try await call(
                "POST", "/v3/mobile/session", ["keyID": keyID, "digest": digits], token: token
            ).0
            statuses["certificate request"] = try await call(
                "POST", "/v3/mobile/certificate", ["sessionID": digits, "request": digits], token: token
            ).0
            for (field, status) in statuses {
                // 501: no CA configured
                XCTAssertTrue((400..<500).contains(status) || status == 501, "\(field) answered \(status)")
            }
            // Still serving, and nothing was used up: a session still opens.
            let alive = try await call("GET", "/v3/attestation/challenge").0
            XCTAssertEqual(alive, 200)
        }
        let opened = try await call(
            "POST", "/v3/rp/session", ["keyID": keyID, "digest": digest, "displayText": "after"])
        XCTAssertEqual(opened.0, 200)
        XCTAssertNotNil(try service.store.enrollmentCode(code, allows: .auth), "the enrollment code was not used up")
    }

    /// The pending list's `limit` and `offset` are ASCII digits: fullwidth, Arabic-Indic,
    /// Devanagari, superscript digits or a sign answer 400, not a quietly different page.
    func testNonASCIIDigitsInThePendingPageAreRefused() async throws {
        let (share, token) = try await enroll(document: "38001085718")
        for index in 0..<3 {
            let (status, _) = try await call(
                "POST", "/v3/rp/session",
                [
                    "keyID": WireFormat.hex(share.keyID),
                    "digest": WireFormat.hex([UInt8](repeating: UInt8(index), count: 32)),
                    "displayText": "session \(index)",
                ])
            XCTAssertEqual(status, 200)
        }
        let (status, page) = try await call("GET", "/v3/mobile/pending/38001085718?limit=1&offset=1", token: token)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(
            (page["sessions"] as? [[String: Any]])?.compactMap { $0["displayText"] as? String }, ["session 1"],
            "the ASCII page")
        func query(_ text: String) -> String { text.utf8.map { String(format: "%%%02X", $0) }.joined() }
        for digits in ["\u{FF11}", "\u{0661}", "\u{06F1}", "\u{0967}", "\u{00B9}", "1\u{FF10}", "+1", "-1", ""] {
            for name in ["limit", "offset"] {
                let (refused, _) = try await call(
                    "GET", "/v3/mobile/pending/38001085718?\(name)=\(query(digits))", token: token)
                XCTAssertEqual(refused, 400, "\(name)=\(digits.debugDescription)")
            }
        }
    }

    /// A handler that fails in a way nobody foresaw answers 500 with JSON and is logged; the
    /// server goes on answering.
    func testAnUnexpectedFailureAnswers500AndIsLogged() async throws {
        let lines = LockedLines()
        let store = try CoSignerStore(
            path: folder.appendingPathComponent("broken.db").path, serverKey: [UInt8](repeating: 3, count: 32))
        let broken = CoSignerService(
            store: store,
            party: try ServerParty(
                pid: Transcript.taggedHash("svc", [[1]]), ringPedersen: CoSignerStoreTests.ringPedersen),
            errorLog: { lines.append($0) })
        let rpKey = try store.addRelyingParty(name: "Bank")
        // The sessions table is gone: every session request fails inside SQLite.
        try store.database.execute("DROP TABLE sessions")
        let answer = broken.handle(
            HTTPRequest(
                method: "GET", path: "/v3/rp/session/\u{202E}x", headers: ["authorization": "Bearer \(rpKey)"], body: []
            ))
        XCTAssertEqual(answer.status, 500)
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: [String: String]])
        XCTAssertEqual(body["error"]?["code"], "internal")
        XCTAssertEqual(lines.all.count, 1)
        XCTAssertTrue(lines.all.first?.contains("GET /v3/rp/session/?x") == true, lines.all.first ?? "")
        XCTAssertEqual(
            broken.handle(HTTPRequest(method: "GET", path: "/v3/attestation/challenge", headers: [:], body: [])).status,
            200)
    }
}
