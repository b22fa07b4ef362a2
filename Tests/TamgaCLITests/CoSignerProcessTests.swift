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
        let (process, url) = try TestEnvironment.startListening(executable: binary, ["cosigner", "serve", "--db", database])
        return (process, url.absoluteString)
    }

    private func post(_ base: String, _ path: String, _ body: [String: Any], token: String? = nil) async throws -> [String: Any] {
        var headers = ["Content-Type": "application/json"]
        headers["X-Device-Token"] = token
        let data = try await HTTPTransport(timeout: 20).request(method: "POST", url: URL(string: base + path)!,
                                                                 body: try JSONSerialization.data(withJSONObject: body), headers: headers, service: "co-signer")
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testKeysAndTheServerIdentitySurviveKill9AndRestart() async throws {
        let (first, base) = try serve()
        let code = try TestEnvironment.run(binary, ["cosigner", "issue-code", "38001085718", "--db", database]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(code.count, 12, code)
        let client = try ClientEnrollment(pid: Transcript.taggedHash("device", [[9]]))
        let initAnswer = try await post(base, "/v3/enrollment/init", ["code": code, "role": "sign", "message": WireFormat.encode(client.initRequest)])
        let m1 = try XCTUnwrap(initAnswer["message"] as? [String: Any])
        let initResponse = try WireFormat.decodeEnrollInitResponse(m1.compactMapValues { $0 as? String }, m1.compactMapValues { $0 as? [String] })
        let pin = initResponse.ringPedersen.fingerprint
        let (o2, l2) = try WireFormat.encode(client.complete(initResponse))
        var message: [String: Any] = o2
        for (key, value) in l2 { message[key] = value }
        let completed = try await post(base, "/v3/enrollment/complete", ["code": code, "role": "sign", "clientNonce": WireFormat.hex(client.initRequest.clientNonce),
                                                                         "deviceKey": "00", "message": message])
        let share = try client.finish(WireFormat.decodeEnrollCompleteResponse(XCTUnwrap(completed["message"] as? [String: String])))
        let token = try XCTUnwrap(completed["deviceToken"] as? String)

        kill(first.processIdentifier, SIGKILL)   // no chance to tidy up
        TestEnvironment.terminate(first)

        let (second, base2) = try serve()
        defer { TestEnvironment.terminate(second) }
        // The same server identity: a client that pinned it enrolls again without re-checking Π^prm.
        let again = try ClientEnrollment(pid: Transcript.taggedHash("device", [[10]]), pinnedRingPedersen: pin)
        let code2 = try TestEnvironment.run(binary, ["cosigner", "issue-code", "49001010000", "--db", database]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let answer2 = try await post(base2, "/v3/enrollment/init", ["code": code2, "role": "sign", "message": WireFormat.encode(again.initRequest)])
        let m2 = try XCTUnwrap(answer2["message"] as? [String: Any])
        XCTAssertNoThrow(try again.complete(WireFormat.decodeEnrollInitResponse(m2.compactMapValues { $0 as? String }, m2.compactMapValues { $0 as? [String] })))
        // The key enrolled before the kill signs.
        let digest = Array(Digest.compute(.sha256, over: Data("after restart".utf8)).bytes)
        let session = try await post(base2, "/v3/rp/session", ["keyID": WireFormat.hex(share.keyID), "digest": WireFormat.hex(digest), "rpName": "rp", "displayText": "t"])
        let id = try XCTUnwrap(session["sessionID"] as? String)
        let signing = try ClientSigning(share: share.publicShare, digest: digest, guard: ShareStateFile(path: folder.appendingPathComponent("guard").path))
        let c = try await post(base2, "/v3/mobile/session/\(id)/sign/commit", ["message": WireFormat.encode(signing.commitRequest)], token: token)
        let prove = try signing.prove(WireFormat.decodeSignCommitResponse(XCTUnwrap(c["message"] as? [String: String])))
        let p = try await post(base2, "/v3/mobile/session/\(id)/sign/prove", ["message": WireFormat.encode(prove)], token: token)
        let signature = try signing.finish(WireFormat.decodeSignProveResponse(XCTUnwrap(p["message"] as? [String: String])), secretKey: share.secretKey)
        let done = try await post(base2, "/v3/mobile/session/\(id)/sign/finish", ["message": WireFormat.encode(ThresholdMessage.SignFinishRequest(signature: signature))], token: token)
        XCTAssertEqual(done["state"] as? String, "COMPLETE")
    }
}

/// The whole split-key flow with the binaries: `cosigner serve` with its CA, `cosigner
/// issue-code`, `threshold enroll`, `sign --with threshold:ACCOUNT` at LT, `verify`.
final class ThresholdCommandTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    func testEnrollAndSignWithTheSplitKeyFromTheCommandLine() throws {
        let folder = try TestEnvironment.temporaryFolder("threshold-cli")
        defer { TestEnvironment.removeFolder(folder) }
        let pki = folder.appendingPathComponent("pki")
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("pki"), toPath: pki.path)
        let services = try TestServices(pki: pki.path)
        defer { services.stop() }
        let database = folder.appendingPathComponent("cosigner.db").path
        let (server, url) = try TestEnvironment.startListening(executable: binary, [
            "cosigner", "serve", "--db", database, "--ca-cert", pki.appendingPathComponent("issuing-ca.cert.pem").path,
            "--ca-key", pki.appendingPathComponent("issuing-ca.key.pem").path, "--ca-index", pki.appendingPathComponent("issuing-ca.index.txt").path,
            "--ocsp", services.url("ocsp").absoluteString])
        defer { TestEnvironment.terminate(server) }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("xdg").path
        environment["TAMGA_PIN"] = "24680"
        let code = try TestEnvironment.run(binary, ["cosigner", "issue-code", "38001085718", "--db", database]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        let enrolled = try TestEnvironment.run(binary, ["threshold", "enroll", "--server", url.absoluteString, "--code", code, "--account", "38001085718"],
                                               environment: environment)
        XCTAssertEqual(enrolled.status, 0, enrolled.error)
        XCTAssertTrue(enrolled.output.contains("PNOEE-38001085718"), enrolled.output)
        XCTAssertTrue(enrolled.error.contains("enrollment 2/2"), "progress per round: \(enrolled.error)")
        let container = folder.appendingPathComponent("split.asice").path
        let document = try TestEnvironment.write("split key\n", named: "doc.txt", in: folder)
        let signed = try TestEnvironment.run(binary, ["sign", container, document, "--with", "threshold:38001085718", "--tsa", services.url("tsa").absoluteString,
                                                      "--ocsp", services.url("ocsp").absoluteString, "--certs", TestEnvironment.pki("issuing-ca.cert.pem")],
                                             environment: environment)
        XCTAssertEqual(signed.status, 0, signed.error)
        let verified = try TestEnvironment.run(binary, ["verify", container, "--trust", TestEnvironment.pki("root.cert.pem")])
        XCTAssertEqual(verified.status, 0, verified.output + verified.error)
        XCTAssertTrue(verified.output.contains("THRESHOLD SIGNING KEY"), verified.output)
        // A wrong PIN: exit 9, the container unchanged.
        let before = try TestEnvironment.bytes(container)
        environment["TAMGA_PIN"] = "11111"
        let wrong = try TestEnvironment.run(binary, ["sign", container, "--with", "threshold:38001085718", "--profile", "B"], environment: environment)
        XCTAssertEqual(wrong.status, 9, wrong.error)
        XCTAssertEqual(try TestEnvironment.bytes(container), before)

        // A relying party's session, listed and approved from the command line.
        environment["TAMGA_PIN"] = "24680"
        let keyID = try XCTUnwrap(try Data(contentsOf: folder.appendingPathComponent("xdg/tamga/threshold/38001085718/sign.public"))
            .withUnsafeBytes { try JSONSerialization.jsonObject(with: Data($0)) as? [String: String] }?["keyID"])
        let digest = Digest.compute(.sha256, over: Data("rp document".utf8)).hex
        let created = try TestEnvironment.run("/usr/bin/curl", ["-s", "-X", "POST", "-H", "Content-Type: application/json", "-d",
                                                                "{\"keyID\":\"\(keyID)\",\"digest\":\"\(digest)\",\"rpName\":\"Test Bank\",\"displayText\":\"Open an account\"}",
                                                                url.absoluteString + "/v3/rp/session"])
        let sessionID = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(created.output.utf8)) as? [String: String])?["sessionID"], created.output)
        let pending = try TestEnvironment.run(binary, ["threshold", "pending", "--account", "38001085718"], environment: environment)
        XCTAssertTrue(pending.output.contains(sessionID) && pending.output.contains("Test Bank: Open an account"), pending.output + pending.error)
        let approved = try TestEnvironment.run(binary, ["threshold", "approve", sessionID, "--account", "38001085718"], environment: environment)
        XCTAssertEqual(approved.status, 0, approved.error)
        XCTAssertTrue(approved.error.contains("Test Bank asks: Open an account"), approved.error)
        let result = try TestEnvironment.run("/usr/bin/curl", ["-s", url.absoluteString + "/v3/rp/session/" + sessionID])
        XCTAssertTrue(result.output.contains("\"state\":\"COMPLETE\""), result.output)
        let activity = try TestEnvironment.run(binary, ["threshold", "activity", "--account", "38001085718"], environment: environment)
        XCTAssertTrue(activity.output.contains("session-signed"), activity.output)

        // PIN management and deletion.
        environment["TAMGA_PIN"] = "99999"
        XCTAssertEqual(try TestEnvironment.run(binary, ["threshold", "verify-pin", "--account", "38001085718"], environment: environment).status, 9)
        environment["TAMGA_PIN"] = "24680"
        environment["TAMGA_NEW_PIN"] = "13579"
        XCTAssertEqual(try TestEnvironment.run(binary, ["threshold", "change-pin", "--account", "38001085718"], environment: environment).status, 0)
        environment["TAMGA_PIN"] = "13579"
        XCTAssertEqual(try TestEnvironment.run(binary, ["threshold", "verify-pin", "--account", "38001085718"], environment: environment).status, 0)
        XCTAssertEqual(try TestEnvironment.run(binary, ["threshold", "delete", "--account", "38001085718"], environment: environment).status, 0)
        let gone = try TestEnvironment.run(binary, ["sign", container, "--with", "threshold:38001085718", "--profile", "B"], environment: environment)
        XCTAssertEqual(gone.status, 3, gone.error)
    }
}

