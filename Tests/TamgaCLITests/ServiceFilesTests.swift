import Foundation
import TamgaTestSupport
import XCTest

/// The files an operator runs the co-signer with: the systemd unit (checked by systemd's own
/// `systemd-analyze verify`, its hardening rated by `systemd-analyze security`, and its command
/// line run) and the README's HAProxy sample (checked by `haproxy -c`).
final class ServiceFilesTests: XCTestCase {
    static let unitFile = TestEnvironment.repository.appendingPathComponent("systemd/tamga-cosigner.service").path
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
    private func installedUnit() throws -> String {
        let text = try String(contentsOfFile: Self.unitFile, encoding: .utf8).replacingOccurrences(of: "/usr/bin/tamga", with: binary)
        return try TestEnvironment.write(text, named: "tamga-cosigner.service", in: folder)
    }

    /// `Key=value` settings of the [Service] section (a key given twice keeps every value).
    private func settings() throws -> [String: [String]] {
        let text = try String(contentsOfFile: Self.unitFile, encoding: .utf8)
        var section = "", result: [String: [String]] = [:]
        for line in text.split(separator: "\n").map(String.init) where !line.hasPrefix("#") {
            if line.hasPrefix("[") { section = line; continue }
            guard section == "[Service]", let equals = line.firstIndex(of: "=") else { continue }
            result[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
        return result
    }

    func testTheUnitVerifiesAndIsHardened() throws {
        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else { throw Self.missing("systemd-analyze (apt-get install systemd)") }
        let unit = try installedUnit()
        // --man=no: the manual page the unit names is installed beside it, not here.
        let verified = try TestEnvironment.run(analyze, ["verify", "--man=no", unit])
        XCTAssertEqual(verified.status, 0, verified.error)
        XCTAssertEqual(verified.error, "", "systemd has something to say about the unit (an unknown or misspelt setting is only a warning)")

        let settings = try settings()
        for (key, value) in [("DynamicUser", "yes"), ("User", "tamga-cosigner"), ("StateDirectory", "tamga-cosigner"), ("ProtectSystem", "strict"),
                             ("NoNewPrivileges", "yes"), ("CapabilityBoundingSet", ""), ("AmbientCapabilities", ""), ("Restart", "on-failure")] {
            XCTAssertEqual(settings[key], [value], key)
        }
        let security = try TestEnvironment.run(analyze, ["security", "--offline=yes", unit])
        let text = security.output + security.error
        let exposure = try XCTUnwrap(text.range(of: #"Overall exposure level for [^:]+: ([0-9.]+)"#, options: .regularExpression).map {
            Double(text[$0].split(separator: " ").last ?? "")
        } ?? nil, text.suffix(500).description)
        XCTAssertLessThanOrEqual(exposure, 2.0, "systemd rates the unit's exposure \(exposure) (0 best, 10 worst)")
    }

    /// The unit's ExecStart, with what systemd would put in (%S, the defaults of its
    /// variables), starts a co-signer that is ready.
    func testTheUnitsCommandLineServes() throws {
        let execStart = try XCTUnwrap(try settings()["ExecStart"]?.first)
        let state = folder.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state.appendingPathComponent("tamga-cosigner"), withIntermediateDirectories: true)
        let words = execStart.replacingOccurrences(of: "%S", with: state.path).replacingOccurrences(of: "${TAMGA_COSIGNER_PORT}", with: "0")
            .replacingOccurrences(of: "$TAMGA_COSIGNER_OPTIONS", with: "").split(separator: " ").map(String.init)
        XCTAssertEqual(words.first, "/usr/bin/tamga")
        let (process, url) = try TestEnvironment.startListening(executable: binary, Array(words.dropFirst()))
        defer { TestEnvironment.terminate(process) }
        let ready = try TestEnvironment.run("/usr/bin/curl", ["-sS", "--max-time", "20", "-w", "\n%{http_code}", url.appendingPathComponent("v3/ready").absoluteString])
        XCTAssertTrue(ready.output.hasSuffix("\n200"), ready.output + ready.error)
        XCTAssertTrue(FileManager.default.fileExists(atPath: state.appendingPathComponent("tamga-cosigner/cosigner.db.key").path), "the key is made in the state directory")
    }

    /// The README's HAProxy sample, with a certificate of the test's own, passes `haproxy -c`
    /// and checks the instances on /v3/ready.
    func testTheReadmesHAProxySampleIsValid() throws {
        let haproxy = "/usr/sbin/haproxy"
        guard FileManager.default.isExecutableFile(atPath: haproxy) else { throw Self.missing("haproxy (apt-get install haproxy)") }
        let readme = try String(contentsOf: TestEnvironment.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let block = try XCTUnwrap(readme.components(separatedBy: "```haproxy\n").dropFirst().first?.components(separatedBy: "```").first)
        XCTAssertTrue(block.contains("uri /v3/ready"), "the health check asks whether the instance is ready")
        XCTAssertTrue(block.contains("expect status 200"))
        // The instances learn each client's address from a PROXY v2 header (issue 27), which
        // they believe from HAProxy only; no pooled connection holds a slot for nobody.
        XCTAssertTrue(block.contains("send-proxy-v2"))
        XCTAssertTrue(block.contains("http-reuse never"))
        XCTAssertTrue(readme.contains("--trusted-proxy 127.0.0.1"))

        let key = folder.appendingPathComponent("tls.key").path, cert = folder.appendingPathComponent("tls.pem").path
        let made = try TestEnvironment.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                                                               "-subj", "/CN=cosigner.example", "-keyout", key, "-out", cert])
        XCTAssertEqual(made.status, 0, made.error)
        let bundle = try TestEnvironment.write(String(contentsOfFile: cert, encoding: .utf8) + String(contentsOfFile: key, encoding: .utf8), named: "bundle.pem", in: folder)
        XCTAssertTrue(block.contains("/etc/haproxy/tamga-cosigner.pem"))
        let config = try TestEnvironment.write(block.replacingOccurrences(of: "/etc/haproxy/tamga-cosigner.pem", with: bundle), named: "haproxy.cfg", in: folder)
        let checked = try TestEnvironment.run(haproxy, ["-c", "-f", config])
        XCTAssertEqual(checked.status, 0, checked.output + checked.error)
        XCTAssertTrue((checked.output + checked.error).contains("Configuration file is valid"), checked.output + checked.error)
        XCTAssertFalse((checked.output + checked.error).contains("[WARNING]"), checked.output + checked.error)

        // The check can fail: the same configuration with a misspelt keyword does not pass.
        let broken = try TestEnvironment.write(block.replacingOccurrences(of: "/etc/haproxy/tamga-cosigner.pem", with: bundle)
            .replacingOccurrences(of: "http-check expect", with: "http-check expekt"), named: "broken.cfg", in: folder)
        XCTAssertNotEqual(try TestEnvironment.run(haproxy, ["-c", "-f", broken]).status, 0)
    }
}
