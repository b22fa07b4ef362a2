import CoSigner
import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

/// A signing session's protocol state is sealed in its row with the server key, bound to the
/// session, the key and the state: edited in the SQLite file — copied to another session, or an
/// older state's blob written over a newer one — it does not open, and no c3 goes out.
final class SessionStateSealingTests: CoSignerHTTPTestCase {
    private func client(_ token: String) -> ThresholdClient {
        ThresholdClient(server: URL(string: base)!, transport: transport, attestation: devices[token])
    }

    private func newSession(_ share: ClientKeyShare, digest: [UInt8]) async throws -> String {
        let answer = try await ThresholdClient(server: URL(string: base)!, transport: transport)
            .call(
                "POST", "v3/rp/session",
                ["keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest), "displayText": "t"],
                apiKey: rpKey)
        return try XCTUnwrap(answer["sessionID"] as? String)
    }

    private func step(
        _ token: String, _ id: String, _ step: String, _ message: [String: String]
    ) async throws -> [String: String] {
        let answer = try await client(token).call(
            "POST", "v3/mobile/session/\(id)/sign/\(step)", ["message": message], token: token)
        return (answer["message"] as? [String: String]) ?? [:]
    }

    private func refusal(_ work: () async throws -> Void) async -> (Int, String)? {
        do {
            try await work()
            return nil
        } catch CoreError.serviceRefused(_, _, let status, let code, _) { return (status, code) } catch {
            return (0, "\(error)")
        }
    }

    private func row(_ id: String) throws -> (state: String?, sealed: [UInt8]?) {
        let row = try XCTUnwrap(
            service.store.database.query("SELECT state, protocol_state FROM sessions WHERE id = ?", [.text(id)]).first)
        return (row[0].text, row[1].blob)
    }

    private func write(_ id: String, sealed: [UInt8]) throws {
        XCTAssertEqual(
            try service.store.database.execute(
                "UPDATE sessions SET protocol_state = ? WHERE id = ?", [.blob(sealed), .text(id)]), 1)
    }

    /// A committed session's sealed k2 copied into another committed session of the same key:
    /// prove there is refused (422 session-state-unreadable), the session FAILED, no c3, and the
    /// key stays usable; the state as it was opens (the same prove succeeds on the original row).
    func testAStateCopiedToAnotherSessionDoesNotOpen() async throws {
        let (share, token) = try await enroll(document: "38001085718")
        let digest = [UInt8](repeating: 0x11, count: 32)
        let first = try await newSession(share, digest: digest)
        let signing1 = try ClientSigning(share: share.publicShare, digest: digest, guard: MemoryGuardForService())
        _ = try await step(token, first, "commit", WireFormat.encode(signing1.commitRequest))
        let copied = try XCTUnwrap(try row(first).sealed)
        XCTAssertEqual(try row(first).state, "COMMITTED")
        _ = try await client(token).call("POST", "v3/mobile/session/\(first)/sign/cancel", [:], token: token)
        XCTAssertNil(try row(first).sealed, "a cancelled session keeps no k2")

        let second = try await newSession(share, digest: digest)
        let signing2 = try ClientSigning(share: share.publicShare, digest: digest, guard: MemoryGuardForService())
        let committed = try await step(token, second, "commit", WireFormat.encode(signing2.commitRequest))
        let own = try XCTUnwrap(try row(second).sealed)
        let prove = WireFormat.encode(try signing2.prove(WireFormat.decodeSignCommitResponse(committed)))
        try write(second, sealed: copied)
        let refused = await refusal { _ = try await step(token, second, "prove", prove) }
        XCTAssertEqual(refused?.0, 422)
        XCTAssertEqual(refused?.1, "session-state-unreadable")
        XCTAssertEqual(try row(second).state, "FAILED")
        XCTAssertNil(try row(second).sealed)
        XCTAssertEqual(try service.store.loadKey(share.keyID)?.locked, false)

        // The control: the same steps with the row's own state sign.
        let third = try await newSession(share, digest: digest)
        let signing3 = try ClientSigning(share: share.publicShare, digest: digest, guard: MemoryGuardForService())
        let committed3 = try await step(token, third, "commit", WireFormat.encode(signing3.commitRequest))
        XCTAssertNotEqual(try row(third).sealed, own, "a fresh seal per state")
        let proved = try await step(
            token, third, "prove", WireFormat.encode(signing3.prove(WireFormat.decodeSignCommitResponse(committed3))))
        XCTAssertNotNil(try signing3.finish(WireFormat.decodeSignProveResponse(proved), secretKey: share.secretKey))
    }

    /// After prove the row holds only r (k2 is gone). The COMMITTED blob written back over the
    /// PROVED row does not open as PROVED: finish is refused (422), nothing is locked, and the
    /// real state written back lets the same finish complete.
    func testAnOlderStateReplayedOverANewerOneDoesNotOpen() async throws {
        let (share, token) = try await enroll(document: "38001085718")
        let digest = [UInt8](repeating: 0x22, count: 32)
        let id = try await newSession(share, digest: digest)
        let signing = try ClientSigning(share: share.publicShare, digest: digest, guard: MemoryGuardForService())
        let committed = try await step(token, id, "commit", WireFormat.encode(signing.commitRequest))
        let older = try XCTUnwrap(try row(id).sealed)
        let proved = try await step(
            token, id, "prove", WireFormat.encode(signing.prove(WireFormat.decodeSignCommitResponse(committed))))
        let newer = try XCTUnwrap(try row(id).sealed)
        XCTAssertEqual(try row(id).state, "PROVED")
        XCTAssertLessThan(newer.count, older.count, "the proved state holds r only, not k2")
        let signature = try signing.finish(WireFormat.decodeSignProveResponse(proved), secretKey: share.secretKey)
        let finish = WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: signature))

