import Foundation
import TamgaCore

#if canImport(Glibc)
import Glibc
#endif

/// Paths and helpers shared by the test targets: the repository, the test PKI in
/// `Fixtures/pki`, temporary folders, and running the independent tools (openssl, xmlsec1,
/// pyasice) that check what tamga produces.
public enum TestEnvironment {
    /// The repository root, found from this file's path.
    public static let repository: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Where SwiftPM put the built products (the test bundle sits beside them).
    public static var productsDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    public static func fixture(_ relative: String) -> String {
        repository.appendingPathComponent("Fixtures").appendingPathComponent(relative).path
    }

    public static func pki(_ name: String) -> String { fixture("pki/\(name)") }

    public static func script(_ name: String) -> String {
        repository.appendingPathComponent("scripts").appendingPathComponent(name).path
    }

    /// The pyasice venv made by `scripts/setup-pyasice.sh` (`make test` runs it first).
    public static var pyasicePython: String {
        let venv =
            ProcessInfo.processInfo.environment["PYASICE_VENV"]
            ?? repository.appendingPathComponent(".build/pyasice-venv").path
        return venv + "/bin/python"
    }

    /// The venv with python-xmlsec (libxmlsec1 1.3, which verifies RSA-PSS) made by
    /// `scripts/setup-xmlsec13.sh` (`make test` runs it first); for `scripts/xmlsec13-check.py`.
    public static var xmlsec13Python: String {
        let venv =
            ProcessInfo.processInfo.environment["XMLSEC13_VENV"]
            ?? repository.appendingPathComponent(".build/xmlsec13-venv").path
        return venv + "/bin/python"
    }

    public static func certificate(_ name: String) throws -> Certificate {
        try Certificate(derOrPEM: Data(contentsOf: URL(fileURLWithPath: pki("\(name).cert.pem"))))
    }

    public static func signer(_ name: String, algorithm: SignatureAlgorithm? = nil) throws -> SoftwareSigner {
        try SoftwareSigner(
            key: Data(contentsOf: URL(fileURLWithPath: pki("\(name).key.pem"))),
            certificate: certificate(name), algorithm: algorithm)
    }

    /// Trust in the test root with the issuing CA as an intermediate.
    public static func testTrust() throws -> TrustStore {
        TrustStore(anchors: [try certificate("root")], intermediates: [try certificate("issuing-ca")])
    }

    /// A fresh folder under the system temp folder; remove it with `removeFolder`.
    public static func temporaryFolder(_ label: String = "tamga-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    public static func removeFolder(_ url: URL) { try? FileManager.default.removeItem(at: url) }

    public struct ProcessResult {
        public let status: Int32
        public let output: String
        public let error: String
    }

    /// Runs a program to completion and captures its output.
    @discardableResult
    public static func run(
        _ executable: String, _ arguments: [String], input: Data? = nil,
        environment: [String: String]? = nil
    ) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        if let input { inPipe.fileHandleForWriting.write(input) }
        try inPipe.fileHandleForWriting.close()
        // Read both pipes before waiting, or a chatty child blocks on a full pipe.
        nonisolated(unsafe) var errData = Data()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
            error: String(decoding: errData, as: UTF8.self))
    }

    /// Writes text to a new file in `folder` and returns its path.
    @discardableResult
    public static func write(_ text: String, named name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Stops a child process by PID: SIGTERM, then SIGKILL after `grace` seconds. Polls with
    /// waitpid rather than Process.waitUntilExit, which spins a run loop and can hang on a
    /// task's thread.
    public static func terminate(_ process: Process, grace: TimeInterval = 10) {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(grace)
        while Date() < deadline {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno == ECHILD) { return }  // exited (reaped here or by Foundation)
            usleep(20_000)
        }
        kill(pid, SIGKILL)
    }

    /// Starts a Python test server from `scripts/` that prints one `listening URL` line once it
    /// accepts connections, and returns the process (stop it with `terminate`) and that URL.
    public static func startListeningServer(
        _ script: String, _ arguments: [String],
        environment: [String: String]? = nil
    ) throws -> (process: Process, url: URL) {
        try startListening(executable: "/usr/bin/python3", [Self.script(script)] + arguments, environment: environment)
    }

    /// Starts any program that prints one `listening URL` line once it accepts connections.
    /// `standardError` receives what it says on stderr (discarded when nil).
    public static func startListening(
        executable: String, _ arguments: [String],
        environment: [String: String]? = nil, standardError: Pipe? = nil
    ) throws -> (process: Process, url: URL) {
        let script = (executable as NSString).lastPathComponent
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = standardError ?? FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("listening "), let url = URL(string: String(text.dropFirst("listening ".count))) else {
            terminate(process)
            throw NSError(
                domain: "TestEnvironment", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "\(script) did not start: \(text)"])
        }
        return (process, url)
    }

    public static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// scripts/test-proxy.py on loopback, logging each forwarded request (`proxied METHOD URL`)
    /// to `log`; the caller stops it with `terminate`.
    /// `scripts/test-proxy.py`; with `connectTo`, every CONNECT tunnel goes to that loopback port.
    public static func startProxy(log: URL, connectTo: Int? = nil) throws -> (process: Process, url: String) {
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        proxy.arguments = [script("test-proxy.py")] + (connectTo.map { ["--connect-to", String($0)] } ?? [])
        let out = Pipe()
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: log.path])
        }
        proxy.standardOutput = out
        proxy.standardError = try FileHandle(forWritingTo: log)
        try proxy.run()
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        return (
            proxy, line.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "listening ", with: "")
        )
    }
}
