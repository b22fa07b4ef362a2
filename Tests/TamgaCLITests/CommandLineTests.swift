import ASiC
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// The commands run in-process with captured output, plus the real binary for exit codes.
final class CommandLineTests: XCTestCase {
    private var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("cli") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    private func tamga(_ words: [String], environment: [String: String] = [:]) async -> (ExitCode, String, String) {
        await runTamgaInProcess(words, environment: environment)
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private func createContainer(_ name: String = "c.asice") async throws -> String {
        let a = try TestEnvironment.write("alpha\n", named: "a.txt", in: folder)
        let b = try TestEnvironment.write("beta\n", named: "b ö.txt", in: folder)
        let (code, _, err) = await tamga(["container", "create", path(name), a, b, "-q"])
        XCTAssertEqual(code, .success, err)
        return path(name)
    }

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func testVersionAndHelpForEveryCommand() async {
        let (code, out, _) = await tamga(["--version"])
        XCTAssertEqual(code, .success)
        XCTAssertTrue(out.hasPrefix("tamga \(TamgaCommandLine.version) (commit "), out)
        for command in TamgaCommandLine.commands {
            let (code, out, _) = await tamga(command.path + ["--help"])
            XCTAssertEqual(code, .success)
            XCTAssertTrue(out.hasPrefix("Usage: tamga \(command.path.joined(separator: " "))"), out)
        }
        let (helpCode, helpOut, _) = await tamga(["help", "verify"])
        XCTAssertEqual(helpCode, .success)
        XCTAssertTrue(helpOut.contains("--trust FILE"))
    }

    func testTimeMarkResponderPoliciesAreAddedWithAFlag() async throws {
        // A time-mark answered by a responder whose policy is SK's test one, not the production one.
        let services = try TestServices()
        let container = path("tm.asice")
        let made = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                TestEnvironment.script("make-tm-container.py"), "--pki", TestEnvironment.fixture("pki"),
                "--ocsp", services.url("ocsp/tm-other-policy").absoluteString, "--out", container,
            ])
        services.stop()
        XCTAssertEqual(made.status, 0, made.error)
        let trust = [
            "--trust", TestEnvironment.pki("root.cert.pem"), "--certs", TestEnvironment.pki("issuing-ca.cert.pem"),
        ]
        let (refused, refusedOut, _) = await tamga(["verify", container] + trust)
        XCTAssertEqual(refused, .verificationFailed, refusedOut)
        XCTAssertTrue(refusedOut.contains("[time-mark-responder-policy]"), refusedOut)
        let (accepted, acceptedOut, _) = await tamga(
            ["verify", container, "--tm-responder-policy", "1.3.6.1.4.1.10015.3.1.1"] + trust)
        XCTAssertEqual(accepted, .success, acceptedOut)
        XCTAssertTrue(acceptedOut.contains("profile TM") && acceptedOut.contains("time-marked: "), acceptedOut)
        for bad in ["1.3.6.x", "urn:oid:1.2.3", "1", "1..2", "01.2"] {
            let (code, _, err) = await tamga(["verify", container, "--tm-responder-policy", bad] + trust)
            XCTAssertEqual(code, .usage, bad)
            XCTAssertTrue(err.contains("--tm-responder-policy"), err)
        }
        let (_, help, _) = await tamga(["help", "verify"])
        XCTAssertTrue(help.contains("--tm-responder-policy OID"), help)
    }

    /// A mistyped command is answered with the nearest one; a word near nothing
    /// gets no guess.
    func testAMistypedCommandSuggestsTheNearestOne() async {
        for (words, hint) in [
            (["verfy", "x.asice"], "Did you mean \"verify\"?"), (["sigm"], "Did you mean \"sign\"?"),
            (["container", "crate", "a.asice"], "(did you mean \"container create\"?)"),
            (["trust", "updte"], "(did you mean \"trust update\"?)"),
            (["cosigner", "serv"], "(did you mean \"cosigner serve\"?)"),
        ] {
            let (code, _, err) = await tamga(words)
            XCTAssertEqual(code, .usage, "\(words)")
            XCTAssertTrue(err.contains(hint), "\(words): \(err)")
        }
        for words in [["frobnicate"], ["container", "xyzzy"], ["x"]] {
            let (_, _, err) = await tamga(words)
            XCTAssertFalse(err.lowercased().contains("did you mean"), "\(words): \(err)")
        }
        XCTAssertEqual(
            NearestWord.distance(Array("verfiy"), Array("verify")), 1, "a swap of two neighbours is one edit")
    }

    /// --rsa-pss with an EC key is refused before anything is written (not ignored); with an
    /// RSA key it signs RSA-PSS.
    func testRSAPSSIsRefusedForAnECKey() async throws {
        let container = try await createContainer()
        let before = try TestEnvironment.bytes(container)
        let (code, _, err) = await tamga([
            "sign", container, "--with", "key:\(TestEnvironment.pki("ec-p256.key.pem"))",
            "--cert", TestEnvironment.pki("ec-p256.cert.pem"), "--profile", "B", "--rsa-pss",
        ])
        XCTAssertEqual(code, .usage, err)
        XCTAssertTrue(err.contains("--rsa-pss applies to RSA keys only"), err)
        XCTAssertEqual(try TestEnvironment.bytes(container), before, "nothing was signed")
        let (signed, out, signErr) = await tamga([
            "sign", container, "--with", "key:\(TestEnvironment.pki("rsa-2048.key.pem"))",
            "--cert", TestEnvironment.pki("rsa-2048.cert.pem"), "--profile", "B", "--rsa-pss", "--json",
        ])
        XCTAssertEqual(signed, .success, signErr)
        XCTAssertTrue(out.contains("PSS"), out)
    }

    /// A B-level signature: sign says verify will want --min-profile, and verify's refusal
    /// says how to accept it (a bare `profile-too-low` left people guessing).
    func testABLevelSignatureSaysWhatVerifyWillNeed() async throws {
        let container = try await createContainer()
        let (signed, _, signErr) = await tamga([
            "sign", container, "--with", "key:\(TestEnvironment.pki("ec-p256.key.pem"))",
            "--cert", TestEnvironment.pki("ec-p256.cert.pem"), "--profile", "B",
        ])
        XCTAssertEqual(signed, .success, signErr)
        XCTAssertTrue(
            signErr.contains("note: a B-level signature; `tamga verify` requires LT unless given --min-profile B"),
            signErr)
        let (quiet, _, quietErr) = await tamga([
            "sign", container, "--with", "key:\(TestEnvironment.pki("ec-p256.key.pem"))",
            "--cert", TestEnvironment.pki("ec-p256.cert.pem"), "--profile", "B", "-q",
        ])
        XCTAssertEqual(quiet, .success, quietErr)
        XCTAssertFalse(quietErr.contains("note:"), "-q: \(quietErr)")
        let (verified, text, _) = await tamga([
            "verify", container, "--trust", TestEnvironment.pki("root.cert.pem"),
            "--certs", TestEnvironment.pki("issuing-ca.cert.pem"),
        ])
        XCTAssertNotEqual(verified, .success)
        XCTAssertTrue(text.contains("[profile-too-low]"), text)
        XCTAssertTrue(text.contains("hint: to accept a B-level signature, verify with --min-profile B"), text)
    }

    /// Empty arrays and objects print as `[]` and `{}` (not over three lines), and nothing inside a
    /// string is touched.
    func testEmptyJSONCollectionsPrintOnOneLine() async throws {
        let container = try await createContainer()
        let (_, out, _) = await tamga(["container", "ls", container, "--json"])
        XCTAssertTrue(out.contains("\"signatures\" : []"), out)
        XCTAssertFalse(out.contains("[\n\n"), out)
        let text = #"{"a" : [\#n\#n  ], "b" : "[\n\n ]", "c" : {\#n  }, "d" : "\\", "e" : [\#n 1\#n]}"#
        let collapsed = String(decoding: Terminal.collapsingEmptyCollections(Data(text.utf8)), as: UTF8.self)
        XCTAssertEqual(collapsed, #"{"a" : [], "b" : "[\n\n ]", "c" : {}, "d" : "\\", "e" : [\#n 1\#n]}"#)
    }

    /// A wrong key-file password exits 9, as a refused PIN does (not 4), and is not retried.
    func testAWrongKeyFilePasswordExitsAsARefusedPIN() async throws {
        let container = try await createContainer()
        let password = try TestEnvironment.write("wrong\n", named: "password", in: folder)
        for key in [
            ["key:\(TestEnvironment.pki("rsa-2048.p12"))"],
            ["key:\(TestEnvironment.pki("rsa-2048.enc.key.pem"))", "--cert", TestEnvironment.pki("rsa-2048.cert.pem")],
        ] {
            let (code, _, err) = await tamga(
                ["sign", container, "--with"] + key + ["--profile", "B", "--pin-file", password])
            XCTAssertEqual(code, .pinRejected, err)
            XCTAssertEqual(code.rawValue, 9)
            XCTAssertTrue(err.contains("[wrong-password]") || err.contains("password for the key file is wrong"), err)
        }
    }

    /// A truncated container is said to be truncated once, not twice, and left as it was.
    func testATruncatedContainerSaysSoOnce() async throws {
        let container = try await createContainer()
        let truncated = path("truncated.asice")
        try TestEnvironment.bytes(container).prefix(300).write(to: URL(fileURLWithPath: truncated))
        for words in [["verify", truncated], ["container", "ls", truncated]] {
            let (code, _, err) = await tamga(words)
            XCTAssertEqual(code, .inputRejected, err)
            XCTAssertEqual(err.components(separatedBy: "truncated").count - 1, 1, err)
        }
        XCTAssertEqual(try TestEnvironment.bytes(truncated).count, 300)
    }

    /// verify -q is one line per container, -qq nothing; the exit code is the same.
    func testVerifyQuietIsOneLineAndSilentIsNothing() async throws {
        let container = try await createContainer()
        let (signed, _, signErr) = await tamga([
            "sign", container, "--with", "key:\(TestEnvironment.pki("ec-p256.key.pem"))",
            "--cert", TestEnvironment.pki("ec-p256.cert.pem"), "--profile", "B", "-q",
        ])
        XCTAssertEqual(signed, .success, signErr)
        let trust = [
            "--trust", TestEnvironment.pki("root.cert.pem"), "--certs", TestEnvironment.pki("issuing-ca.cert.pem"),
        ]
        let (full, fullOut, _) = await tamga(["verify", container, "--min-profile", "B"] + trust)
        let (quiet, quietOut, _) = await tamga(["verify", container, "--min-profile", "B", "-q"] + trust)
        let (silent, silentOut, silentErr) = await tamga(["verify", container, "--min-profile", "B", "-qq"] + trust)
        XCTAssertEqual(full, .success)
        XCTAssertEqual(quiet, full)
        XCTAssertEqual(silent, full)
        XCTAssertGreaterThan(fullOut.split(separator: "\n").count, 3)
        XCTAssertEqual(quietOut, "\(container): VALID\n")
        XCTAssertEqual(silentOut + silentErr, "")
        let (failed, failedOut, _) = await tamga(["verify", container, "-qq"] + trust)
        XCTAssertEqual(failed, .verificationFailed, "a B signature against the default LT")
        XCTAssertEqual(failedOut, "")
    }

    /// A self-made certificate without nonRepudiation is refused with the command that makes
    /// one that works, and that command's certificate signs.
    func testASelfMadeCertificateWithoutNonRepudiationIsToldHowToMakeOne() async throws {
        let container = try await createContainer()
        let key = path("me.key"), plain = path("plain.pem")
        XCTAssertEqual(
            try TestEnvironment.run(
                "/usr/bin/openssl", ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key]
            ).status, 0)
        XCTAssertEqual(
            try TestEnvironment.run(
                "/usr/bin/openssl", ["req", "-x509", "-key", key, "-subj", "/CN=Me", "-days", "2", "-out", plain]
            ).status, 0)
        let (refused, _, err) = await tamga([
            "sign", container, "--with", "key:\(key)", "--cert", plain, "--profile", "B",
        ])
        XCTAssertEqual(refused, .signingFailed, err)
        XCTAssertTrue(err.contains("-addext 'keyUsage=critical,nonRepudiation'"), err)
        // The command the message shows, with this key, makes a certificate that signs.
        let fixed = path("me.pem")
        let made = try TestEnvironment.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-key", key, "-subj", "/CN=Your Name", "-days", "365",
                "-addext", "keyUsage=critical,nonRepudiation", "-out", fixed,
            ])
        XCTAssertEqual(made.status, 0, made.error)
        let (signed, _, signErr) = await tamga([
            "sign", container, "--with", "key:\(key)", "--cert", fixed, "--profile", "B",
        ])
        XCTAssertEqual(signed, .success, signErr)
    }

    /// OpenSSL's strings are said in words in the text report; --verbose and --json keep them
    /// (they are what one searches for).
    func testOpenSSLStringsAreSaidInWords() async throws {
        XCTAssertEqual(
            OpenSSLWords.plain("OCSP: error:13800065:OCSP routines::certificate verify error"),
            "OCSP: the OCSP responder's certificate does not chain to a trusted CA")
        XCTAssertEqual(
            OpenSSLWords.plain(
                "META-INF/timestamp.tst does not verify: error:17800067:time stamp routines::message imprint mismatch"),
            "META-INF/timestamp.tst does not verify: the time-stamp covers other bytes than these")
        XCTAssertEqual(
            OpenSSLWords.plain("x (error:0A000086:SSL routines::certificate verify failed)"),
            "x (SSL: certificate verify failed)")
        XCTAssertEqual(
            OpenSSLWords.plain("the signer's certificate has expired"), "the signer's certificate has expired",
            "tamga's own words stay")
        XCTAssertEqual(OpenSSLWords.plain("error: not OpenSSL's"), "error: not OpenSSL's")
        let container = try await createContainer()
        let (signed, _, signErr) = await tamga([
            "sign", container, "--with", "key:\(TestEnvironment.pki("ec-p256.key.pem"))",
            "--cert", TestEnvironment.pki("ec-p256.cert.pem"), "--profile", "B", "-q",
        ])
        XCTAssertEqual(signed, .success, signErr)
        let untrusted = ["--trust", TestEnvironment.pki("tsa.cert.pem"), "--min-profile", "B"]
        let (_, text, _) = await tamga(["verify", container] + untrusted)
        XCTAssertTrue(text.contains("its issuer's certificate is not among the trusted or given certificates"), text)
        XCTAssertFalse(text.contains("unable to get local issuer certificate"), text)
        let (_, verbose, _) = await tamga(["verify", container, "-v"] + untrusted)
        XCTAssertTrue(verbose.contains("unable to get local issuer certificate"), verbose)
        let (_, json, _) = await tamga(["verify", container, "--json"] + untrusted)
        XCTAssertTrue(json.contains("unable to get local issuer certificate"), json)
    }

    /// Options that cannot apply to the chosen signer are refused before anything happens
    /// (a silently ignored --rsa-pss with an EC key once signed ECDSA with exit 0).
    func testOptionsThatDoNotApplyToTheSignerAreRefused() async throws {
        let container = try await createContainer()
        let before = try TestEnvironment.bytes(container)
        let key = [
            "--with", "key:\(TestEnvironment.pki("ec-p256.key.pem"))", "--cert",
            TestEnvironment.pki("ec-p256.cert.pem"), "--profile", "B",
        ]
        for (words, said) in [
            (
                key + ["--rp-uuid", "00000000-0000-0000-0000-000000000000"],
                "--rp-uuid goes with --with mobile-id or smart-id"
            ),
            (key + ["--service-url", "http://127.0.0.1:9"], "--service-url goes with --with mobile-id or smart-id"),
            (
                ["--with", "card", "--cert", TestEnvironment.pki("ec-p256.cert.pem")],
                "--cert goes with --with key:FILE"
            ),
            (["--with", "card", "--rsa-pss"], "--rsa-pss applies to RSA keys only"),
            (
                ["--with", "mobile-id:+37200000766:60001019906", "--pin-file", TestEnvironment.pki("ec-p256.key.pem")],
                "--pin-file does not apply to Mobile-ID or Smart-ID"
            ),
        ] {
            let (code, _, err) = await tamga(["sign", container] + words)
            XCTAssertEqual(code, .usage, "\(words): \(err)")
            XCTAssertTrue(err.contains(said), "\(words): \(err)")
        }
        XCTAssertEqual(try TestEnvironment.bytes(container), before)
    }

    /// docs/cli.md's config.json example is accepted as it stands (its relying party filled in,
    /// and a proxy that is not there, so that nothing leaves the machine); the example as it was
    /// (a …/v2 Smart-ID URL) is refused with the file and the key named.
    func testTheDocsConfigurationExampleIsAcceptedAndABadURLNamesTheFileAndKey() async throws {
        let docs = try String(
            contentsOf: TestEnvironment.repository.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let section = try XCTUnwrap(docs.components(separatedBy: "## Configuration\n").dropFirst().first)
        let example = try XCTUnwrap(
            section.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```").first)
        let configured = example.replacingOccurrences(
            of: "\"relyingPartyUUID\": \"…\"", with: "\"relyingPartyUUID\": \"00000000-0000-4000-8000-000000000000\""
        )
        .replacingOccurrences(
            of: "\"relyingPartyName\": \"…\"", with: "\"relyingPartyName\": \"DEMO\", \"proxy\": \"http://127.0.0.1:9\""
        )
        let home = folder.appendingPathComponent("config")
        try FileManager.default.createDirectory(
            at: home.appendingPathComponent("tamga"), withIntermediateDirectories: true)
        let file = home.appendingPathComponent("tamga/config.json")
        let container = try await createContainer()
        for (text, accepted) in [
            (configured, true),
            (configured.replacingOccurrences(of: "rp-api.smart-id.com/v3", with: "rp-api.smart-id.com/v2"), false),
        ] {
            try Data(text.utf8).write(to: file)
            let (code, _, err) = await tamga(
                ["sign", container, "--with", "smart-id:EE:30303039914", "--profile", "B"],
                environment: ["XDG_CONFIG_HOME": home.path])
            if accepted {
                XCTAssertNotEqual(code, .usage, "the example is refused: \(err)")
                XCTAssertEqual(code, .serviceFailed, "the proxy is not there: \(err)")
            } else {
                XCTAssertEqual(code, .usage, err)
                XCTAssertTrue(err.contains("smartID.url in \(file.path)"), err)
                XCTAssertTrue(err.contains("add \"apiVersion\": \"v2\""), err)
            }
        }
    }

    func testUsageErrorsExitWithTwo() async {
        for words in [
            ["frobnicate"], ["container"], ["verify"], ["verify", "x.asice", "--bogus"], ["sign", "x.asice"],
            ["sign", "x.asice", "--with", "smartcard"], ["container", "create", "--compression=zip", "a", "b"], [],
        ] {
            let (code, _, err) = await tamga(words)
            XCTAssertEqual(code, .usage, "\(words)")
            XCTAssertFalse(err.isEmpty, "\(words)")
        }
    }

    func testCreateListAsJSON() async throws {
        let container = try await createContainer()
        let (code, out, _) = await tamga(["container", "ls", container, "--json"])
        XCTAssertEqual(code, .success)
        let listing = try json(out)
        XCTAssertEqual(listing["signed"] as? Bool, false)
        let files = try XCTUnwrap(listing["dataFiles"] as? [[String: Any]])
        XCTAssertEqual(files.map { $0["name"] as? String }, ["a.txt", "b ö.txt"])
        XCTAssertEqual(files.map { $0["size"] as? Int }, [6, 5])
        XCTAssertEqual(files.map { $0["mediaType"] as? String }, ["text/plain", "text/plain"])
    }

    func testCreateRefusesToReplaceWithoutForce() async throws {
        let container = try await createContainer()
        let before = try TestEnvironment.bytes(container)
        let (code, _, err) = await tamga(["container", "create", container, path("a.txt")])
        XCTAssertEqual(code, .inputRejected)
        XCTAssertTrue(err.contains("--force"), err)
        XCTAssertEqual(try TestEnvironment.bytes(container), before)
    }

    func testSignWithPKCS12AndPinFileThenVerify() async throws {
        let container = try await createContainer()
        let pin = try TestEnvironment.write("test1234\n", named: "pin", in: folder)
        let (code, out, err) = await tamga([
            "sign", container, "--with", "key:\(TestEnvironment.pki("ec-p384.p12"))", "--pin-file", pin,
            "--role", "Auditor", "--profile", "B", "--json",
        ])
        XCTAssertEqual(code, .success, err)
        XCTAssertEqual(try json(out)["signatureFile"] as? String, "META-INF/signatures0.xml")
        let (verifyCode, verifyOut, _) = await tamga([
            "verify", container, "--trust", TestEnvironment.pki("root.cert.pem"),
            "--certs", TestEnvironment.pki("issuing-ca.cert.pem"), "--min-profile", "B", "--json",
        ])
        XCTAssertEqual(verifyCode, .success, verifyOut)
        let report = try json(verifyOut)
        XCTAssertEqual(report["status"] as? String, "VALID")
        // The claims are shown by verify and ls, as the signer wrote them.
        XCTAssertEqual((report["signatures"] as? [[String: Any]])?.first?["claimedRoles"] as? [String], ["Auditor"])
        let (_, listed, _) = await tamga(["container", "ls", container, "--json"])
        XCTAssertEqual(
            (try json(listed)["signatures"] as? [[String: Any]])?.first?["claimedRoles"] as? [String], ["Auditor"])
        let (_, text, _) = await tamga([
            "verify", container, "--trust", TestEnvironment.pki("root.cert.pem"), "--min-profile", "B",
        ])
        XCTAssertTrue(text.contains("claimed roles: Auditor"), text)
    }

    /// `--pin-file -` reads the password from standard input.
    func testPinFileDashReadsStandardInput() async throws {
        let container = try await createContainer()
        let binary = TestEnvironment.productsDirectory.appendingPathComponent("tamga").path
        let result = try TestEnvironment.run(
            binary,
            [
                "sign", container, "--with", "key:\(TestEnvironment.pki("ec-p256.p12"))", "--pin-file", "-",
                "--profile", "B", "-q",
            ], input: Data("test1234\n".utf8))
        XCTAssertEqual(result.status, 0, result.error)
        XCTAssertEqual(try Container(openingAt: container).signatures.count, 1)
    }

    /// `--cert` beside a PKCS#12: its own certificate signs, another one or a missing file is
    /// refused, and nothing is written.
    func testACertThatIsNotThePKCS12sOwnIsRefused() async throws {
        let container = try await createContainer()
        let before = try TestEnvironment.bytes(container)
        let pin = try TestEnvironment.write("test1234\n", named: "pin", in: folder)
        let p12 = "key:\(TestEnvironment.pki("ec-p256.p12"))"
        let (other, _, otherErr) = await tamga([
            "sign", container, "--with", p12, "--cert", TestEnvironment.pki("rsa-2048.cert.pem"),
            "--pin-file", pin, "--profile", "B",
        ])
        XCTAssertNotEqual(other, .success)
        XCTAssertTrue(otherErr.contains("does not belong"), otherErr)
        let (missing, _, missingErr) = await tamga([
            "sign", container, "--with", p12, "--cert", path("nowhere.pem"), "--pin-file", pin, "--profile", "B",
        ])
        XCTAssertNotEqual(missing, .success)
        XCTAssertTrue(missingErr.contains("nowhere.pem"), missingErr)
        XCTAssertEqual(try TestEnvironment.bytes(container), before, "nothing was signed")
        let (own, _, ownErr) = await tamga([
            "sign", container, "--with", p12, "--cert", TestEnvironment.pki("ec-p256.cert.pem"), "--pin-file", pin,
            "--profile", "B",
        ])
        XCTAssertEqual(own, .success, ownErr)
    }

    func testEncryptedKeyFromEnvironmentAndWrongPasswordIsNotRetried() async throws {
        let container = try await createContainer()
        let before = try TestEnvironment.bytes(container)
        let arguments = [
            "sign", container, "--with", "key:\(TestEnvironment.pki("ec-p256.enc.key.pem"))",
            "--cert", TestEnvironment.pki("ec-p256.cert.pem"), "--profile", "B",
        ]
        let (wrong, _, err) = await tamga(arguments + ["--json"], environment: ["TAMGA_PIN": "wrong"])
        XCTAssertEqual(wrong, .pinRejected, "a refused password exits as a refused PIN")
        XCTAssertTrue(err.contains("does not retry"), err)
        XCTAssertEqual(try TestEnvironment.bytes(container), before)
        let (right, _, rightErr) = await tamga(arguments, environment: ["TAMGA_PIN": "test1234"])
        XCTAssertEqual(right, .success, rightErr)
    }

    func testVerifyExitCodes() async throws {
        let container = try await createContainer()
        let (unsigned, _, _) = await tamga(["verify", container])
        XCTAssertEqual(unsigned, .verificationFailed)
        _ = await tamga([
            "sign", container, "--with", "key:\(TestEnvironment.pki("rsa-2048.key.pem"))", "--cert",
            TestEnvironment.pki("rsa-2048.cert.pem"),
            "--profile", "B",
        ])
        let (untrusted, out, _) = await tamga(["verify", container, "--min-profile", "B"])
        XCTAssertEqual(untrusted, .trustNotEstablished, out)
        let (trusted, _, _) = await tamga([
            "verify", container, "--trust", TestEnvironment.pki("chain.pem"), "--min-profile", "B",
        ])
        XCTAssertEqual(trusted, .success)
        let (referenceRule, ruleOut, _) = await tamga([
            "verify", container, "--trust", TestEnvironment.pki("chain.pem"),
        ])
        XCTAssertEqual(referenceRule, .verificationFailed, "B-level is invalid by default, as in DigiDoc")
        XCTAssertTrue(ruleOut.contains("profile-too-low"), ruleOut)
        try Data("not a zip".utf8).write(to: URL(fileURLWithPath: path("junk.asice")))
        let (junk, junkOut, _) = await tamga(["verify", path("junk.asice"), "--json"])
        XCTAssertEqual(junk, .inputRejected)
        XCTAssertEqual((try json(junkOut)["error"] as? [String: String])?["code"], "malformed-zip")
        let (missing, _, _) = await tamga(["verify", path("nope.asice")])
        XCTAssertEqual(missing, .inputRejected)
    }

    func testAddRemoveAndExtract() async throws {
        let container = try await createContainer()
        let c = try TestEnvironment.write("gamma", named: "c.txt", in: folder)
        do {
            let r = await tamga(["container", "add", container, c, "-q"]).0
            XCTAssertEqual(r, .success)
        }
        do {
            let r = await tamga(["container", "remove", container, "a.txt"]).0
            XCTAssertEqual(r, .success)
        }
        let out = folder.appendingPathComponent("out").path
        let (code, text, _) = await tamga(["container", "extract", container, "--to", out, "--json"])
        XCTAssertEqual(code, .success)
        XCTAssertEqual((try json(text)["extracted"] as? [String])?.count, 2)
        do {
            let r = await tamga(["container", "extract", container, "--to", out]).0
            XCTAssertEqual(r, .inputRejected, "no overwrite without --force")
        }
        do {
            let r = await tamga(["container", "extract", container, "c.txt", "--to", out, "--force"]).0
            XCTAssertEqual(r, .success)
        }
        _ = await tamga(["container", "remove", container, "b ö.txt"])
        let (last, lastOut, _) = await tamga(["container", "remove", container, "c.txt", "--json"])
        XCTAssertEqual(last, .success)
        XCTAssertEqual(try json(lastOut)["deleted"] as? Bool, true, "a JSON boolean")
        XCTAssertFalse(FileManager.default.fileExists(atPath: container))
    }

    func testProgressIsDrawnOnATerminalAndNotOtherwise() async throws {
        let big = folder.appendingPathComponent("big.bin")
        try Data(count: 9 << 20).write(to: big)
        let (code, _, err) = await runTamgaInProcess(
            ["container", "create", path("p.asice"), big.path], interactive: true)
        XCTAssertEqual(code, .success)
        XCTAssertTrue(err.contains("writing big.bin: 100%"), err)
        let (_, _, quietErr) = await tamga(["container", "create", path("q.asice"), big.path])
        XCTAssertEqual(quietErr, "", "no progress when stderr is not a terminal")
    }

    private var binary: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tamga").path
    }

    /// Runs the binary on a pseudo-terminal, typing `answers` one at a time after each prompt,
    /// like a person; returns the exit status and everything the terminal showed.
    private func runOnTerminal(_ arguments: [String], answers: [String]) throws -> (Int32, String) {
        let driver = """
            import os, pty, sys, select, json
            answers = json.loads(sys.argv[1]); argv = sys.argv[2:]
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(argv[0], argv)
            seen = b""; asked = 0; echo_after = None
            while True:
                ready, _, _ = select.select([fd], [], [], 20)
                if not ready: break
                try: chunk = os.read(fd, 4096)
                except OSError: break
                if not chunk: break
                seen += chunk
                if seen.count(b"Password for") > asked and asked < len(answers):
                    os.write(fd, answers[asked].encode("latin-1") + (b"" if answers[asked].endswith("\\x03") else b"\\n")); asked += 1
            import termios
            try: echo_after = bool(termios.tcgetattr(fd)[3] & termios.ECHO)
            except Exception: echo_after = None
            _, status = os.waitpid(pid, 0)
            sys.stdout.write(seen.decode(errors="replace") + "\\n[echo-after=%s]" % echo_after); sys.exit(os.waitstatus_to_exitcode(status))
            """
        let encoded = String(decoding: try JSONSerialization.data(withJSONObject: answers), as: UTF8.self)
        let result = try TestEnvironment.run("/usr/bin/python3", ["-c", driver, encoded, binary] + arguments)
        return (result.status, result.output)
    }

    func testPasswordPromptDoesNotEchoAndIsAskedOnce() throws {
        let container = try TestEnvironment.write("x", named: "x.txt", in: folder)
        XCTAssertEqual(try TestEnvironment.run(binary, ["container", "create", path("t.asice"), container]).status, 0)
        let arguments = [
            "sign", path("t.asice"), "--with", "key:\(TestEnvironment.pki("ec-p256.p12"))", "--profile", "B",
        ]
        let (good, shown) = try runOnTerminal(arguments, answers: ["test1234"])
        XCTAssertEqual(good, 0, shown)
        XCTAssertTrue(shown.contains("Password for"), shown)
        XCTAssertFalse(shown.contains("test1234"), "the password was echoed: \(shown)")
        let (bad, badShown) = try runOnTerminal(arguments, answers: ["wrong", "test1234"])
        XCTAssertEqual(bad, 9, badShown)
        XCTAssertEqual(badShown.components(separatedBy: "Password for").count - 1, 1, "asked exactly once: \(badShown)")
        XCTAssertTrue(badShown.contains("does not retry"), badShown)
    }

    func testCtrlCAtThePromptCancelsAndRestoresEcho() throws {
        let container = try TestEnvironment.write("x", named: "x.txt", in: folder)
        XCTAssertEqual(try TestEnvironment.run(binary, ["container", "create", path("c.asice"), container]).status, 0)
        let before = try TestEnvironment.bytes(path("c.asice"))
        let (status, shown) = try runOnTerminal(
            ["sign", path("c.asice"), "--with", "key:\(TestEnvironment.pki("ec-p256.p12"))", "--profile", "B"],
            answers: ["tes\u{03}"])
        XCTAssertEqual(status, 130, shown)
        XCTAssertTrue(shown.contains("[echo-after=True]"), "the terminal's echo must be back on: \(shown)")
        XCTAssertEqual(try TestEnvironment.bytes(path("c.asice")), before)
    }

    func testSIGTERMWhileWritingRemovesTheTemporaryFile() throws {
        // A sparse 40 GB file: deflating its zeros keeps tamga busy for many seconds.
        let big = path("sparse.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        try handle.truncate(atOffset: 40_000_000_000)
        try handle.close()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["container", "create", path("big.asice"), big, "--compression", "deflate", "-q"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        // Wait until the temporary file exists, then interrupt.
        while Date() < deadline,
            (try FileManager.default.contentsOfDirectory(atPath: folder.path)).allSatisfy({ !$0.hasPrefix(".tamga-") })
        {
            usleep(50_000)
        }
        process.terminate()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 128 + SIGTERM)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".tamga-") }, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("big.asice")))
    }

    func testTheBinaryPassesExitCodesThrough() throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            return XCTFail("the tamga binary is not beside the test bundle at \(binary); build with swift build first")
        }
        XCTAssertTrue(
            try TestEnvironment.run(binary, ["--version"]).output.hasPrefix(
                "tamga \(TamgaCommandLine.version) (commit "))
        XCTAssertEqual(try TestEnvironment.run(binary, ["verify", path("missing.asice")]).status, 3)
        XCTAssertEqual(try TestEnvironment.run(binary, ["--nonsense"]).status, 2)
        // No terminal and no PIN source: a clear error instead of a hang.
        let container = try TestEnvironment.write("x", named: "x.txt", in: folder)
        XCTAssertEqual(try TestEnvironment.run(binary, ["container", "create", path("p.asice"), container]).status, 0)
        let result = try TestEnvironment.run(
            "/usr/bin/setsid",
            [
                "--wait", binary, "sign", path("p.asice"), "--with", "key:\(TestEnvironment.pki("ec-p256.p12"))",
                "--profile", "B",
            ],
            environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(result.status, 4, result.error)
        XCTAssertTrue(result.error.contains("--pin-file"), result.error)
    }
}

/// Network calls go through the proxy named in the usual environment variables.
final class ProxyTests: XCTestCase {
    func testTSAAndOCSPRequestsGoThroughHTTPProxy() throws {
        let folder = try TestEnvironment.temporaryFolder("proxy")
        defer { TestEnvironment.removeFolder(folder) }
        let services = try TestServices()
        defer { services.stop() }
        let log = folder.appendingPathComponent("proxy.log")
        let (proxy, proxyURL) = try TestEnvironment.startProxy(log: log)
        defer { TestEnvironment.terminate(proxy) }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
            "tamga"
        ).path
        let file = try TestEnvironment.write("via proxy", named: "p.txt", in: folder)
        var environment = ProcessInfo.processInfo.environment
        for name in ["no_proxy", "NO_PROXY", "https_proxy", "HTTPS_PROXY", "HTTP_PROXY"] { environment[name] = nil }
        environment["http_proxy"] = proxyURL
        let result = try TestEnvironment.run(
            binary,
            [
                "sign", folder.appendingPathComponent("p.asice").path, file,
                "--with", "key:\(TestEnvironment.pki("ec-p256.key.pem"))", "--cert",
                TestEnvironment.pki("ec-p256.cert.pem"),
                "--certs", TestEnvironment.pki("issuing-ca.cert.pem"), "--tsa", services.url("tsa").absoluteString,
                "--ocsp", services.url("ocsp").absoluteString,
            ], environment: environment)
        XCTAssertEqual(result.status, 0, result.error)
        let proxied = try String(contentsOf: log, encoding: .utf8)
        XCTAssertTrue(proxied.contains("proxied POST \(services.url("tsa").absoluteString)"), proxied)
        XCTAssertTrue(proxied.contains("proxied POST \(services.url("ocsp").absoluteString)"), proxied)
    }
}

/// `tamga readers` against a private pcscd with vpcd readers and virtual cards.
final class ReadersCommandTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    func testReadersAsTextAndJSON() throws {
        let rig = try PCSCRig(readers: [.init(name: "Aktiv Rutoken ECP", cards: ["rutoken-ecp", nil])])
        defer { rig.stop() }
        let text = try TestEnvironment.run(binary, ["readers"], environment: rig.environment)
        XCTAssertEqual(text.status, 0, text.error)
        XCTAssertTrue(
            text.output.contains(
                "Aktiv Rutoken ECP 00 00: present, ATR 3B8B015275746F6B656E20445320C1, Rutoken ECP, media rutoken_ecp_"),
            text.output)
        XCTAssertTrue(text.output.contains("Aktiv Rutoken ECP 00 01: empty"), text.output)
        let json = try TestEnvironment.run(binary, ["readers", "--json"], environment: rig.environment)
        try JSONOutputSchemaTests.conform(json.output, to: "readers")
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: [[String: String]]]
        XCTAssertEqual(object?["readers"]?.count, 2)
        XCTAssertEqual(object?["readers"]?.first { $0["name"] == "Aktiv Rutoken ECP 00 00" }?["card"], "Rutoken ECP")
    }

    func testReadersWithoutPcscdSaysSo() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["PCSCLITE_CSOCK_NAME"] = "/nonexistent/pcscd.comm"
        let result = try TestEnvironment.run(binary, ["readers", "--json"], environment: environment)
        XCTAssertEqual(result.status, 10)
        XCTAssertTrue(result.output.contains("pcsc-service-not-running"), result.output)
        XCTAssertTrue(result.error.contains("pcscd"), result.error)
        // card and sign agree on the exit code.
        let card = try TestEnvironment.run(binary, ["card", "info"], environment: environment)
        XCTAssertEqual(card.status, 10, card.error)
        let document = try TestEnvironment.write("x\n", named: "x.txt", in: FileManager.default.temporaryDirectory)
        let container = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pcscd-down-\(UUID().uuidString).asice"
        ).path
        defer { try? FileManager.default.removeItem(atPath: container) }
        let sign = try TestEnvironment.run(
            binary, ["sign", container, document, "--with", "card", "--profile", "B"], environment: environment)
        XCTAssertEqual(sign.status, 10, sign.error)
    }

    /// `readers --wait` checks pcscd before it says it waits, so nobody waits for nothing.
    func testReadersWaitWithoutPcscdSaysSoAtOnce() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["PCSCLITE_CSOCK_NAME"] = "/nonexistent/pcscd.comm"
        let result = try TestEnvironment.run(
            binary, ["readers", "--wait", "rutoken", "--timeout", "5"], environment: environment)
        XCTAssertEqual(result.status, 10, result.error)
        XCTAssertTrue(result.error.contains("pcscd"), result.error)
        XCTAssertFalse(result.error.contains("waiting"), "nothing to wait for: \(result.error)")
    }

    func testReadersWithNoReadersConnected() throws {
        let rig = try PCSCRig(readers: [])
        defer { rig.stop() }
        let result = try TestEnvironment.run(binary, ["readers"], environment: rig.environment)
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.output.contains("No smart-card reader is connected"), result.output)
    }
}

/// `tamga readers --wait` and `--watch` against the private pcscd rig.
final class ReadersWaitWatchTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    func testWaitSucceedsWhenTheTokenIsThereAndTimesOutOnTheWrongOne() throws {
        let rig = try PCSCRig(readers: [
            .init(name: "Aktiv Rutoken ECP", cards: ["rutoken-ecp", nil]),
            .init(name: "ACS ACR39U ICC Reader", cards: ["idemia", nil]),
        ])
        defer { rig.stop() }
        let ready = try TestEnvironment.run(
            binary, ["readers", "--wait", "rutoken_ecp_4a1b2c3d", "--timeout", "10"], environment: rig.environment)
        XCTAssertEqual(ready.status, 0, ready.error)
        XCTAssertTrue(ready.output.contains("ready: Aktiv Rutoken ECP 00 00"), ready.output)
        XCTAssertTrue(ready.error.contains("Connect the token"), ready.error)
        let wrong = try TestEnvironment.run(
            binary, ["readers", "--wait", "rutoken_lt", "--timeout", "2"], environment: rig.environment)
        XCTAssertEqual(wrong.status, 8, wrong.error)
        XCTAssertTrue(
            wrong.error.contains("no rutoken_lt token appeared") && wrong.error.contains("instead"), wrong.error)
        // --json: one object either way.
        let readyJSON = try TestEnvironment.run(
            binary, ["readers", "--wait", "rutoken_ecp", "--timeout", "10", "--json"], environment: rig.environment)
        XCTAssertEqual(readyJSON.status, 0, readyJSON.error)
        try JSONOutputSchemaTests.conform(readyJSON.output, to: "readers-wait")
        let object = try JSONSerialization.jsonObject(with: Data(readyJSON.output.utf8)) as? [String: Any]
        XCTAssertEqual(object?["ready"] as? Bool, true)
        XCTAssertEqual(object?["mediaFamily"] as? String, "rutoken_ecp")
        let wrongJSON = try TestEnvironment.run(
            binary, ["readers", "--wait", "rutoken_lt", "--timeout", "2", "--json"], environment: rig.environment)
        XCTAssertEqual(wrongJSON.status, 8)
        try JSONOutputSchemaTests.conform(wrongJSON.output, to: "readers-wait")
        let refused = try JSONSerialization.jsonObject(with: Data(wrongJSON.output.utf8)) as? [String: Any]
        XCTAssertEqual(refused?["ready"] as? Bool, false)
        XCTAssertNotNil(refused?["instead"] as? String)
    }

    func testWatchReportsAnInsertionAsItHappens() throws {
        let rig = try PCSCRig(readers: [.init(name: "Watched Reader", cards: [nil, nil])])
        defer { rig.stop() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["readers", "--watch", "--json"]
        process.environment = rig.environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(1_500_000)
        try rig.insertCard("thales", port: rig.port(reader: 0))
        usleep(2_000_000)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let lines = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(
            separator: "\n")
        let events = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
        for line in lines { try JSONOutputSchemaTests.conform(String(line), to: "readers-watch") }
        XCTAssertEqual(events.filter { $0["event"] == "reader-present" }.count, 2, "\(lines)")
        let inserted = events.first { $0["event"] == "card-inserted" }
        XCTAssertEqual(inserted?["reader"], "Watched Reader 00 00", "\(lines)")
        XCTAssertEqual(inserted?["card"], "EstEID Thales")
    }
}
