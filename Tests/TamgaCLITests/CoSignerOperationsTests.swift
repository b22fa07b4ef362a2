import CoSigner
import Foundation
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

@testable import TamgaCLI

/// Running the co-signer as an operator does, with the real binary and real SQLite files:
/// backup while it serves and restore into a new co-signer, what the first start says, and
/// instances that start together on one empty database.
final class CoSignerOperationsTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    private var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("cosigner-operations") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private func serve(_ database: String, standardError: Pipe? = nil) throws -> (Process, URL) {
        try TestEnvironment.startListening(
            executable: binary, ["cosigner", "serve", "--db", database], standardError: standardError)
    }

    /// One signature by `share` through the co-signer at `base`, checked under the key.
    private static func sign(
        _ text: String, base: URL, share: ClientKeyShare, registration: ThresholdClient.Registration,
        device: DeviceAttestation,
        rpKey: String, folder: URL
    ) async throws -> String {
        let client = ThresholdClient(server: base, attestation: device)
        let digest = Array(Digest.compute(.sha256, over: Data(text.utf8)).bytes)
        let session = try await client.call(
            "POST", "v3/rp/session",
            ["keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest), "displayText": text],
            apiKey: rpKey)
        let id = try XCTUnwrap(session["sessionID"] as? String)
        let signature = try await client.approve(
            sessionID: id, digest: digest, share: share.publicShare, token: registration.deviceToken,
            guard: ShareStateFile(path: folder.appendingPathComponent("guard-\(UUID().uuidString)").path)
        ) { share.secretKey }
        XCTAssertTrue(
            TwoPartySigning.verify(
                r: signature.r, s: signature.s, digest: try Digest(algorithm: .sha256, bytes: Data(digest)),
                publicKey: share.publicKey))
        return id
    }

    /// Signs one session after another until cancelled (or one fails); how many were signed.
    private static func signUntilCancelled(
        base: URL, share: ClientKeyShare, registration: ThresholdClient.Registration, device: DeviceAttestation,
        rpKey: String, folder: URL
    ) async -> Int {
        var signed = 0
        while !Task.isCancelled {
            guard
                (try? await sign(
                    "during \(signed)", base: base, share: share, registration: registration, device: device,
                    rpKey: rpKey, folder: folder)) != nil
            else { break }
            signed += 1
        }
        return signed
    }

    /// Enroll and sign, back up while the co-signer keeps signing, restore the backup into a
    /// new file, and a new co-signer on it signs with the key enrolled before the backup (and
    /// knows the session signed before it).
    func testABackupTakenWhileServingRestoresIntoACoSignerThatSignsWithItsKeys() async throws {
        let database = path("cosigner.db"), folder = self.folder!
        let (first, base) = try serve(database)
        defer { TestEnvironment.terminate(first) }
        let code = try TestEnvironment.run(binary, ["cosigner", "issue-code", "38001085718", "--db", database]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let rpKey = try TestEnvironment.run(binary, ["cosigner", "add-rp", "Bank", "--db", database]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let device = DeviceAttestation(key: try DeviceKey(file: path("device.key")))
        let (share, registration) = try await ThresholdClient(server: base, attestation: device)
            .enrollShare(code: code, role: .sign, clientPID: Transcript.taggedHash("device", [[1]]))
        let before = try await Self.sign(
            "before the backup", base: base, share: share, registration: registration, device: device, rpKey: rpKey,
            folder: folder)

        // Signing goes on while the backup is taken.
        let signing = Task { @Sendable in
            await Self.signUntilCancelled(
                base: base, share: share, registration: registration, device: device, rpKey: rpKey, folder: folder)
        }
        try await Task.sleep(nanoseconds: 200_000_000)
        let backup = path("backup.db")
        let made = try TestEnvironment.run(binary, ["cosigner", "backup", backup, "--db", database, "--json"])
        signing.cancel()
        let signedDuring = await signing.value
        XCTAssertEqual(made.status, 0, made.error)
        let report = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(made.output.utf8)) as? [String: Any], made.output)
        XCTAssertGreaterThan(report["bytes"] as? Int ?? 0, 0)
        XCTAssertEqual(
            (try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertGreaterThan(signedDuring, 0, "the co-signer kept signing while the backup ran")

        // Not over an existing file without --force; a PostgreSQL database is pg_dump's job.
        let again = try TestEnvironment.run(binary, ["cosigner", "backup", backup, "--db", database])
        XCTAssertEqual(again.status, 2, again.error)
        XCTAssertTrue(again.error.contains("--force"), again.error)
        XCTAssertEqual(
            try TestEnvironment.run(binary, ["cosigner", "backup", backup, "--db", database, "--force"]).status, 0)
        let postgres = try TestEnvironment.run(
            binary, ["cosigner", "backup", path("pg.db"), "--db", "postgresql://tamga@localhost/cosigner"])
        XCTAssertEqual(postgres.status, 2)
        XCTAssertTrue(postgres.error.contains("pg_dump"), postgres.error)

        TestEnvironment.terminate(first)
        let restoredDatabase = path("restored.db")
        let restored = try TestEnvironment.run(binary, ["cosigner", "restore", backup, "--db", restoredDatabase])
        XCTAssertEqual(restored.status, 0, restored.error)
        XCTAssertEqual(
            try TestEnvironment.run(binary, ["cosigner", "restore", backup, "--db", restoredDatabase]).status, 2,
            "no overwrite without --force")
        // the key travels separately
        try FileManager.default.copyItem(atPath: database + ".key", toPath: restoredDatabase + ".key")

        let (second, base2) = try serve(restoredDatabase)
        defer { TestEnvironment.terminate(second) }
        let after = try await Self.sign(
            "after the restore", base: base2, share: share, registration: registration, device: device, rpKey: rpKey,
            folder: folder)
        let client = ThresholdClient(server: base2, attestation: device)
        for id in [before, after] {
            let result = try await client.call("GET", "v3/rp/session/\(id)", nil, apiKey: rpKey)
            XCTAssertEqual(result["state"] as? String, "COMPLETE", id)
        }
    }

    /// The first start says what it is doing while it makes the parameters (plain lines when
    /// stderr is not a terminal); a second start on the same database makes none and says nothing of it.
    func testTheFirstStartSaysItIsMakingTheParametersAndLaterStartsDoNot() throws {
        let database = path("cosigner.db")
        var said: [String] = []
        for _ in 0..<2 {
            let errors = Pipe()
            let (process, _) = try serve(database, standardError: errors)
            TestEnvironment.terminate(process)
            said.append(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        }
        for line in [
            "first start: making the server's ring-Pedersen parameters", "safe prime 1 of 2 found",
            "safe prime 2 of 2 found", "ring-Pedersen parameters made in",
        ] {
            XCTAssertTrue(said[0].contains(line), said[0])
            XCTAssertFalse(said[1].contains(line), said[1])
        }
        XCTAssertFalse(
            said[0].contains("\r") || said[0].contains("\u{1B}"),
            "no terminal controls in a log: \(said[0].debugDescription)")
    }

    /// On a terminal, one line redrawn in place with the candidates tried, cleared at the end.
    func testOnATerminalTheProgressIsOneLineRedrawnInPlace() throws {
        final class Capture: @unchecked Sendable { var err = "" }  // unchecked: written by this thread only
        let capture = Capture()
        let terminal = Terminal(out: { _ in }, err: { capture.err += $0 }, interactiveErrors: true)
        _ = try ParameterProgress(terminal: terminal).make(random: SystemRandom())
        XCTAssertTrue(
            capture.err.contains("\r\u{1B}[Ktamga: safe prime 1 of 2: "), capture.err.prefix(300).debugDescription)
        XCTAssertTrue(capture.err.contains("candidates tried"))
        XCTAssertTrue(
            capture.err.hasSuffix(
                "\r\u{1B}[Ktamga: ring-Pedersen parameters made in "
                    + (capture.err.components(separatedBy: "made in ").last ?? "")))
    }

    /// Two instances started together on one empty database make their parameters at the same
    /// time, and end up serving one set: a device that pinned it at one enrolls at the other.
    func testTwoInstancesStartingOnAnEmptyDatabaseServeOneServerIdentity() async throws {
        let database = path("shared.db")
        // The key first, so the two do not race to make two different server keys.
        _ = try CoSignerStore.serverKey(file: database + ".key")
        // unchecked: each thread writes its own slots before the group is left
        final class Started: @unchecked Sendable {
            var instances: [(Process, URL)?] = [nil, nil]
            var failures: [String] = ["", ""]
        }
        let started = Started()
        let binary = self.binary
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let errors = Pipe()
            do {
                started.instances[index] = try TestEnvironment.startListening(
                    executable: binary, ["cosigner", "serve", "--db", database], standardError: errors)
            } catch {
                started.failures[index] =
                    "\(error): " + String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            }
        }
        let instances = started.instances.compactMap { $0 }
        defer { instances.forEach { TestEnvironment.terminate($0.0) } }
        XCTAssertEqual(instances.count, 2, "both instances started: \(started.failures)")
        guard instances.count == 2 else { return }
        let store = try CoSignerStore(path: database, serverKey: CoSignerStore.serverKey(file: database + ".key"))
        XCTAssertEqual(try store.database.query("SELECT COUNT(*) FROM server_identity").first?.first?.integer, 1)
        let codes = try (0..<2).map { try store.issueEnrollmentCode(documentNumber: "race-\($0)") }
        let device = DeviceAttestation(key: try DeviceKey(file: path("device.key")))
        let (_, atFirst) = try await ThresholdClient(server: instances[0].1, attestation: device)
            .enrollShare(code: codes[0], role: .sign, clientPID: Transcript.taggedHash("race", [[0]]))
        let pin = try XCTUnwrap(BigInt(hex: atFirst.ringPedersenPin)?.bytes(width: 32))
        let (_, atSecond) = try await ThresholdClient(server: instances[1].1, attestation: device)
            .enrollShare(
                code: codes[1], role: .sign, clientPID: Transcript.taggedHash("race", [[1]]), pinnedRingPedersen: pin)
        XCTAssertEqual(atSecond.ringPedersenPin, atFirst.ringPedersenPin)
    }
}