        try write(id, sealed: older)
        let refused = await refusal { _ = try await step(token, id, "finish", finish) }
        XCTAssertEqual(refused?.0, 422)
        XCTAssertEqual(refused?.1, "session-state-unreadable")
        XCTAssertEqual(try row(id).state, "PROVED")
        XCTAssertEqual(try service.store.loadKey(share.keyID)?.locked, false)

        try write(id, sealed: newer)
        _ = try await step(token, id, "finish", finish)
        XCTAssertEqual(try row(id).state, "COMPLETE")
        XCTAssertNil(try row(id).sealed)
    }

    /// A pending enrollment lives in the database (sealed): a replayed init is refused, complete
    /// uses it once (a second complete is refused) and leaves no x2 in the row; a pending
    /// enrollment whose sealed bytes were moved to another client nonce's row does not open.
    func testAPendingEnrollmentIsUsedOnceAndKeepsNoSecret() async throws {
        let device = try newDevice()
        let client = ThresholdClient(server: URL(string: base)!, transport: transport, attestation: device)
        func begin(_ code: String) async throws -> (ClientEnrollment, ThresholdMessage.EnrollInitResponse) {
            let enrollment = try ClientEnrollment(pid: Transcript.taggedHash("device", [Array(code.utf8)]))
            let answer = try await client.call(
                "POST", "v3/enrollment/init",
                ["code": code, "role": "sign", "message": WireFormat.encode(enrollment.initRequest)])
            let m1 = try XCTUnwrap(answer["message"] as? [String: Any])
            return (
                enrollment,
                try WireFormat.decodeEnrollInitResponse(
                    m1.compactMapValues { $0 as? String }, m1.compactMapValues { $0 as? [String] })
            )
        }
        func complete(
            _ code: String, _ enrollment: ClientEnrollment, _ response: ThresholdMessage.EnrollInitResponse
        ) async throws -> [String: Any] {
            let (object, lists) = try WireFormat.encode(enrollment.complete(response))
            return try await client.call(
                "POST", "v3/enrollment/complete",
                [
                    "code": code, "role": "sign", "clientNonce": WireFormat.hex(enrollment.initRequest.clientNonce),
                    "deviceKey": WireFormat.hex(Array(device.key.subjectPublicKeyInfo)),
                    "message": message(object, lists),
                ])
        }
        func pending(_ enrollment: ClientEnrollment) throws -> [SQLValue]? {
            try service.store.database.query(
                "SELECT state, pending FROM enrollments WHERE client_nonce = ?",
                [.text(WireFormat.hex(enrollment.initRequest.clientNonce))]
            ).first
        }
        let code = try service.store.issueEnrollmentCode(documentNumber: "38001085718")
        let (enrollment, response) = try await begin(code)
        XCTAssertEqual(try pending(enrollment)?[0], .text("INITIALISED"))
        let replayed = await refusal {
            _ = try await client.call(
                "POST", "v3/enrollment/init",
                ["code": code, "role": "sign", "message": WireFormat.encode(enrollment.initRequest)])
        }
        XCTAssertEqual(replayed?.0, 422, "a replayed init")

        // Another enrollment's sealed state moved into this one's row does not open.
        let code2 = try service.store.issueEnrollmentCode(documentNumber: "49001010000")
        let (other, otherResponse) = try await begin(code2)
        let own = try XCTUnwrap(try pending(enrollment)?[1].blob)
        try service.store.database.execute(
            "UPDATE enrollments SET pending = ? WHERE client_nonce = ?",
            [.blob(XCTUnwrap(try pending(other)?[1].blob)), .text(WireFormat.hex(enrollment.initRequest.clientNonce))])
        let moved = await refusal { _ = try await complete(code, enrollment, response) }
        XCTAssertEqual(moved?.0, 422, "a moved pending enrollment")
        XCTAssertNotEqual(own, try pending(other)?[1].blob)

        let (object, lists) = try WireFormat.encode(other.complete(otherResponse))
        let request: [String: Any] = [
            "code": code2, "clientNonce": WireFormat.hex(other.initRequest.clientNonce),
            "deviceKey": WireFormat.hex(Array(device.key.subjectPublicKeyInfo)), "message": message(object, lists),
        ]
        let answer = try await client.call("POST", "v3/enrollment/complete", request.merging(["role": "sign"]) { $1 })
        XCTAssertNotNil(answer["deviceToken"])
        XCTAssertEqual(try pending(other)?[0], .text("CONSUMED"))
        XCTAssertEqual(try pending(other)?[1], .null, "no x2 kept after complete")
        // The code may still enroll an auth key: the refusal is the pending enrollment's, used up.
        let again = await refusal {
            _ = try await client.call("POST", "v3/enrollment/complete", request.merging(["role": "auth"]) { $1 })
        }
        XCTAssertEqual(again?.0, 422, "a pending enrollment completes once")
    }
}
