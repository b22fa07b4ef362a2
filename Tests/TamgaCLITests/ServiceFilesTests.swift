import Foundation
import Glibc
import TamgaTestSupport
import XCTest

/// The files an operator runs the services with: the co-signer's and the validation service's
/// systemd units (checked by systemd's own `systemd-analyze verify`, their hardening rated by
/// `systemd-analyze security`, and their command lines run with a `NOTIFY_SOCKET` as systemd
/// gives one) and the README's HAProxy samples (checked by `haproxy -c`).
final class ServiceFilesTests: XCTestCase {
    static func unitFile(_ name: String) -> String {
        TestEnvironment.repository.appendingPathComponent("systemd/\(name).service").path
    }
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    private var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("service-files") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    /// make test installs the checkers (CHECK_PACKAGES): a missing one fails the test, so that a
    /// broken set-up is seen instead of passing as a skip.
    private static func missing(_ tool: String) -> Error {
        NSError(domain: "ServiceFilesTests", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(tool) is not installed"])
    }

    /// The unit as `make install` writes it, but starting the tamga under test.
    private func installedUnit(_ name: String) throws -> String {
        let text = try String(contentsOfFile: Self.unitFile(name), encoding: .utf8).replacingOccurrences(
            of: "/usr/bin/tamga", with: binary)
        return try TestEnvironment.write(text, named: "\(name).service", in: folder)
    }

    /// `Key=value` settings of the [Service] section (a key given twice keeps every value).
    private func settings(_ name: String) throws -> [String: [String]] {
        let text = try String(contentsOfFile: Self.unitFile(name), encoding: .utf8)
        var section = "", result: [String: [String]] = [:]
        for line in text.split(separator: "\n").map(String.init) where !line.hasPrefix("#") {
            if line.hasPrefix("[") {
                section = line
                continue
            }
            guard section == "[Service]", let equals = line.firstIndex(of: "=") else { continue }
            result[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
        return result
    }

    func testTheUnitsVerifyAndAreHardened() throws {
        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else {
            throw Self.missing("systemd-analyze (apt-get install systemd)")
        }
        let common = [
            ("ProtectSystem", "strict"), ("NoNewPrivileges", "yes"), ("CapabilityBoundingSet", ""),
            ("AmbientCapabilities", ""),
            ("Restart", "on-failure"), ("DynamicUser", "yes"), ("Type", "notify"), ("NotifyAccess", "main"),
            ("PrivateTmp", "yes"),
        ]
        for (name, own) in [
            ("tamga-cosigner", [("User", "tamga-cosigner"), ("StateDirectory", "tamga-cosigner")]),
            (
                "tamga-validation",
                [
                    ("User", "tamga-validation"), ("CacheDirectory", "tamga-validation"),
                    ("Environment", "XDG_CACHE_HOME=%C/tamga-validation"),
                ]
            ),
        ] {
            let unit = try installedUnit(name)
            // --man=no: the manual page the unit names is installed beside it, not here.
            let verified = try TestEnvironment.run(analyze, ["verify", "--man=no", unit])
            XCTAssertEqual(verified.status, 0, verified.error)
            XCTAssertEqual(
                verified.error, "",
                "systemd has something to say about \(name) (an unknown or misspelt setting is only a warning)")

            let settings = try settings(name)
            for (key, value) in common + own {
                XCTAssertTrue(
                    settings[key]?.contains(value) == true, "\(name): \(key)=\(value), not \(settings[key] ?? [])")
            }
            let security = try TestEnvironment.run(analyze, ["security", "--offline=yes", unit])
            let text = security.output + security.error
            let exposure = try XCTUnwrap(
                text.range(of: #"Overall exposure level for [^:]+: ([0-9.]+)"#, options: .regularExpression).map {
                    Double(text[$0].split(separator: " ").last ?? "")
                } ?? nil, text.suffix(500).description)
            XCTAssertLessThanOrEqual(exposure, 2.0, "systemd rates \(name)'s exposure \(exposure) (0 best, 10 worst)")
        }
    }

    /// A datagram socket where the service's READY=1 arrives, as systemd's NOTIFY_SOCKET.
    private final class NotifySocket {
        let path: String
        let descriptor: Int32
        init(in folder: URL) throws {
            path = folder.appendingPathComponent("notify.sock").path
            descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard descriptor >= 0, bound == 0 else { throw NSError(domain: "NotifySocket", code: Int(errno)) }
            var wait = timeval(tv_sec: 20, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        }
        /// The next message, or nil after 20 s.
        func receive() -> String? {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            return count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self) : nil
        }
        deinit { close(descriptor) }
    }

    /// A unit's ExecStart with what systemd would put in (%S and %C, the defaults of its
    /// variables), as words.
    private func execStart(_ name: String, port variable: String, options: String, state: URL) throws -> [String] {
        let execStart = try XCTUnwrap(try settings(name)["ExecStart"]?.first)
        return execStart.replacingOccurrences(of: "%S", with: state.path).replacingOccurrences(
            of: "${\(variable)}", with: "0"
        )
        .replacingOccurrences(of: "$\(options)", with: "").split(separator: " ").map(String.init)
    }

    /// The unit's ExecStart, with what systemd would put in, starts a co-signer that tells
    /// systemd it is ready (Type=notify) and is.
    func testTheUnitsCommandLineServes() throws {
        let state = folder.appendingPathComponent("state")
        try FileManager.default.createDirectory(
            at: state.appendingPathComponent("tamga-cosigner"), withIntermediateDirectories: true)
        let words = try execStart(
            "tamga-cosigner", port: "TAMGA_COSIGNER_PORT", options: "TAMGA_COSIGNER_OPTIONS", state: state)
        XCTAssertEqual(words.first, "/usr/bin/tamga")
        let notify = try NotifySocket(in: folder)
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        let (process, url) = try TestEnvironment.startListening(
            executable: binary, Array(words.dropFirst()), environment: environment)
        defer { TestEnvironment.terminate(process) }
        let message = try XCTUnwrap(notify.receive(), "no READY=1 on NOTIFY_SOCKET")
        XCTAssertTrue(message.split(separator: "\n").contains("READY=1"), message)
        XCTAssertTrue(message.contains("STATUS=listening http://127.0.0.1:\(url.port ?? 0)"), message)
        let ready = try TestEnvironment.run(
            "/usr/bin/curl",
            ["-sS", "--max-time", "20", "-w", "\n%{http_code}", url.appendingPathComponent("v3/ready").absoluteString])
        XCTAssertTrue(ready.output.hasSuffix("\n200"), ready.output + ready.error)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: state.appendingPathComponent("tamga-cosigner/cosigner.db.key").path),
            "the key is made in the state directory")
        // Stopped by systemd's SIGTERM: it says it is stopping.
        kill(process.processIdentifier, SIGTERM)
        XCTAssertEqual(notify.receive(), "STOPPING=1")
    }

    /// The validation unit's ExecStart, with its cache directory as XDG_CACHE_HOME and an
    /// empty cache (a first start), tells systemd it is ready, answers SiVa's health check, and
    /// says on /monitoring/ready that it has no trusted list yet (its first download from the
    /// EU's URL cannot succeed here).
    func testTheValidationUnitsCommandLineServes() throws {
        let words = try execStart(
            "tamga-validation", port: "TAMGA_VALIDATION_PORT", options: "TAMGA_VALIDATION_OPTIONS", state: folder)
        XCTAssertEqual(Array(words.prefix(3)), ["/usr/bin/tamga", "validation", "serve"])
        let notify = try NotifySocket(in: folder)
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = notify.path
        environment["XDG_CACHE_HOME"] = folder.appendingPathComponent("cache").path
        // Nothing leaves the machine: the first refresh's download goes to a proxy that is not there.
        environment["https_proxy"] = "http://127.0.0.1:9"
        environment["http_proxy"] = "http://127.0.0.1:9"
        let (process, url) = try TestEnvironment.startListening(
            executable: binary, Array(words.dropFirst()), environment: environment)
        defer { TestEnvironment.terminate(process) }
        let message = try XCTUnwrap(notify.receive(), "no READY=1 on NOTIFY_SOCKET")
        XCTAssertTrue(message.split(separator: "\n").contains("READY=1"), message)
        let health = try TestEnvironment.run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "20", "-w", "\n%{http_code}",
                url.appendingPathComponent("monitoring/health").absoluteString,
            ])
        XCTAssertTrue(health.output.hasSuffix("\n200"), health.output + health.error)
        let ready = try TestEnvironment.run(
            "/usr/bin/curl",
            [
                "-sS", "--max-time", "20", "-w", "\n%{http_code}",
                url.appendingPathComponent("monitoring/ready").absoluteString,
            ])
        XCTAssertTrue(ready.output.hasSuffix("\n503"), ready.output + ready.error)
        XCTAssertTrue(ready.output.contains("\"source\":\"cache\""), ready.output)
    }

    /// The README's HAProxy sample that names `certificate`, checked by `haproxy -c` with a
    /// certificate of the test's own; its health check asks `readyPath`.
    private func checkHAProxySample(certificate: String, readyPath: String) throws -> String {
        let haproxy = "/usr/sbin/haproxy"
        guard FileManager.default.isExecutableFile(atPath: haproxy) else {
            throw Self.missing("haproxy (apt-get install haproxy)")
        }
        let readme = try String(
            contentsOf: TestEnvironment.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```haproxy\n").dropFirst().compactMap {
            $0.components(separatedBy: "```").first
        }
        let block = try XCTUnwrap(blocks.first { $0.contains(certificate) }, "no HAProxy sample with \(certificate)")
        XCTAssertTrue(block.contains("uri \(readyPath)"), "the health check asks whether the instance is ready")
        XCTAssertTrue(block.contains("expect status 200"))
        // The instances learn each client's address (not HAProxy's) from a PROXY v2 header, which
        // they believe from HAProxy only; no pooled connection holds a slot for nobody.
        XCTAssertTrue(block.contains("send-proxy-v2"))
        XCTAssertTrue(block.contains("http-reuse never"))
        XCTAssertTrue(block.contains("http-request deny if { path /metrics }"), "the metrics stay inside")

        let key = folder.appendingPathComponent("tls.key").path, cert = folder.appendingPathComponent("tls.pem").path
        let made = try TestEnvironment.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=service.example", "-keyout", key, "-out", cert,
            ])
        XCTAssertEqual(made.status, 0, made.error)
        let bundle = try TestEnvironment.write(
            String(contentsOfFile: cert, encoding: .utf8) + String(contentsOfFile: key, encoding: .utf8),
            named: "bundle.pem", in: folder)
        let config = try TestEnvironment.write(
            block.replacingOccurrences(of: certificate, with: bundle), named: "haproxy.cfg", in: folder)
        let checked = try TestEnvironment.run(haproxy, ["-c", "-f", config])
        XCTAssertEqual(checked.status, 0, checked.output + checked.error)
        XCTAssertTrue(
            (checked.output + checked.error).contains("Configuration file is valid"), checked.output + checked.error)
        XCTAssertFalse((checked.output + checked.error).contains("[WARNING]"), checked.output + checked.error)

        // The check can fail: the same configuration with a misspelt keyword does not pass.
        let broken = try TestEnvironment.write(
            block.replacingOccurrences(of: certificate, with: bundle)
                .replacingOccurrences(of: "http-check expect", with: "http-check expekt"), named: "broken.cfg",
            in: folder)
        XCTAssertNotEqual(try TestEnvironment.run(haproxy, ["-c", "-f", broken]).status, 0)
        return readme
    }

    func testTheReadmesHAProxySampleIsValid() throws {
        let readme = try checkHAProxySample(certificate: "/etc/haproxy/tamga-cosigner.pem", readyPath: "/v3/ready")
        XCTAssertTrue(readme.contains("--trusted-proxy 127.0.0.1"))
    }

    /// The validation service's sample: checked the same way, and it turns away a body over
    /// the service's own bound before an instance reads it.
    func testTheReadmesValidationHAProxySampleIsValid() throws {
        let readme = try checkHAProxySample(
            certificate: "/etc/haproxy/tamga-validation.pem", readyPath: "/monitoring/ready")
        XCTAssertTrue(readme.contains("TAMGA_VALIDATION_OPTIONS=\"--trusted-proxy 127.0.0.1\""))
    }
}
