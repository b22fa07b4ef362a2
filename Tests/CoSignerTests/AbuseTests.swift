import CoSigner
import Foundation
import HTTPService
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The co-signer under abuse: slow clients, floods of sessions, text that would rewrite a
/// person's approval prompt, oversized requests.
final class AbuseTests: CoSignerHTTPTestCase {
    /// 300 connections from one address that trickle their headers cannot keep real requests
    /// out, and each is cut at the request deadline although it never goes quiet.
    func testTricklingClientsCannotHoldTheServer() async throws {
        let echo = try HTTPServer(perAddressLimit: 16, requestDeadline: 2) { _ in .json(["ok": true]) }
        defer { echo.stop() }
        var attackers: [Int32] = []
        defer { attackers.forEach { close($0) } }
        for _ in 0..<300 {
            guard let fd = try? RawConnection.open(from: "127.0.0.2", port: echo.port) else { continue }
            attackers.append(fd)
            _ = RawConnection.send(fd, "POST /v3/rp/session HTTP/1.1\r\nHost: x\r\n")
        }
        XCTAssertGreaterThan(attackers.count, 0)
        let started = Date()
        var answered = 0
        // Real requests from another address, while the attack goes on (a byte every 0.3 s).
        for round in 0..<8 {
            for fd in attackers { _ = RawConnection.send(fd, "X") }
            let (status, body) = try RawConnection.request(
                port: echo.port, "GET /v3/attestation/challenge HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            XCTAssertEqual(status, 200, "round \(round): \(body)")
            if status == 200 { answered += 1 }
            try await Task.sleep(nanoseconds: 300_000_000)
        }
        XCTAssertEqual(answered, 8)
        // Past the deadline every trickling connection has been shut, though it kept sending.
        let elapsed = Date().timeIntervalSince(started)
        if elapsed < 3.5 { try await Task.sleep(nanoseconds: UInt64((3.5 - elapsed) * 1e9)) }
        var cut = 0
        for fd in attackers {
            _ = RawConnection.send(fd, "X")
            if RawConnection.isClosed(fd) { cut += 1 }
        }
        XCTAssertEqual(cut, attackers.count, "connections that trickled past the deadline are closed")
    }

    /// 300 connections from one address that send whole headers announcing a 100 kB body, then
    /// trickle the body a byte at a time: the body is under the same deadline as the headers.
    func testTricklingBodiesCannotHoldTheServer() async throws {
        let report = try await trickleAttack(addresses: ["127.0.0.2"], perAddress: 300) { _ in
            "POST /v3/rp/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"
        }
        XCTAssertEqual(report.answered, report.rounds, "real requests are answered during the attack: \(report)")
        XCTAssertEqual(report.cut, report.attackers, "bodies trickled past the deadline are closed: \(report)")
    }

    /// 300 connections from 20 addresses (15 each: under the per-address limit, so only the
    /// deadline and the overall limit stand against them), half trickling headers, half bodies.
    /// They may take every slot until the deadline cuts them; from then on real requests are
    /// answered while the attackers keep trickling, and every attacker has been cut.
    func testTricklingFromManyAddressesIsCutAtTheDeadline() async throws {
        let addresses = (2...21).map { "127.0.0.\($0)" }
        let report = try await trickleAttack(addresses: addresses, perAddress: 15) { index in
            index % 2 == 0
                ? "POST /v3/rp/session HTTP/1.1\r\nHost: x\r\n"
                : "POST /v3/rp/session HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{"
        }
        XCTAssertEqual(
            report.answeredAfterDeadline, report.roundsAfterDeadline,
            "real requests after the deadline are answered: \(report)")
        XCTAssertGreaterThan(report.roundsAfterDeadline, 0, "\(report)")
        XCTAssertEqual(report.cut, report.attackers, "every trickling connection is closed at the deadline: \(report)")
    }

    struct TrickleReport: CustomStringConvertible {
        var attackers = 0, rounds = 0, answered = 0, roundsAfterDeadline = 0, answeredAfterDeadline = 0, cut = 0
        var description: String {
            "\(attackers) attackers, \(answered)/\(rounds) real requests answered (\(answeredAfterDeadline)/\(roundsAfterDeadline) after the deadline), \(cut) cut"
        }
    }

    /// Opens `perAddress` connections from each address, sends each its opening, then for about
    /// 3 s sends every attacker a byte each 0.3 s while a real request from 127.0.0.1 is made;
    /// at 3.5 s (the deadline is 2 s) counts the attackers the server has closed.
    func trickleAttack(addresses: [String], perAddress: Int, opening: (Int) -> String) async throws -> TrickleReport {
        let deadline: TimeInterval = 2
        let echo = try HTTPServer(perAddressLimit: 16, requestDeadline: deadline) { _ in .json(["ok": true]) }
        defer { echo.stop() }
        var attackers: [Int32] = []
        defer { attackers.forEach { close($0) } }
        let started = Date()
        for address in addresses {
            for _ in 0..<perAddress {
                guard let fd = try? RawConnection.open(from: address, port: echo.port) else { continue }
                // A connection over a limit is accepted by the kernel and closed by MHD: sending
                // to it may fail later, which is the point.
                _ = RawConnection.send(fd, opening(attackers.count))
                attackers.append(fd)
            }
        }
        var report = TrickleReport()
        report.attackers = attackers.count
        for _ in 0..<10 {
            for fd in attackers { _ = RawConnection.send(fd, "X") }
            let afterDeadline = Date().timeIntervalSince(started) > deadline + 0.5
            let status =
                (try? RawConnection.request(
                    port: echo.port, "GET /v3/attestation/challenge HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))?
                .0
            report.rounds += 1
            if status == 200 { report.answered += 1 }
            if afterDeadline {
                report.roundsAfterDeadline += 1
                if status == 200 { report.answeredAfterDeadline += 1 }
            }
            try await Task.sleep(nanoseconds: 300_000_000)
        }
        let elapsed = Date().timeIntervalSince(started)
        if elapsed < deadline + 1.5 { try await Task.sleep(nanoseconds: UInt64((deadline + 1.5 - elapsed) * 1e9)) }
        for fd in attackers {
            _ = RawConnection.send(fd, "X")
            if RawConnection.isClosed(fd) { report.cut += 1 }
        }
        return report
    }

    func testOversizedURLsAndHeadersAnswerJSON() throws {
        let longPath = "/v3/" + String(repeating: "a", count: 4000)
        let (status1, body1) = try RawConnection.request(
            port: server.port, "GET \(longPath) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        XCTAssertEqual(status1, 414)
        XCTAssertTrue(body1.contains("\"url-too-long\""), body1)
        let bigHeader = "X-Filler: " + String(repeating: "b", count: 20_000) + "\r\n"
        let (status2, body2) = try RawConnection.request(
            port: server.port,
            "GET /v3/attestation/challenge HTTP/1.1\r\nHost: x\r\n\(bigHeader)Connection: close\r\n\r\n")
        XCTAssertEqual(status2, 431)
        XCTAssertTrue(body2.contains("\"headers-too-large\""), body2)
    }

    func testDisplayTextThatCouldRewriteThePromptIsRefused() async throws {
        let (share, _) = try await enroll(document: "38001085718")
        let digest = WireFormat.hex([UInt8](repeating: 9, count: 32))
        for text in ["Pay 10 EUR\u{202E}000", "ok\u{1B}[2K\u{1B}[1Asign", "line\nbreak", "a\u{2066}b", "c1 \u{9B}31m"] {
            let (status, _) = try await call(
                "POST", "/v3/rp/session", ["keyID": WireFormat.hex(share.keyID), "digest": digest, "displayText": text])
            XCTAssertEqual(status, 400, text.debugDescription)
        }
        let (status, _) = try await call(
            "POST", "/v3/rp/session",
            ["keyID": WireFormat.hex(share.keyID), "digest": digest, "displayText": "Pay 10 EUR — Ülikooli 18"])
        XCTAssertEqual(status, 200)
    }

    func testRelyingPartyNamesAreCheckedAtRegistration() throws {
        XCTAssertThrowsError(try service.store.addRelyingParty(name: "Bank\u{1B}]0;x\u{07}"))
        XCTAssertThrowsError(try service.store.addRelyingParty(name: "Bank\u{202E}knaB"))
        XCTAssertThrowsError(
            try service.store.addRelyingParty(name: "test  BANK"), "differs from Test Bank only in case and spacing")
        XCTAssertThrowsError(try service.store.addRelyingParty(name: " Test Bank"))
        XCTAssertNoThrow(try service.store.addRelyingParty(name: "Test Bank 2"))
    }

    func testSessionsPerPersonAndPerRelyingPartyAreCappedAndRateLimited() async throws {
        let folder = try TestEnvironment.temporaryFolder("caps")
        defer { TestEnvironment.removeFolder(folder) }
        let store = try CoSignerStore(
            path: folder.appendingPathComponent("cosigner.db").path, serverKey: [UInt8](repeating: 5, count: 32))
        let capped = CoSignerService(
            store: store,
            party: try ServerParty(
                pid: Transcript.taggedHash("svc", [[2]]), ringPedersen: CoSignerStoreTests.ringPedersen),
            limits: .init(perRelyingParty: 5, perPerson: 3, creationRate: 0.001, creationBurst: 8))
        let shop = try store.addRelyingParty(name: "Shop")
        // Keys of two people, enrolled in process.
        var keys: [String] = []
        for document in ["1001", "1002"] {
            let (_, share) = try CoSignerStoreTests.enroll()
            try store.saveKey(share, documentNumber: document, role: .sign)
            keys.append(WireFormat.hex(share.keyID))
        }
        func open(_ key: String) -> Int {
            let body = try? JSONSerialization.data(withJSONObject: [
                "keyID": key, "digest": WireFormat.hex([UInt8](repeating: 1, count: 32)),
            ])
            return capped.handle(
                HTTPRequest(
                    method: "POST", path: "/v3/rp/session", headers: ["authorization": "Bearer \(shop)"],
                    body: Array(body ?? Data()))
            ).status
        }
        XCTAssertEqual((0..<3).map { _ in open(keys[0]) }, [200, 200, 200])
        XCTAssertEqual(open(keys[0]), 429, "a fourth session waiting for the same person")
        XCTAssertEqual((0..<2).map { _ in open(keys[1]) }, [200, 200])
        XCTAssertEqual(open(keys[1]), 429, "the relying party has five open sessions")
        // Every attempt takes from the burst of 8 (7 so far); at 0.001 a second nothing refills.
        try store.database.execute("UPDATE sessions SET state = 'EXPIRED'")
        XCTAssertEqual(open(keys[1]), 200)
        XCTAssertEqual(open(keys[1]), 429, "rate-limited although nothing is open any more")
    }

    /// Before: one relying party opening 200 sessions for one (guessable) document number held
    /// the person's 20 pending sessions for every relying party. Now it gets its share (5) and
    /// the rest are 429; four relying parties together can fill the person's 20, and a fifth with
    /// none waiting still opens its first; the device lists them all.
    func testOneRelyingPartyCannotFillAPersonsPendingSessions() async throws {
        let (_, token) = try await enroll(document: "38001085718")
        func open(_ apiKey: String, _ index: Int) async -> Int {
            let client = ThresholdClient(server: URL(string: base)!, transport: transport)
            do {
                _ = try await client.call(
                    "POST", "v3/rp/session",
                    [
                        "documentNumber": "38001085718", "displayText": "\(index)",
                        "digest": WireFormat.hex(
                            Array(Digest.compute(.sha256, over: Data("\(apiKey) \(index)".utf8)).bytes)),
                    ],
                    apiKey: apiKey)
                return 200
            } catch CoreError.serviceRefused(_, _, let status, let code, _) {
                XCTAssertEqual(code, "too-many-sessions")
                return status
            } catch {
                XCTFail("\(error)")
                return 0
            }
        }
        var statuses: [Int: Int] = [:]
        for index in 0..<200 { statuses[await open(rpKey, index), default: 0] += 1 }
        XCTAssertEqual(
            statuses, [200: 5, 429: 195], "Test Bank gets its share of the person's pending sessions, no more")
        // Three more relying parties fill the person's 20 with their shares.
        for name in ["Shop A", "Shop B", "Shop C"] {
            let key = try service.store.addRelyingParty(name: name)
            var opened = 0
            for index in 0..<8 where await open(key, index) == 200 { opened += 1 }
            XCTAssertEqual(opened, 5, name)
        }
        // The person's 20 are waiting: a relying party with one of them is refused, one with none
        // still opens its first, and only that.
        let again = await open(rpKey, 500)
        XCTAssertEqual(again, 429)
        let late = try service.store.addRelyingParty(name: "Late Shop")
        let first = await open(late, 0), second = await open(late, 1)
        XCTAssertEqual(first, 200, "a relying party with nothing waiting is never locked out by others")
        XCTAssertEqual(second, 429)
        let (_, pending) = try await call("GET", "/v3/mobile/pending/38001085718", token: token)
        XCTAssertEqual(pending["total"] as? Int, 21)
        let byParty = Dictionary(
            grouping: (pending["sessions"] as? [[String: Any]] ?? []).compactMap { $0["rpName"] as? String }, by: { $0 }
        ).mapValues(\.count)
        XCTAssertEqual(byParty, ["Test Bank": 5, "Shop A": 5, "Shop B": 5, "Shop C": 5, "Late Shop": 1])
    }

    /// A device's own sessions ("this device") are limited per person, not all devices together.
    func testOwnSessionsAreLimitedPerPersonNotAcrossEveryDevice() async throws {
        let (shareA, tokenA) = try await enroll(document: "1001")
        let (shareB, tokenB) = try await enroll(document: "1002")
        let capped = CoSignerService(
            store: service.store, party: service.party,
            limits: .init(perRelyingParty: 1, perPerson: 20, creationRate: 0.001, creationBurst: 2))
        let cappedServer = try HTTPServer { capped.handle($0) }
        defer { cappedServer.stop() }
        func open(_ share: ClientKeyShare, _ token: String, _ index: UInt8) async throws -> Int {
            let client = ThresholdClient(
                server: URL(string: "http://127.0.0.1:\(cappedServer.port)")!, transport: transport,
                attestation: devices[token])
            do {
                _ = try await client.call(
                    "POST", "v3/mobile/session",
                    [
                        "keyID": WireFormat.hex(share.keyID),
                        "digest": WireFormat.hex([UInt8](repeating: index, count: 32)),
                    ],
                    token: token)
                return 200
            } catch CoreError.serviceRefused(_, _, let status, _, _) {
                return status
            }
        }
        var statuses: [Int] = []
        for index in 0..<2 { statuses.append(try await open(shareA, tokenA, UInt8(index))) }
        for index in 0..<2 { statuses.append(try await open(shareB, tokenB, UInt8(10 + index))) }
        XCTAssertEqual(statuses, [200, 200, 200, 200], "each person has their own bucket and no relying-party cap")
        let third = try await open(shareA, tokenA, 99)
        XCTAssertEqual(third, 429, "but one person's burst is bounded")
    }

    func testThePendingListIsPaged() async throws {
        let (share, token) = try await enroll(document: "38001085718")
        for index in 0..<5 {
            let (status, _) = try await call(
                "POST", "/v3/rp/session",
                [
                    "keyID": WireFormat.hex(share.keyID),
                    "digest": WireFormat.hex([UInt8](repeating: UInt8(index), count: 32)),
                    "displayText": "session \(index)",
                ])
            XCTAssertEqual(status, 200)
        }
        let (_, first) = try await call("GET", "/v3/mobile/pending/38001085718?limit=2", token: token)
        XCTAssertEqual(
            (first["sessions"] as? [[String: Any]])?.compactMap { $0["displayText"] as? String },
            ["session 0", "session 1"])
        XCTAssertEqual(first["total"] as? Int, 5)
        XCTAssertEqual(first["next"] as? Int, 2)
        let (_, last) = try await call("GET", "/v3/mobile/pending/38001085718?limit=2&offset=4", token: token)
        XCTAssertEqual(
            (last["sessions"] as? [[String: Any]])?.compactMap { $0["displayText"] as? String }, ["session 4"])
        XCTAssertNil(last["next"])
    }
}
