import CoSigner
import Foundation
import HTTPService
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import Threshold

/// The PIN hardened through the co-signer, so that a copied account folder gives nothing
/// offline (docs/threshold-pin.md), with real parts: a co-signer on loopback over a real SQLite
/// file, a device whose account folder is copied as a thief would copy it.
class PINHardeningTests: XCTestCase {
    /// Which database the co-signer runs on (`PostgreSQLPINHardeningTests` says `.postgresql`).
    class var storeKind: TestStoreKind { .sqlite }
    var folder: URL!
    var server: HTTPServer!
    var service: CoSignerService!
    /// Every path the co-signer was asked for, in order.
    let requests = RequestLog()
    var base: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

    final class RequestLog: @unchecked Sendable {  // unchecked: `paths` behind `lock`
        private let lock = NSLock()
        private var paths: [String] = []
        func add(_ path: String) { lock.withLock { paths.append(path) } }
        var all: [String] { lock.withLock { paths } }
    }

    func start(limits: PINLimits = PINLimits()) throws {
        folder = try TestEnvironment.temporaryFolder("pin-hardening")
        let store = try CoSignerStore(
            url: type(of: self).storeKind.newDatabase(in: folder), serverKey: [UInt8](repeating: 9, count: 32))
        service = CoSignerService(
            store: store,
            party: try ServerParty(
                pid: Transcript.taggedHash("pin", [[1]]), ringPedersen: CoSignerStoreTests.ringPedersen),
            pinLimits: limits)
        let (handler, log) = (service!, requests)
        server = try HTTPServer { request in
            log.add(request.path)
            return handler.handle(request)
        }
    }

    override func tearDown() {
        server?.stop()
        if let folder { TestEnvironment.removeFolder(folder) }
        // XCTest keeps every test case object until the run ends: let go of the store (and
        // with it its PostgreSQL connections) now.
        (server, service) = (nil, nil)
    }

    func pin(_ text: String) -> SecretBytes { SecretBytes(Array(text.utf8)) }

    /// Enrolls a sign key for `account` as the device whose folder is under `root`: the protocol,
    /// then the share sealed under `pinText` hardened by this co-signer.
    func enrollDevice(
        account: String = "38001085718", pinText: String = "24680"
    ) async throws -> (ShareKeyStore, ThresholdClient.Registration) {
        let store = try ShareKeyStore(account: account, root: folder.appendingPathComponent("device"))
        let client = ThresholdClient(
            server: base, transport: HTTPTransport(timeout: 10), attestation: try store.deviceAttestation())
        let code = try service.store.issueEnrollmentCode(documentNumber: account)
        let (share, registration) = try await client.enrollShare(
            code: code, role: .sign, clientPID: Transcript.taggedHash("device", [Array(account.utf8)]))
        try await store.store(
            share, role: .sign, pin: pin(pinText),
            hardening: CoSignerPINHardening(client: client, token: registration.deviceToken))
        try store.saveRegistration(registration, role: .sign)
        return (store, registration)
    }

