import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// What the validation service's end-to-end tests share: a temporary folder, the test list of
/// lists of Fixtures/tsl/lotl served on loopback by scripts/test-trust-server.py (also the
/// proxy through which the signed pointers' host lists.tamga.test is reached), a trust cache
/// filled from it by `tamga trust update`, the loopback TSA and OCSP, containers signed with
/// Fixtures/pki ec-p256, and `tamga validation serve` processes talked to with curl.
final class ValidationServeHarness {
    let folder: URL
    let www: URL
    private var listServer: Process?
    let listURL: URL
    private(set) var services: TestServices?
    private var servers: [Process] = []
    var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    var cache: String { folder.appendingPathComponent("cache").path }

    init(_ name: String) throws {
        folder = try TestEnvironment.temporaryFolder(name)
        www = folder.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: www, withIntermediateDirectories: true)
        let (process, url) = try TestEnvironment.startListeningServer("test-trust-server.py", ["--root", www.path])
        listServer = process
        listURL = url
        for name in ["eu-lotl.xml", "EE.xml", "LV.xml"] { try publish(name, as: name) }
    }

    func stop() {
        stopServers()
        if let listServer { TestEnvironment.terminate(listServer) }
        services?.stop()
        TestEnvironment.removeFolder(folder)
    }

    func stopServers() {
        for server in servers { TestEnvironment.terminate(server) }
        servers = []
    }

    func lotl(_ name: String) -> String { TestEnvironment.fixture("tsl/lotl/\(name)") }

    /// Puts a fixture of Fixtures/tsl/lotl on the list server as `name`.
    func publish(_ fixture: String, as name: String) throws {
        let target = www.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: target)
        try FileManager.default.copyItem(atPath: lotl(fixture), toPath: target.path)
    }

    func tamga(_ words: [String]) async -> (ExitCode, String, String) {
        await runTamgaInProcess(words, environment: ["XDG_CACHE_HOME": cache])
    }

    /// `trust update` from the list server into the cache.
    func updateTrust() async {
        let (updated, _, error) = await tamga([
            "trust", "update", "--lotl", listURL.appendingPathComponent("eu-lotl.xml").absoluteString,
            "--proxy", listURL.absoluteString, "--lotl-cert", lotl("lotl-signer.cert.pem"), "--timeout", "3",
        ])
        XCTAssertEqual(updated, .success, error)
    }

    func loopbackServices() throws -> TestServices {
        if let services { return services }
        let started = try TestServices()
        services = started
        return started
    }

    /// An ASiC-E of `document` with `signatures` LT signatures of Fixtures/pki ec-p256, whose
    /// chain and OCSP the EE list anchors and whose time-stamp the LV list anchors.
    func signedContainer(
        named name: String = "signed.asice", document: String = "trust me\n", signatures: Int = 1,
        signOptions: [String] = []
    ) async throws -> String {
        let services = try loopbackServices()
        let file = try TestEnvironment.write(document, named: "a.txt", in: folder)
        let container = folder.appendingPathComponent(name).path
        let (created, _, createErr) = await tamga(["container", "create", container, file, "-q"])
        XCTAssertEqual(created, .success, createErr)
        for _ in 0..<signatures {
            let (signed, _, signErr) = await tamga(
                [
                    "sign", container, "--with", "key:\(TestEnvironment.pki("ec-p256.key.pem"))",
                    "--cert", TestEnvironment.pki("ec-p256.cert.pem"), "--certs",
                    TestEnvironment.pki("issuing-ca.cert.pem"),
                    "--tsa", services.url("tsa").absoluteString, "--ocsp", services.url("ocsp").absoluteString,
                ] + signOptions)
            XCTAssertEqual(signed, .success, signErr)
        }
        return container
    }

    /// A server's standard error, read as it comes so that a long test never fills the pipe.
    final class Collected: @unchecked Sendable {  // unchecked: `data` behind `lock`
        let pipe = Pipe()
        private let lock = NSLock()
        private var data = Data()
        init() {
            pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
                let chunk = handle.availableData
                guard let self else { return }
                self.lock.lock()
                self.data.append(chunk)
                self.lock.unlock()
            }
        }
        /// What was said, once the server stopped (with a moment for the last lines to arrive).
        var text: String {
            usleep(300_000)
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// `validation serve` with the cache as its trust and the list server as its proxy.
    func serve(_ extra: [String]) throws -> (URL, Collected) {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = cache
        for name in ["no_proxy", "NO_PROXY", "all_proxy", "ALL_PROXY", "HTTPS_PROXY", "HTTP_PROXY"] {
            environment[name] = nil
        }
        environment["http_proxy"] = listURL.absoluteString
        environment["https_proxy"] = listURL.absoluteString
        let errors = Collected()
        let (process, url) = try TestEnvironment.startListening(
            executable: binary, ["validation", "serve"] + extra, environment: environment, standardError: errors.pipe)
        servers.append(process)
        return (url, errors)
    }

    /// curl's GET: the status and the body.
    func get(_ url: URL, _ path: String) throws -> (Int, String) {
        let result = try TestEnvironment.run(
            "/usr/bin/curl",
            [
                "-s", "-S", "--max-time", "20", "-o", "-", "-w", "\n%{http_code}",
                url.appendingPathComponent(path).absoluteString,
            ])
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }

    /// curl's POST of a JSON object: the status and the parsed body.
    func post(_ url: URL, _ path: String, _ object: Any) throws -> (Int, Any?) {
        let file = folder.appendingPathComponent("request-\(UUID().uuidString).json").path
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: file))
        let result = try TestEnvironment.run(
            "/usr/bin/curl",
            [
                "-s", "-S", "--max-time", "60", "-o", "-", "-w", "\n%{http_code}", "-H",
                "Content-Type: application/json",
                "--data-binary", "@\(file)", url.appendingPathComponent(path).absoluteString,
            ])
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        return (
            Int(lines.last ?? "") ?? 0,
            try? JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8))
        )
    }

    /// POST /validate of a file: the status and the validationConclusion.
    func validate(_ url: URL, _ file: String, name: String, policy: String = "POLv3") throws -> (Int, [String: Any]) {
        let (status, body) = try post(
            url, "validate",
            [
                "document": try TestEnvironment.bytes(file).base64EncodedString(), "filename": name,
                "signaturePolicy": policy,
            ])
        let report = (body as? [String: Any])?["validationReport"] as? [String: Any]
        return (status, report?["validationConclusion"] as? [String: Any] ?? [:])
    }
}
