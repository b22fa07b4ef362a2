import CoSigner
import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

/// What a caller holding nothing (no enrollment code, no device token, no API key) can make the
/// co-signer write: nothing. Before: `enrollment/complete` with a self-made device key and a
/// wrong code used up the attestation nonce (a `used_nonces` row) before the code was looked at,
/// 300 calls making 300 rows in 2.4 s.
final class UnauthenticatedWriteTests: CoSignerHTTPTestCase {
    /// Rows in every table of the SQLite store.
    func rowCounts() throws -> [String: Int64] {
        let tables = try service.store.database.query("SELECT name FROM sqlite_master WHERE type = 'table'").compactMap
        { $0.first?.text }
        XCTAssertTrue(tables.contains("used_nonces"), "\(tables)")
        var counts: [String: Int64] = [:]
        for table in tables {
            counts[table] =
                try service.store.database.query("SELECT count(*) FROM \"\(table)\"").first?.first?.integer ?? -1
        }
        return counts
    }

    func refusal(_ body: () async throws -> Void) async -> String {
        do {
            try await body()
            return "200"
        } catch CoreError.serviceRefused(_, _, let status, let code, _) {
            return "\(status) \(code)"
        } catch {
            return "\(error)"
        }
    }

    /// 300 `enrollment/complete` calls, each properly signed by a device key the caller made
    /// (over a fresh challenge nonce, so the signature check passes) but with a wrong code: each
    /// is 403 `bad-enrollment-code`, and no table gains a row — not `used_nonces` either.
    func testEnrollmentCompleteWithAWrongCodeWritesNothing() async throws {
        _ = try service.store.issueEnrollmentCode(documentNumber: "38001085718")  // a real code exists
        let before = try rowCounts()
        let device = try newDevice()
        let client = ThresholdClient(server: URL(string: base)!, transport: transport, attestation: device)
        let deviceKey = WireFormat.hex(Array(device.key.subjectPublicKeyInfo))
        var answers: [String: Int] = [:]
        for index in 0..<300 {
            let nonce = WireFormat.hex(Array(Digest.compute(.sha256, over: Data("client nonce \(index)".utf8)).bytes))
            let answer = await refusal {
                _ = try await client.call(
                    "POST", "v3/enrollment/complete",
                    [
                        "code": "WRONG\(100_000 + index)", "role": index % 2 == 0 ? "sign" : "auth",
                        "clientNonce": nonce, "deviceKey": deviceKey, "message": [:],
                    ])
            }
            answers[answer, default: 0] += 1
        }
        XCTAssertEqual(answers, ["403 bad-enrollment-code": 300])
        XCTAssertEqual(try rowCounts(), before, "nothing written, used_nonces included")
    }

    /// The other doors open to anyone: the challenge (stateless), `enrollment/init` with a wrong
    /// code, a relying party call with a wrong API key, a device call with an unknown token or a
    /// forged attestation. Each answers its 4xx and writes nothing.
    func testEveryUnauthenticatedCallWritesNothing() async throws {
        let (_, token) = try await enroll(document: "38001085718")
        let before = try rowCounts()
        var answers: [String: Int] = [:]
        let digest = WireFormat.hex([UInt8](repeating: 7, count: 32))
        for index in 0..<50 {
            let anonymous = ThresholdClient(server: URL(string: base)!, transport: transport)
            answers[
                await refusal { _ = try await anonymous.call("GET", "v3/attestation/challenge", nil) }, default: 0] += 1
            answers[
                await refusal {
                    _ = try await anonymous.call(
                        "POST", "v3/enrollment/init", ["code": "WRONG\(index)", "role": "sign", "message": [:]])
                }, default: 0] += 1
            answers[
                await refusal {
                    _ = try await anonymous.call(
                        "POST", "v3/rp/session", ["documentNumber": "38001085718", "digest": digest],
                        apiKey: "not-a-key-\(index)")
                }, default: 0] += 1
            answers[
                await refusal {
                    _ = try await anonymous.call(
                        "GET", "v3/mobile/pending/38001085718", nil, token: String(repeating: "a", count: 64))
                }, default: 0] += 1
            // The enrolled device's token with a signature of another key: the nonce is not used.
            let stranger = ThresholdClient(
                server: URL(string: base)!, transport: transport, attestation: try newDevice())
            answers[
                await refusal {
                    _ = try await stranger.call("GET", "v3/mobile/pending/38001085718", nil, token: token)
                }, default: 0] += 1
        }
        XCTAssertEqual(
            answers,
            [
                "200": 50, "403 bad-enrollment-code": 50, "401 rp-auth-required": 50, "403 bad-device-token": 50,
                "401 bad-attestation": 50,
            ])
        XCTAssertEqual(try rowCounts(), before, "nothing written")
    }
}