    /// A copy of the device's account folder, as a thief (or a backup) would take it.
    func copyFolder(_ store: ShareKeyStore, to name: String) throws -> ShareKeyStore {
        let root = folder.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: store.folder, to: root.appendingPathComponent(store.account))
        return try ShareKeyStore(account: store.account, root: root)
    }

    /// The hardening a holder of `store`'s folder gets: its device key and its token.
    func hardening(_ store: ShareKeyStore, server url: URL? = nil) throws -> CoSignerPINHardening {
        let registration = try store.registration(.sign)
        return CoSignerPINHardening(
            client: ThresholdClient(
                server: url ?? base, transport: HTTPTransport(timeout: 5), attestation: try store.deviceAttestation()),
            token: registration.deviceToken)
    }

    func unconfirmed(_ store: ShareKeyStore) throws -> Int64? {
        let keyID = try store.publicShare(.sign).keyID
        return try service.store.database.query(
            "SELECT unconfirmed FROM pin_guards WHERE key_id = ?", [.text(Hex.encode(keyID))]
        ).first?.first?.integer
    }

    /// The copied folder with the right PIN does not open without the co-signer: not through
    /// the PIN's PBKDF2 alone (the old seal), not with another co-signer's OPRF key, not when
    /// the co-signer cannot be reached — and an unreachable co-signer costs no local try.
    func testACopiedFolderWithTheRightPINDoesNotOpenWithoutTheCoSigner() async throws {
        try start()
        let (device, _) = try await enrollDevice()
        let copy = try copyFolder(device, to: "thief")
        let sealed = Array(try Data(contentsOf: copy.folder.appendingPathComponent("sign.share")))
        XCTAssertEqual(sealed.first, 2)
        let body = Array(sealed.dropFirst()), salt = Array(body.prefix(16)), boxed = Array(body.dropFirst(16))
        let keyID = try copy.publicShare(.sign).keyID
        let aad = copy.additionalData(role: .sign, keyID: keyID)
        // 1. The PIN's PBKDF2 key alone (what sealed a share before) does not open it.
        var stretched = try SealedBox.deriveKey(pin: pin("24680"), salt: salt)
        defer { wipe(&stretched) }
        XCTAssertNil(try SealedBox.open(boxed, key: stretched, additionalData: aad))
        XCTAssertNil(try SealedBox.open(boxed, key: stretched, additionalData: []))
        // 2. Nor an OPRF evaluation by any key but this co-signer's (the thief's own server).
        let input = PINKeys.oprfInput(pin: pin("24680"), account: copy.account, role: .sign, keyID: keyID)
        let blinded = try OPRF.blind(input, random: SystemRandom())
        let forged = try OPRF.finalize(
            input, blind: blinded.blind, evaluated: OPRF.evaluate(blinded.element, key: BigInt(UInt(123_456_789))))
        var forgedKeys = try PINKeys.derive(pin: pin("24680"), salt: salt, hardened: forged)
        defer { forgedKeys.erase() }
        XCTAssertNil(try SealedBox.open(boxed, key: forgedKeys.sealKey, additionalData: aad))
        // 3. Through the store with the co-signer out of reach: refused, nothing counted.
        let offline = try hardening(copy, server: URL(string: "http://127.0.0.1:1")!)
        do {
            _ = try await copy.unlock(.sign, pin: pin("24680"), hardening: offline)
            XCTFail("opened without the co-signer")
        } catch ThresholdError.coSignerNeeded(let why) {
            XCTAssertFalse(why.isEmpty)
        }
        XCTAssertEqual(
            try String(contentsOf: copy.folder.appendingPathComponent("sign.pin-failures"), encoding: .utf8), "0\n",
            "no local try spent")
        XCTAssertTrue(ThresholdError.coSignerNeeded("x").description.contains("nothing was unlocked"))
        // The device itself, with the co-signer, opens it.
        _ = try await device.unlock(.sign, pin: pin("24680"), hardening: hardening(device))
    }

    /// A thief with the folder and its device key guesses through the co-signer: each guess is
    /// an evaluation, counted before it is answered; after five without a proof of the right
    /// PIN the co-signer refuses — even the right PIN, even with the local counter reset, and for
    /// the real device too. The person sees it in the activity log.
    func testAWrongPINSeriesHitsTheCoSignersLockout() async throws {
        try start()
        let (device, _) = try await enrollDevice()
        let copy = try copyFolder(device, to: "thief")
        let thief = try hardening(copy)
        for (index, guess) in ["00000", "11111", "12345", "54321", "99999"].enumerated() {
            do {
                _ = try await copy.unlock(.sign, pin: pin(guess), hardening: thief)
                XCTFail("\(guess) opened the share")
            } catch ThresholdError.wrongPIN(let left) {
                XCTAssertEqual(left, 4 - index, "the co-signer's count is the nearer limit")
            }
            // Resetting the local counter (it is only a file) does not help.
            try "0\n".write(
                to: copy.folder.appendingPathComponent("sign.pin-failures"), atomically: true, encoding: .utf8)
        }
        XCTAssertEqual(try unconfirmed(device), 5)
        let before = requests.all.count
        await assertThrows({ _ = try await copy.unlock(.sign, pin: self.pin("24680"), hardening: thief) }) {
            XCTAssertEqual($0 as? ThresholdError, .pinBlocked)
        }
        await assertThrows({
            _ = try await device.unlock(.sign, pin: self.pin("24680"), hardening: self.hardening(device))
        }) {
            XCTAssertEqual($0 as? ThresholdError, .pinBlocked, "blocked for the device too: enroll again")
        }
        XCTAssertEqual(try unconfirmed(device), 5, "refused evaluations are not answered and not counted further")
        XCTAssertTrue(
            requests.all.dropFirst(before).allSatisfy {
                $0 == "/v3/mobile/pin/evaluate" || $0 == "/v3/attestation/challenge"
            }, "\(requests.all.dropFirst(before))")
        let events = try service.store.activity(documentNumber: "38001085718").map(\.event)
        XCTAssertTrue(events.contains("pin-blocked"), "\(events)")
    }

    /// The right PIN resets the co-signer's count (by a proof over the last evaluation under
    /// the verifier registered at enrollment); a forged proof, a replayed one, or a thief's own
    /// verifier does not.
    func testTheCoSignersCounterResetsAfterTheRightPINOnly() async throws {
        try start(limits: PINLimits(maximumUnconfirmed: 5, rate: 100, burst: 100))  // the rate limit is another test's
        let (device, registration) = try await enrollDevice()
        let hardening = try hardening(device)
        for _ in 0..<4 {
            await assertThrows({ _ = try await device.unlock(.sign, pin: self.pin("11111"), hardening: hardening) })
        }
        XCTAssertEqual(try unconfirmed(device), 4)
        _ = try await device.unlock(.sign, pin: pin("24680"), hardening: hardening)
        XCTAssertEqual(try unconfirmed(device), 0, "the right PIN's proof reset the count")
        for _ in 0..<4 {
            await assertThrows({ _ = try await device.unlock(.sign, pin: self.pin("11111"), hardening: hardening) })
        }
        // would be the ninth try without the reset
        _ = try await device.unlock(.sign, pin: pin("24680"), hardening: hardening)
        XCTAssertEqual(try unconfirmed(device), 0)

        // Forged and replayed proofs, and a new verifier without the old PIN's proof.
        let keyID = try device.publicShare(.sign).keyID
        let input = PINKeys.oprfInput(pin: pin("00000"), account: device.account, role: .sign, keyID: keyID)
        let answer = try await hardening.evaluate(
            .init(keyID: keyID, blinded: try OPRF.blind(input, random: SystemRandom()).element))
        XCTAssertEqual(answer.attemptsLeft, 4)
        let mine = [UInt8](repeating: 0x42, count: 32)
        await assertThrows({
            try await hardening.confirm(
                .init(
                    keyID: keyID, attempt: answer.attempt,
                    proof: PINKeys.proof(authKey: mine, keyID: keyID, attempt: answer.attempt), verifier: mine))
        }) { error in
            guard case CoreError.serviceRefused(_, _, 422, "bad-pin-proof", _)? = error as? CoreError else {
                return XCTFail("a thief's own verifier: \(error)")
            }
        }
        await assertThrows({
            try await hardening.confirm(
                .init(keyID: keyID, attempt: answer.attempt, proof: [UInt8](repeating: 0, count: 32), verifier: nil))
        }) { error in
            guard case CoreError.serviceRefused(_, _, 409, "stale-pin-attempt", _)? = error as? CoreError else {
                return XCTFail("\(error)")
            }
        }
        XCTAssertEqual(try unconfirmed(device), 1, "still counted")
        _ = registration
        _ = try await device.unlock(.sign, pin: pin("24680"), hardening: hardening)
        XCTAssertEqual(try unconfirmed(device), 0)
        // The PIN changes with the co-signer's part: the old one no longer opens, the new one does.
        try await device.changePIN(.sign, old: pin("24680"), new: pin("97531"), hardening: hardening)
        await assertThrows({ _ = try await device.unlock(.sign, pin: self.pin("24680"), hardening: hardening) }) {
            XCTAssertEqual($0 as? ThresholdError, .wrongPIN(triesLeft: 4))
        }
        _ = try await device.unlock(.sign, pin: pin("97531"), hardening: hardening)
        XCTAssertEqual(try unconfirmed(device), 0)
    }

    /// Too-short PINs are refused before a single request: at enrollment (not even the
    /// enrollment's first step), at unlock and at PIN change.
    func testShortPINsAreRefusedBeforeAnyRequest() async throws {
        try start()
        let store = try ShareKeyStore(account: "short", root: folder.appendingPathComponent("device"))
        let code = try service.store.issueEnrollmentCode(documentNumber: "short")
        let client = ThresholdClient(server: base, transport: HTTPTransport(timeout: 10))
        await assertThrows({ _ = try await client.enroll(code: code, role: .sign, pin: self.pin("1234"), store: store) }
        ) {
            XCTAssertEqual($0 as? ThresholdError, .pinTooShort(role: "PIN2 (signing)", minimum: 5))
        }
        await assertThrows({ _ = try await client.enroll(code: code, role: .auth, pin: self.pin("123"), store: store) })
        {
            XCTAssertEqual($0 as? ThresholdError, .pinTooShort(role: "PIN1 (authentication)", minimum: 4))
        }
        XCTAssertEqual(requests.all, [], "nothing was sent")
        let (device, _) = try await enrollDevice()
        let sent = requests.all.count
        await assertThrows({
            _ = try await device.unlock(.sign, pin: self.pin("2468"), hardening: self.hardening(device))
        }) {
            XCTAssertEqual($0 as? ThresholdError, .pinTooShort(role: "PIN2 (signing)", minimum: 5))
        }
        await assertThrows({
            try await device.changePIN(
                .sign, old: self.pin("24680"), new: self.pin("1"), hardening: self.hardening(device))
        }) {
            XCTAssertEqual($0 as? ThresholdError, .pinTooShort(role: "PIN2 (signing)", minimum: 5))
        }
        XCTAssertEqual(requests.all.count, sent, "nothing was sent: \(requests.all.dropFirst(sent))")
        XCTAssertEqual(try unconfirmed(device), 0)
    }

    /// Tries after an unconfirmed one are rate-limited per key on top of the count; a device
    /// whose PINs are right is never slowed down.
    func testWrongPINTriesAreRateLimitedPerKey() async throws {
        try start(limits: PINLimits(maximumUnconfirmed: 50, rate: 0.01, burst: 3))
        let (device, _) = try await enrollDevice()
        let hardening = try hardening(device)
        // more than the burst: all confirmed
        for _ in 0..<6 { _ = try await device.unlock(.sign, pin: pin("24680"), hardening: hardening) }
        // The first wrong try starts from 0; the next three take the burst; the fifth waits.
        for _ in 0..<4 {
            await assertThrows({ _ = try await device.unlock(.sign, pin: self.pin("11111"), hardening: hardening) }) {
                guard case ThresholdError.wrongPIN? = $0 as? ThresholdError else { return XCTFail("\($0)") }
            }
        }
        do {
            _ = try await device.unlock(.sign, pin: pin("11111"), hardening: hardening)
            XCTFail("not rate-limited")
        } catch CoreError.serviceRefused(_, _, let status, let code, _) {
            XCTAssertEqual(status, 429)
            XCTAssertEqual(code, "rate-limited")
        }
        XCTAssertEqual(try unconfirmed(device), 4, "a refused try is not counted")
    }

    func assertThrows(
        _ body: () async throws -> Void, file: StaticString = #filePath, line: UInt = #line,
        _ check: (Error) -> Void = { _ in }
    ) async {
        do {
            try await body()
            XCTFail("no error thrown", file: file, line: line)
        } catch {
            check(error)
        }
    }
}