/// HTTPS co-signer: the device pins its TLS key at enrollment and refuses another one later.
final class CoSignerTLSTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    private func makeCertificate(in folder: URL, name: String) throws -> (String, String) {
        let key = folder.appendingPathComponent("\(name).key").path, cert = folder.appendingPathComponent("\(name).pem").path
        let made = try TestEnvironment.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                                                               "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert])
        XCTAssertEqual(made.status, 0, made.error)
        return (cert, key)
    }

    func testTheCoSignersKeyIsPinnedAtEnrollment() throws {
        let folder = try TestEnvironment.temporaryFolder("cosigner-tls")
        defer { TestEnvironment.removeFolder(folder) }
        let pki = folder.appendingPathComponent("pki")
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("pki"), toPath: pki.path)
        let services = try TestServices(pki: pki.path)
        defer { services.stop() }
        let (cert, key) = try makeCertificate(in: folder, name: "tls")
        let database = folder.appendingPathComponent("cosigner.db").path
        let serveArguments = ["cosigner", "serve", "--db", database, "--port", "0", "--ca-cert", pki.appendingPathComponent("issuing-ca.cert.pem").path,
                              "--ca-key", pki.appendingPathComponent("issuing-ca.key.pem").path, "--ca-index", pki.appendingPathComponent("issuing-ca.index.txt").path,
                              "--ocsp", services.url("ocsp").absoluteString]
        let (server, url) = try TestEnvironment.startListening(executable: binary, serveArguments + ["--tls-cert", cert, "--tls-key", key])
        XCTAssertEqual(url.scheme, "https")
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("xdg").path
        environment["TAMGA_PIN"] = "24680"
        let code = try TestEnvironment.run(binary, ["cosigner", "issue-code", "38001085718", "--db", database]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        // Without trusting its certificate the first contact is refused …
        let untrusted = try TestEnvironment.run(binary, ["threshold", "enroll", "--server", url.absoluteString, "--code", code, "--account", "a"], environment: environment)
        XCTAssertEqual(untrusted.status, 7, untrusted.error)
        // … with it, enrollment pins the key.
        let enrolled = try TestEnvironment.run(binary, ["threshold", "enroll", "--server", url.absoluteString, "--code", code, "--account", "a", "--ca-file", cert],
                                               environment: environment)
        XCTAssertEqual(enrolled.status, 0, enrolled.error)
        let document = try TestEnvironment.write("pinned\n", named: "p.txt", in: folder)
        let container = folder.appendingPathComponent("p.asice").path
        XCTAssertEqual(try TestEnvironment.run(binary, ["sign", container, document, "--with", "threshold:a", "--profile", "B"], environment: environment).status, 0)
        TestEnvironment.terminate(server)
        // The same co-signer with another TLS key on the same port: the device refuses to talk.
        let (otherCert, otherKey) = try makeCertificate(in: folder, name: "other")
        let (second, _) = try TestEnvironment.startListening(executable: binary, serveArguments.map { $0 == "0" ? String(url.port!) : $0 } + ["--tls-cert", otherCert, "--tls-key", otherKey])
        defer { TestEnvironment.terminate(second) }
        let refused = try TestEnvironment.run(binary, ["sign", container, "--with", "threshold:a", "--profile", "B"], environment: environment)
        XCTAssertEqual(refused.status, 7, refused.error)
        XCTAssertTrue(refused.error.contains("not the one pinned"), refused.error)
    }
}
