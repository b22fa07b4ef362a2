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
        let (process, url) = try TestEnvironment.startListeningServer(
            "remote-signing-sim.py", ["--pki", TestEnvironment.fixture("pki"), "--exit-with-parent"] + extra)
        simulator = process
        base = url
    }

    private func phoneCode() throws -> String {
        let result = try TestEnvironment.run(
            "/usr/bin/curl", ["-sk", base.appendingPathComponent("_sim/last-code").absoluteString])
        return try XCTUnwrap(
            (try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: String])?["code"],
            result.output)
    }

    func testMobileIDWithFlagsAndSmartIDWithAConfigFileSignLTAndPrintThePhonesCode() throws {
        try startSimulator()
        let services = try TestServices()
        defer { services.stop() }
        let longTerm = [
            "--tsa", services.url("tsa").absoluteString, "--ocsp", services.url("ocsp").absoluteString, "--certs",
            TestEnvironment.pki("issuing-ca.cert.pem"),
        ]
        let document = try TestEnvironment.write("signed on a phone\n", named: "lease.txt", in: folder)

        let mid = folder.appendingPathComponent("mid.asice").path
        let signed = try TestEnvironment.run(
            binary,
            [
                "sign", mid, document, "--with", "mobile-id:+37200000766:30303039914",
                "--service-url", base.appendingPathComponent("mid-api").absoluteString,
                "--rp-uuid", "00000000-0000-0000-0000-000000000000", "--rp-name", "DEMO",
                "--display-text", "Sign the lease",
            ] + longTerm)
        XCTAssertEqual(signed.status, 0, signed.error)
        XCTAssertTrue(signed.error.contains("Verification code: \(try phoneCode())."), signed.error)
        XCTAssertEqual(
            try TestEnvironment.run(binary, ["verify", mid, "--trust", TestEnvironment.pki("root.cert.pem")]).status, 0)

        let config = try TestEnvironment.write(
            """
            {"smartID": {"url": "\(base.appendingPathComponent("smart-id-rp/v2").absoluteString)", "apiVersion": "v2",
                         "relyingPartyUUID": "00000000-0000-0000-0000-000000000000", "relyingPartyName": "DEMO",
                         "displayText": "Sign the lease", "pollSeconds": 2, "timeoutSeconds": 10}}
            """, named: "remote.json", in: folder)
        let sid = folder.appendingPathComponent("sid.asice").path
        let smart = try TestEnvironment.run(
            binary,
            ["sign", sid, document, "--with", "smart-id:EE:30303039914", "--remote-config", config, "--json"] + longTerm
        )
        XCTAssertEqual(smart.status, 0, smart.error)
        try JSONOutputSchemaTests.conform(smart.output, to: "sign")
        XCTAssertTrue(smart.error.contains("confirm the certificate choice"), smart.error)
        XCTAssertTrue(smart.error.contains("Verification code: \(try phoneCode())."), smart.error)
        XCTAssertTrue(smart.output.contains("TEST SIGNER RSA2048"), smart.output)
        let check = try TestEnvironment.run(
            TestEnvironment.pyasicePython, [TestEnvironment.script("pyasice-check.py"), sid])
        XCTAssertEqual(check.status, 0, check.output + check.error)

        // The person declines: exit 130, the container untouched; no configuration: exit 2.
        let before = try TestEnvironment.bytes(sid)
        let refused = try TestEnvironment.run(
            binary, ["sign", sid, "--with", "smart-id:EE:30403039928", "--remote-config", config, "--json"] + longTerm)
        XCTAssertEqual(refused.status, 130, refused.error)
        XCTAssertTrue(refused.output.contains("\"code\" : \"user-refused\""), refused.output)
        XCTAssertEqual(try TestEnvironment.bytes(sid), before)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = folder.appendingPathComponent("empty").path
        let unconfigured = try TestEnvironment.run(
            binary, ["sign", sid, "--with", "mobile-id:+37200000766:30303039914"] + longTerm, environment: environment)
        XCTAssertEqual(unconfigured.status, 2, unconfigured.error)
        XCTAssertTrue(unconfigured.error.contains("--service-url"), unconfigured.error)
    }

    /// Smart-ID RP API v3 (the default) with SK's demo relying party: an LT container signed with
    /// RSA-PSS on the demo account's RSA-6144 key, checked by tamga, pyasice and libxmlsec1 1.3;
    /// the verification code printed is the service's. `--smart-id-api v2` against a v3 URL is a
    /// usage error before anything is sent.
    func testSmartIDV3WithTheDemoRelyingPartySignsLTAndV2IsAFlagAway() throws {
        try startSimulator()
        let services = try TestServices()
        defer { services.stop() }
        let longTerm = [
            "--tsa", services.url("tsa").absoluteString, "--ocsp", services.url("ocsp").absoluteString, "--certs",
            TestEnvironment.pki("issuing-ca.cert.pem"),
        ]
        let document = try TestEnvironment.write("signed on a phone\n", named: "lease.txt", in: folder)
        let demo = [
            "--service-url", base.appendingPathComponent("smart-id-rp/v3").absoluteString,
            "--rp-uuid", "00000000-0000-4000-8000-000000000000", "--rp-name", "DEMO", "--display-text",
            "Sign the lease",
        ]
        let sid = folder.appendingPathComponent("sid3.asice").path
        let signed = try TestEnvironment.run(
            binary, ["sign", sid, document, "--with", "smart-id:EE:40504040001", "--json"] + demo + longTerm)
        XCTAssertEqual(signed.status, 0, signed.error)
        try JSONOutputSchemaTests.conform(signed.output, to: "sign")
        XCTAssertTrue(signed.error.contains("Verification code: \(try phoneCode())."), signed.error)
        XCTAssertTrue(signed.output.contains("serialNumber=PNOEE-40504040001"), signed.output)
        XCTAssertTrue(signed.output.contains("\"algorithm\" : \"RSA-PSS with SHA-256\""), signed.output)
        let verified = try TestEnvironment.run(
            binary, ["verify", sid, "--trust", TestEnvironment.pki("root.cert.pem")])
        XCTAssertEqual(verified.status, 0, verified.output + verified.error)
        let pyasice = try TestEnvironment.run(
            TestEnvironment.pyasicePython, [TestEnvironment.script("pyasice-check.py"), sid])
        XCTAssertEqual(pyasice.status, 0, pyasice.output + pyasice.error)
        let xmlsec = try TestEnvironment.run(
            TestEnvironment.xmlsec13Python, [TestEnvironment.script("xmlsec13-check.py"), sid])
        XCTAssertEqual(xmlsec.status, 0, xmlsec.output + xmlsec.error)

        let mismatch = try TestEnvironment.run(
            binary,
            [
                "sign", folder.appendingPathComponent("x.asice").path, document, "--with", "smart-id:EE:40504040001",
                "--smart-id-api", "v2", "--profile", "B", "--json",
            ] + demo)
        XCTAssertEqual(mismatch.status, 2, mismatch.error)
        XCTAssertTrue(mismatch.output.contains("\"code\" : \"remote-bad-configuration\""), mismatch.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("x.asice").path))
        let flag = try TestEnvironment.run(
            binary,
            [
                "sign", folder.appendingPathComponent("v2.asice").path, document, "--with", "smart-id:EE:30303039914",
                "--smart-id-api", "v2", "--service-url", base.appendingPathComponent("smart-id-rp/v2").absoluteString,
                "--rp-uuid", "00000000-0000-0000-0000-000000000000", "--rp-name", "DEMO", "--profile", "B",
            ])
        XCTAssertEqual(flag.status, 0, flag.error)
        XCTAssertTrue(flag.output.contains("RSA PKCS#1 v1.5 with SHA-256"), flag.output)
    }

    /// The default pins: for the Smart-ID hosts only DigiCert Global Root G2 is trusted, whatever
    /// the system trusts. The simulator serves TLS under the names rp-api.smart-id.com and
    /// sid.example.test (a CONNECT proxy tunnels both to it) with a certificate the "system"
    /// trusts here (SSL_CERT_FILE): accepted for the other host, refused for Smart-ID's;
    /// `--service-cert` overrides; leaf pins (several, for a rotation) narrow the system's trust.
    func testSmartIDHostsArePinnedToTheirRootAndLeafPinsNarrowTheTrust() throws {
        let key = folder.appendingPathComponent("tls.key").path, cert = folder.appendingPathComponent("tls.pem").path
        let other = folder.appendingPathComponent("other.pem").path,
            otherKey = folder.appendingPathComponent("other.key").path
        for (c, k) in [(cert, key), (other, otherKey)] {
            let made = try TestEnvironment.run(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                    "-subj", "/CN=rp-api.smart-id.com", "-addext",
                    "subjectAltName=DNS:rp-api.smart-id.com,DNS:sid.example.test",
                    "-keyout", k, "-out", c,
                ])
            XCTAssertEqual(made.status, 0, made.error)
        }
        try startSimulator(["--tls-cert", cert, "--tls-key", key])
        let log = folder.appendingPathComponent("proxy.log")
        let (proxy, proxyURL) = try TestEnvironment.startProxy(log: log, connectTo: try XCTUnwrap(base.port))
        defer { TestEnvironment.terminate(proxy) }
        var trusting = ProcessInfo.processInfo.environment
        trusting["SSL_CERT_FILE"] = cert
        trusting["XDG_CONFIG_HOME"] = folder.appendingPathComponent("empty").path
        let document = try TestEnvironment.write("pinned\n", named: "p.txt", in: folder)
        func sign(_ host: String, _ extra: [String] = [], config: String? = nil) throws -> TestEnvironment.ProcessResult
        {
            let target = folder.appendingPathComponent("\(UUID().uuidString).asice").path
            let service =
                config.map { ["--remote-config", $0] }
                ?? [
                    "--service-url", "https://\(host)/smart-id-rp/v3", "--rp-uuid",
                    "00000000-0000-4000-8000-000000000000", "--rp-name", "DEMO",
                ]
            let result = try TestEnvironment.run(
                binary,
                ["sign", target, document, "--with", "smart-id:EE:40504040001", "--proxy", proxyURL, "--profile", "B"]
                    + service + extra,
                environment: trusting)
            if result.status != 0 { XCTAssertFalse(FileManager.default.fileExists(atPath: target), "nothing written") }
            return result
        }
        let elsewhere = try sign("sid.example.test")
        XCTAssertEqual(elsewhere.status, 0, "another host keeps the system's trust: " + elsewhere.error)
        let smartID = try sign("rp-api.smart-id.com")
        XCTAssertEqual(smartID.status, 7, smartID.error)
        XCTAssertTrue(smartID.error.contains("not trusted"), smartID.error)
        let overridden = try sign("rp-api.smart-id.com", ["--service-cert", cert])
        XCTAssertEqual(overridden.status, 0, "--service-cert replaces the default pins: " + overridden.error)
        XCTAssertTrue(try String(contentsOf: log, encoding: .utf8).contains("tunnel rp-api.smart-id.com:443"))

        func config(_ leaves: [String]) throws -> String {
            let list = leaves.map { "\"\($0)\"" }.joined(separator: ", ")
            return try TestEnvironment.write(
                """
                {"smartID": {"url": "https://sid.example.test/smart-id-rp/v3", "leafCertificates": [\(list)],
                             "relyingPartyUUID": "00000000-0000-4000-8000-000000000000", "relyingPartyName": "DEMO"}}
                """, named: "remote-\(leaves.count).json", in: folder)
        }
        let wrongLeaf = try sign("sid.example.test", config: try config(["other.pem"]))
        XCTAssertEqual(wrongLeaf.status, 7, wrongLeaf.error)
        XCTAssertTrue(wrongLeaf.error.contains("none of the pinned ones"), wrongLeaf.error)
        let rotation = try sign("sid.example.test", config: try config(["other.pem", "tls.pem"]))
        XCTAssertEqual(
            rotation.status, 0, "either of two pinned leaves (relative to the file's folder): " + rotation.error)
        // --service-cert is the whole statement of trust: the wrong leaf pin no longer applies, and that is said.
        let replaced = try sign("sid.example.test", ["--service-cert", cert], config: try config(["other.pem"]))
        XCTAssertEqual(replaced.status, 0, replaced.error)
        XCTAssertTrue(
            replaced.error.contains("warning: --service-cert replaces the leafCertificates in"), replaced.error)
    }

    /// `pollSeconds` and `timeoutSeconds` as whole numbers (JSON's 1 and 3) bound the wait for a
    /// phone that never answers; a value that is not a number of seconds is a usage error.
    func testTheConfigFilesWaitsAreWholeSecondsAndBoundTheWait() throws {
        try startSimulator()
        func config(_ poll: String, _ timeout: String) throws -> String {
            try TestEnvironment.write(
                """
                {"smartID": {"url": "\(base.appendingPathComponent("smart-id-rp/v3").absoluteString)", "pollSeconds": \(poll), "timeoutSeconds": \(timeout),
                             "relyingPartyUUID": "00000000-0000-4000-8000-000000000000", "relyingPartyName": "DEMO"}}
                """, named: "waits.json", in: folder)
        }
        let document = try TestEnvironment.write("never answered\n", named: "n.txt", in: folder)
        let started = Date()
        let waited = try TestEnvironment.run(
            binary,
            [
                "sign", folder.appendingPathComponent("n.asice").path, document, "--with", "smart-id:EE:30403039996",
                "--remote-config", try config("1", "3"), "--profile", "B", "--json",
            ])
        XCTAssertEqual(waited.status, 4, waited.error)
        XCTAssertTrue(waited.output.contains("\"code\" : \"remote-timeout\""), waited.output)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "timeoutSeconds 3 was honoured (the default is 150)")
        let wrong = try TestEnvironment.run(
            binary,
            [
                "sign", folder.appendingPathComponent("n.asice").path, document, "--with", "smart-id:EE:30403039996",
                "--remote-config", try config("\"soon\"", "3"), "--profile", "B",
            ])
        XCTAssertEqual(wrong.status, 2, wrong.error)
        XCTAssertTrue(wrong.error.contains("pollSeconds"), wrong.error)
    }

    func testAProxyFromTheConfigFileCarriesEveryServiceCall() throws {
        try startSimulator()
        let log = folder.appendingPathComponent("proxy.log")
        let (proxy, proxyURL) = try TestEnvironment.startProxy(log: log)
        defer { TestEnvironment.terminate(proxy) }
        let config = try TestEnvironment.write(
            """
            {"mobileID": {"url": "\(base.appendingPathComponent("mid-api").absoluteString)", "proxy": "\(proxyURL)",
                          "relyingPartyUUID": "00000000-0000-0000-0000-000000000000", "relyingPartyName": "DEMO"}}
            """, named: "remote.json", in: folder)
        var environment = ProcessInfo.processInfo.environment
        for name in ["no_proxy", "NO_PROXY", "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"] {
            environment[name] = nil
        }
        let document = try TestEnvironment.write("via proxy\n", named: "p.txt", in: folder)
        let signed = try TestEnvironment.run(
            binary,
            [
                "sign", folder.appendingPathComponent("p.asice").path, document, "--with",
                "mobile-id:+37200000766:30303039914",
                "--remote-config", config, "--profile", "B",
            ], environment: environment)
        XCTAssertEqual(signed.status, 0, signed.error)
        let proxied = try String(contentsOf: log, encoding: .utf8)
        XCTAssertTrue(
            proxied.contains("proxied POST \(base.appendingPathComponent("mid-api/certificate").absoluteString)"),
            proxied)
        XCTAssertTrue(
            proxied.contains("proxied POST \(base.appendingPathComponent("mid-api/signature").absoluteString)"), proxied
        )
        XCTAssertTrue(
            proxied.contains("proxied GET \(base.appendingPathComponent("mid-api/signature/session").absoluteString)"),
            proxied)
    }

    func testTheServicesTLSCertificateIsPinned() throws {
        let key = folder.appendingPathComponent("tls.key").path, cert = folder.appendingPathComponent("tls.pem").path
        let other = folder.appendingPathComponent("other.pem").path,
            otherKey = folder.appendingPathComponent("other.key").path
        for (c, k) in [(cert, key), (other, otherKey)] {
            let made = try TestEnvironment.run(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", k, "-out", c,
                ])
            XCTAssertEqual(made.status, 0, made.error)
        }
        try startSimulator(["--tls-cert", cert, "--tls-key", key])
        XCTAssertEqual(base.scheme, "https")
        let document = try TestEnvironment.write("pinned\n", named: "p.txt", in: folder)
        let arguments = [
            "--with", "mobile-id:+37200000766:30303039914", "--service-url",
            base.appendingPathComponent("mid-api").absoluteString,
            "--rp-uuid", "00000000-0000-0000-0000-000000000000", "--rp-name", "DEMO", "--profile", "B",
        ]
        let pinned = try TestEnvironment.run(
            binary,
            ["sign", folder.appendingPathComponent("a.asice").path, document, "--service-cert", cert] + arguments)
        XCTAssertEqual(pinned.status, 0, pinned.error)
        // The service's certificate is trusted system-wide here (SSL_CERT_FILE), so without a pin
        // the call goes through; a pin on another certificate must still refuse it — pinning
        // replaces the trust anchors, it does not add to them.
        var trusting = ProcessInfo.processInfo.environment
        trusting["SSL_CERT_FILE"] = cert
        let systemTrust = try TestEnvironment.run(
            binary, ["sign", folder.appendingPathComponent("c.asice").path, document] + arguments, environment: trusting
        )
        XCTAssertEqual(systemTrust.status, 0, systemTrust.error)
        let wrongPin = try TestEnvironment.run(
            binary,
            ["sign", folder.appendingPathComponent("b.asice").path, document, "--service-cert", other] + arguments,
            environment: trusting)
        XCTAssertEqual(wrongPin.status, 7, wrongPin.error)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("b.asice").path), "nothing written")
    }
}
