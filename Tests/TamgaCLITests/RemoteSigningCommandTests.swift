import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

/// `tamga sign --with mobile-id:… / smart-id:…` against the Mobile-ID and Smart-ID simulators
/// (scripts/remote-signing-sim.py, TEST ONLY), with the loopback TSA and OCSP.
final class RemoteSigningCommandTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    private var folder: URL!
    private var simulator: Process?
    private var base: URL!

    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("remote-cli") }
    override func tearDown() {
        if let simulator { TestEnvironment.terminate(simulator) }
        TestEnvironment.removeFolder(folder)
    }

    private func startSimulator(_ extra: [String] = []) throws {
        let (process, url) = try TestEnvironment.startListeningServer("remote-signing-sim.py", ["--pki", TestEnvironment.fixture("pki"), "--exit-with-parent"] + extra)
        simulator = process
        base = url
    }

    private func phoneCode() throws -> String {
        let result = try TestEnvironment.run("/usr/bin/curl", ["-sk", base.appendingPathComponent("_sim/last-code").absoluteString])
        return try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: String])?["code"], result.output)
    }

    func testMobileIDWithFlagsAndSmartIDWithAConfigFileSignLTAndPrintThePhonesCode() throws {
        try startSimulator()
        let services = try TestServices()
        defer { services.stop() }
        let longTerm = ["--tsa", services.url("tsa").absoluteString, "--ocsp", services.url("ocsp").absoluteString, "--certs", TestEnvironment.pki("issuing-ca.cert.pem")]
        let document = try TestEnvironment.write("signed on a phone\n", named: "lease.txt", in: folder)

        let mid = folder.appendingPathComponent("mid.asice").path
        let signed = try TestEnvironment.run(binary, ["sign", mid, document, "--with", "mobile-id:+37200000766:30303039914",
                                                      "--service-url", base.appendingPathComponent("mid-api").absoluteString,
                                                      "--rp-uuid", "00000000-0000-0000-0000-000000000000", "--rp-name", "DEMO",
                                                      "--display-text", "Sign the lease"] + longTerm)
        XCTAssertEqual(signed.status, 0, signed.error)
        XCTAssertTrue(signed.error.contains("Verification code: \(try phoneCode())."), signed.error)
        XCTAssertEqual(try TestEnvironment.run(binary, ["verify", mid, "--trust", TestEnvironment.pki("root.cert.pem")]).status, 0)

        let config = try TestEnvironment.write("""
            {"smartID": {"url": "\(base.appendingPathComponent("smart-id-rp/v2").absoluteString)",
                         "relyingPartyUUID": "00000000-0000-0000-0000-000000000000", "relyingPartyName": "DEMO",
                         "displayText": "Sign the lease", "pollSeconds": 2, "timeoutSeconds": 10}}
            """, named: "remote.json", in: folder)
        let sid = folder.appendingPathComponent("sid.asice").path
        let smart = try TestEnvironment.run(binary, ["sign", sid, document, "--with", "smart-id:EE:30303039914", "--remote-config", config, "--json"] + longTerm)
        XCTAssertEqual(smart.status, 0, smart.error)
        try JSONOutputSchemaTests.conform(smart.output, to: "sign")
        XCTAssertTrue(smart.error.contains("confirm the certificate choice"), smart.error)
        XCTAssertTrue(smart.error.contains("Verification code: \(try phoneCode())."), smart.error)
        XCTAssertTrue(smart.output.contains("TEST SIGNER RSA2048"), smart.output)
        let check = try TestEnvironment.run(TestEnvironment.pyasicePython, [TestEnvironment.script("pyasice-check.py"), sid])
        XCTAssertEqual(check.status, 0, check.output + check.error)

        // The person declines: exit 130, the container untouched; no configuration: exit 2.
        let before = try TestEnvironment.bytes(sid)
        let refused = try TestEnvironment.run(binary, ["sign", sid, "--with", "smart-id:EE:30403039928", "--remote-config", config, "--json"] + longTerm)
        XCTAssertEqual(refused.status, 130, refused.error)
        XCTAssertTrue(refused.output.contains("\"code\" : \"user-refused\""), refused.output)
        XCTAssertEqual(try TestEnvironment.bytes(sid), before)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = folder.appendingPathComponent("empty").path
        let unconfigured = try TestEnvironment.run(binary, ["sign", sid, "--with", "mobile-id:+37200000766:30303039914"] + longTerm, environment: environment)
        XCTAssertEqual(unconfigured.status, 2, unconfigured.error)
        XCTAssertTrue(unconfigured.error.contains("--service-url"), unconfigured.error)
    }

    func testAProxyFromTheConfigFileCarriesEveryServiceCall() throws {
        try startSimulator()
        let log = folder.appendingPathComponent("proxy.log")
        let (proxy, proxyURL) = try TestEnvironment.startProxy(log: log)
        defer { TestEnvironment.terminate(proxy) }
        let config = try TestEnvironment.write("""
            {"mobileID": {"url": "\(base.appendingPathComponent("mid-api").absoluteString)", "proxy": "\(proxyURL)",
                          "relyingPartyUUID": "00000000-0000-0000-0000-000000000000", "relyingPartyName": "DEMO"}}
            """, named: "remote.json", in: folder)
        var environment = ProcessInfo.processInfo.environment
        for name in ["no_proxy", "NO_PROXY", "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"] { environment[name] = nil }
        let document = try TestEnvironment.write("via proxy\n", named: "p.txt", in: folder)
        let signed = try TestEnvironment.run(binary, ["sign", folder.appendingPathComponent("p.asice").path, document, "--with", "mobile-id:+37200000766:30303039914",
                                                      "--remote-config", config, "--profile", "B"], environment: environment)
        XCTAssertEqual(signed.status, 0, signed.error)
        let proxied = try String(contentsOf: log, encoding: .utf8)
        XCTAssertTrue(proxied.contains("proxied POST \(base.appendingPathComponent("mid-api/certificate").absoluteString)"), proxied)
        XCTAssertTrue(proxied.contains("proxied POST \(base.appendingPathComponent("mid-api/signature").absoluteString)"), proxied)
        XCTAssertTrue(proxied.contains("proxied GET \(base.appendingPathComponent("mid-api/signature/session").absoluteString)"), proxied)
    }

    func testTheServicesTLSCertificateIsPinned() throws {
        let key = folder.appendingPathComponent("tls.key").path, cert = folder.appendingPathComponent("tls.pem").path
        let other = folder.appendingPathComponent("other.pem").path, otherKey = folder.appendingPathComponent("other.key").path
        for (c, k) in [(cert, key), (other, otherKey)] {
            let made = try TestEnvironment.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                                                                   "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", k, "-out", c])
            XCTAssertEqual(made.status, 0, made.error)
        }
        try startSimulator(["--tls-cert", cert, "--tls-key", key])
        XCTAssertEqual(base.scheme, "https")
        let document = try TestEnvironment.write("pinned\n", named: "p.txt", in: folder)
        let arguments = ["--with", "mobile-id:+37200000766:30303039914", "--service-url", base.appendingPathComponent("mid-api").absoluteString,
                         "--rp-uuid", "00000000-0000-0000-0000-000000000000", "--rp-name", "DEMO", "--profile", "B"]
        let pinned = try TestEnvironment.run(binary, ["sign", folder.appendingPathComponent("a.asice").path, document, "--service-cert", cert] + arguments)
        XCTAssertEqual(pinned.status, 0, pinned.error)
        // The service's certificate is trusted system-wide here (SSL_CERT_FILE), so without a pin
        // the call goes through; a pin on another certificate must still refuse it — pinning
        // replaces the trust anchors, it does not add to them.
        var trusting = ProcessInfo.processInfo.environment
        trusting["SSL_CERT_FILE"] = cert
        let systemTrust = try TestEnvironment.run(binary, ["sign", folder.appendingPathComponent("c.asice").path, document] + arguments, environment: trusting)
        XCTAssertEqual(systemTrust.status, 0, systemTrust.error)
        let wrongPin = try TestEnvironment.run(binary, ["sign", folder.appendingPathComponent("b.asice").path, document, "--service-cert", other] + arguments,
                                               environment: trusting)
        XCTAssertEqual(wrongPin.status, 7, wrongPin.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("b.asice").path), "nothing written")
    }
}
