import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// Every command example of README.md and docs/*.md — a ```sh or ```console block that runs
/// tamga — is run here against the test services, in document order in one folder, or is marked
/// `<!-- not run: REASON -->` on the line before its fence (a card reader, the demo's token, a
/// network service the tests cannot have). A `sh` block must run without an error; a `console`
/// block's `$ COMMAND` lines are run and what each printed (stdout and stderr) is compared with
/// the lines the document shows under it, after masking times, token serials, key and session
/// ids and the folder's path. In shown output, `…` stands for any text within a line and a line
/// `...` for any number of lines. `$?` after a command is that command's exit code, as in a shell.
///
/// An example that needs hardware or a server names the test rigs it runs with on the line
/// before its fence, `<!-- run with: card, token, cosigner, demo.asice -->` (any of them):
/// - `card`: a private pcscd with a vpcd reader "Demo USB Reader" holding the virtual EstEID
///   IDEMIA card (slot 00 00) and an empty slot (00 01), as `make demo` has it; PIN2 12345.
/// - `token`: a SoftHSM2 token "demo-token" (PIN 123456) holding other-ec-p256 as 01 "demo-key".
/// - `cosigner`: `tamga cosigner serve` on the folder's `cosigner.db`, its CA the test PKI's
///   issuing CA; the document's `http://127.0.0.1:41899` stands for its URL. PIN2 24680.
/// - `rp-session`: a relying party "Test Bank" (`cosigner add-rp`) and a SIGN session it opened
///   over the co-signer's RP API for the split key enrolled by an earlier example (account
///   38001085718); the document's `SESSION` stands for its id. Needs `cosigner`.
/// - `demo.asice`: the container `make demo` has signed twice with key files by then
///   ("agreement ö #1.txt", invoice.json, scan.bin), and its unsigned compare.asice.
/// - `verify-files`: what `make demo` verifies with, made from demo.asice as it is by then:
///   tampered.asice (one bit of invoice.json flipped), chain.pem (issuing CA and root), and a
///   test ETSI trusted list EE.xml (Fixtures/tsl/tsl-good.xml) with its signer tsl-signer.pem.
/// Each rig is started once per run, at the first example that asks for it, and kept for the
/// later ones (the examples go on from each other's state: signatures2.xml, 3, 4). TAMGA_PIN is
/// the PIN of that example's signer (what the person types at the prompt), and sign's TSA is the
/// test TSA. A value a command prints as its whole output (one word, like the enrollment code
/// `cosigner issue-code` prints) stands for what it printed when a later command of the block
/// uses it; that command's stdout is checked to be one word, its stderr is not shown.
final class DocumentationExamplesTests: XCTestCase {
    struct Example {
        let file: String
        let line: Int
        let language: String
        let lines: [String]
        /// Why it is not run (the marker), nil when it is.
        let notRun: String?
        /// The rigs it runs with (`<!-- run with: … -->`).
        let rigs: [String]
        var place: String { "\(file):\(line)" }
    }

    static let documents =
        ["README.md"]
        + ((try? FileManager.default.contentsOfDirectory(
            atPath: TestEnvironment.repository.appendingPathComponent("docs").path)) ?? []).filter {
            $0.hasSuffix(".md")
        }.sorted().map { "docs/" + $0 }

    /// The fenced sh/console blocks of `file` that invoke tamga.
    static func examples(in file: String) throws -> [Example] {
        let text = try String(contentsOf: TestEnvironment.repository.appendingPathComponent(file), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        var examples: [Example] = []
        var index = 0
        while index < lines.count {
            let fence = lines[index]
            guard fence.hasPrefix("```") else {
                index += 1
                continue
            }
            let language = String(fence.dropFirst(3)).trimmingCharacters(in: .whitespaces)
            let start = index
            var body: [String] = []
            index += 1
            while index < lines.count, !lines[index].hasPrefix("```") {
                body.append(lines[index])
                index += 1
            }
            index += 1
            guard ["sh", "console", "shell", "bash"].contains(language),
                body.contains(where: { $0.range(of: #"(^|\$ |[ =])tamga "#, options: .regularExpression) != nil })
            else { continue }
            var reason: String? = nil
            var rigs: [String] = []
            if start > 0,
                let match = lines[start - 1].range(of: #"^<!-- not run: (.+) -->$"#, options: .regularExpression)
            {
                reason = String(lines[start - 1][match]).dropFirst("<!-- not run: ".count).dropLast(" -->".count)
                    .trimmingCharacters(in: .whitespaces)
            }
            if start > 0,
                let match = lines[start - 1].range(of: #"^<!-- run with: (.+) -->$"#, options: .regularExpression)
            {
                rigs = String(lines[start - 1][match]).dropFirst("<!-- run with: ".count).dropLast(" -->".count)
                    .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            }
            examples.append(
                Example(file: file, line: start + 1, language: language, lines: body, notRun: reason, rigs: rigs))
        }
        return examples
    }

    func testEveryExampleIsRunOrSaysWhyNot() throws {
        var count = 0
        for file in Self.documents {
            for example in try Self.examples(in: file) {
                count += 1
                XCTAssertTrue(
                    ["sh", "console"].contains(example.language),
                    "\(example.place): use ```sh (commands) or ```console ($ commands and output)")
                if let reason = example.notRun {
                    XCTAssertFalse(reason.isEmpty, "\(example.place): say why it is not run")
                }
                for rig in example.rigs {
                    XCTAssertTrue(
                        Self.rigNames.contains(rig),
                        "\(example.place): no test rig \(rig) (there are \(Self.rigNames.sorted()))")
                }
            }
        }
        XCTAssertGreaterThan(count, 5)
    }

    // MARK: Running them

    private var folder: URL!
    private var services: TestServices!
    private var pcsc: PCSCRig?
    private var cosigner: (process: Process, url: URL)?
    /// The id of the relying party's session (`rp-session`).
    private var session: String?
    /// What each started rig adds to the examples' environment.
    private var rigEnvironment: [String: [String: String]] = [:]
    static let rigNames: Set<String> = ["card", "token", "cosigner", "rp-session", "demo.asice", "verify-files"]

    override func tearDown() {
        if let cosigner { TestEnvironment.terminate(cosigner.process) }
        pcsc?.stop()
        services?.stop()
        if let folder { TestEnvironment.removeFolder(folder) }
    }

    /// The files the examples name, made from the test PKI; the TSA URLs they show are the test
    /// TSA's, and the certificates' AIA OCSP URL (port 8788) is the test responder.
    private func sandbox() throws -> [String: String] {
        folder = try TestEnvironment.temporaryFolder("docs-examples")
        // A copy of the test PKI: the co-signer's CA appends the certificates it issues to the
        // index the OCSP responder reads.
        let pki = folder.appendingPathComponent(".pki")
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("pki"), toPath: pki.path)
        services = try TestServices(port: 8788, pki: pki.path)
        for (name, text) in [
            ("contract.pdf", "%PDF-1.4 a contract\n"), ("annex.xlsx", "PK annex"),
            ("photo.jpg", "\u{FF}\u{D8} a photo"),
            ("report.pdf", "%PDF-1.4 a report\n"), ("data.csv", "a,b\n1,2\n"), ("pin.txt", "test1234\n"),
        ] {
            try TestEnvironment.write(text, named: name, in: folder)
        }
        for (name, fixture) in [
            ("signer.p12", "ec-p256.p12"), ("key.pem", "ec-p256.key.pem"), ("cert.pem", "ec-p256.cert.pem"),
            ("issuing-ca.pem", "issuing-ca.cert.pem"), ("tsa-root.pem", "root.cert.pem"),
            ("root.cert.pem", "root.cert.pem"),
            ("issuing-ca.cert.pem", "issuing-ca.cert.pem"),
        ] {
            try FileManager.default.copyItem(
                atPath: TestEnvironment.pki(fixture), toPath: folder.appendingPathComponent(name).path)
        }
        // What a mobile-ID app sends back (App2App guide): an M400 presentation, as the SP's
        // file and inside the app's callback URL (its base64url, unpadded), written out here
        // and not with tamga's own encoder.
        let m400 =
            #"{"cmd":"400","request":"presentation","trxcode":"20240813025840401CBEAB157","type":"mip","version":"1.0.0","#
            + #""vp":{"authType":["pin","face"],"data":"a1b2c3","did":"did:kr:mobileid:abc","encryptType":2,"keyType":2,"nonce":"5a1f","presentType":1,"type":"VERIFY"}}"#
        try TestEnvironment.write(m400, named: "m400.json", in: folder)
        let data = Data(m400.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(
            of: "/", with: "_"
        )
        .replacingOccurrences(of: "=", with: "")
        try TestEnvironment.write("spDemo://verify?success=true&data=\(data)\n", named: "callback.txt", in: folder)
        let home = folder.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        // The password a person would type at the prompt.
        return [
            "PATH": TestEnvironment.productsDirectory.path + ":/usr/bin:/bin", "HOME": home.path,
            "TAMGA_PIN": "test1234", "LC_ALL": "C.UTF-8",
        ]
    }

    /// The example's text with the services it names replaced by the test services.
    private func local(_ text: String) -> String {
        let tsa = services.url("tsa").absoluteString
        var text = text.replacingOccurrences(of: "https://tsa.example/tsa", with: tsa).replacingOccurrences(
            of: "https://tsa.example/", with: tsa)
        if let cosigner {
            text = text.replacingOccurrences(of: "http://127.0.0.1:41899", with: cosigner.url.absoluteString)
        }
        return text
    }

    /// Times, token serials, key and session ids and the folder's path, which differ from run to run.
    private func masked(_ text: String) -> String {
        text.replacingOccurrences(of: folder.path, with: "<folder>")
            .replacingOccurrences(of: folder.resolvingSymlinksInPath().path, with: "<folder>")
            .replacingOccurrences(
                of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"#, with: "<time>", options: .regularExpression
            )
            .replacingOccurrences(
                of: #"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"#, with: "<uuid>",
                options: .regularExpression
            )
            .replacingOccurrences(of: #"sign key [0-9a-f]{16}"#, with: "sign key <keyID>", options: .regularExpression)
            // compare's table: milliseconds and the signature file's size (it holds the OCSP
            // response and the certificate issued in this run), with the padding after them,
            // which follows their width.
            .replacingOccurrences(of: #"(?m)\d+\.\d / \d+\.\d( +|$)"#, with: "<ms> ", options: .regularExpression)
            .replacingOccurrences(of: #"(?m), \d+ B XML( +|$)"#, with: ", <n> B XML ", options: .regularExpression)
            .replacingOccurrences(
                of: #"serial [0-9a-f]{16}, slot "SoftHSM slot ID 0x[0-9a-f]+""#, with: "serial <serial>, slot <slot>",
                options: .regularExpression)
    }

    /// Starts the rigs `example` asks for that are not running yet; the environment it runs in.
    private func environment(for example: Example, base: [String: String]) throws -> [String: String] {
        var environment = base
        for rig in example.rigs {
            if rigEnvironment[rig] == nil { rigEnvironment[rig] = try start(rig, base) }
            environment.merge(rigEnvironment[rig] ?? [:]) { $1 }
        }
        // The signer's PIN: the last rig named that has one decides (card, token, cosigner).
        for (rig, pin) in [("card", "12345"), ("token", "123456"), ("cosigner", "24680")]
        where example.rigs.contains(rig) { environment["TAMGA_PIN"] = pin }
        if !example.rigs.isEmpty { environment["TAMGA_TSA_URL"] = services.url("tsa").absoluteString }
        return environment
    }

    private func start(_ rig: String, _ base: [String: String]) throws -> [String: String] {
        let tamga = TestEnvironment.productsDirectory.appendingPathComponent("tamga").path
        switch rig {
        case "card":
            let started = try PCSCRig(readers: [.init(name: "Demo USB Reader", cards: ["idemia", nil])])
            pcsc = started
            return ["PCSCLITE_CSOCK_NAME": started.socketPath]
        case "token":
            // A token of this run's own, named and filled as make demo does (scripts/demo.sh).
            let softhsm = folder.appendingPathComponent(".softhsm")
            try FileManager.default.createDirectory(
                at: softhsm.appendingPathComponent("tokens"), withIntermediateDirectories: true)
            let configuration = softhsm.appendingPathComponent("softhsm2.conf").path
            try
                "directories.tokendir = \(softhsm.appendingPathComponent("tokens").path)\nobjectstore.backend = file\nlog.level = ERROR\nslots.removable = false\n"
                .write(toFile: configuration, atomically: true, encoding: .utf8)
            let environment = ["SOFTHSM2_CONF": configuration, "PATH": "/usr/bin:/bin"]
            for (program, arguments) in [
                (
                    "/usr/bin/softhsm2-util",
                    ["--init-token", "--free", "--label", "demo-token", "--so-pin", "12345678", "--pin", "123456"]
                ),
                (
                    "/usr/bin/pkcs11-tool",
                    [
                        "--module", SoftHSMToken.module, "--token-label", "demo-token", "--login", "--pin", "123456",
                        "--write-object", TestEnvironment.pki("other-ec-p256.key.pem"), "--type", "privkey",
                        "--id", "01", "--label", "demo-key", "--usage-sign",
                    ]
                ),
                (
                    "/usr/bin/pkcs11-tool",
                    [
                        "--module", SoftHSMToken.module, "--token-label", "demo-token", "--login", "--pin", "123456",
                        "--write-object", TestEnvironment.pki("other-ec-p256.cert.der"), "--type", "cert",
                        "--id", "01", "--label", "demo-key",
                    ]
                ),
            ] {
                let result = try TestEnvironment.run(program, arguments, environment: environment)
                XCTAssertEqual(result.status, 0, "\(program): \(result.output)\(result.error)")
            }
            return ["SOFTHSM2_CONF": configuration]
        case "cosigner":
            let pki = folder.appendingPathComponent(".pki")
            cosigner = try TestEnvironment.startListening(
                executable: tamga,
                [
                    "cosigner", "serve", "--db", folder.appendingPathComponent("cosigner.db").path,
                    "--ca-cert", pki.appendingPathComponent("issuing-ca.cert.pem").path, "--ca-key",
                    pki.appendingPathComponent("issuing-ca.key.pem").path,
                    "--ca-index", pki.appendingPathComponent("issuing-ca.index.txt").path, "--ocsp",
                    services.url("ocsp").absoluteString,
                ])
            return [:]
        case "rp-session":
            guard let cosigner else { throw RigError("rp-session needs the cosigner rig first") }
            let database = folder.appendingPathComponent("cosigner.db").path
            let key = try TestEnvironment.run(tamga, ["cosigner", "add-rp", "Test Bank", "--db", database]).output
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let publicShare = URL(fileURLWithPath: base["HOME"] ?? "").appendingPathComponent(
                ".local/share/tamga/threshold/38001085718/sign.public")
            let keyID = try XCTUnwrap(
                (try JSONSerialization.jsonObject(with: Data(contentsOf: publicShare)) as? [String: Any])?["keyID"]
                    as? String,
                "rp-session: no split key enrolled for 38001085718 by an earlier example")
            let digest = Digest.compute(.sha256, over: Data("a loan agreement".utf8)).hex
            let created = try TestEnvironment.run(
                "/usr/bin/curl",
                [
                    "-s", "-X", "POST", "-H", "Content-Type: application/json", "-H", "Authorization: Bearer \(key)",
                    "-d", "{\"keyID\":\"\(keyID)\",\"digest\":\"\(digest)\",\"displayText\":\"Open an account\"}",
                    cosigner.url.absoluteString + "/v3/rp/session",
                ])
            session = try XCTUnwrap(
                (try? JSONSerialization.jsonObject(with: Data(created.output.utf8)) as? [String: Any])?["sessionID"]
                    as? String, created.output)
            return [:]
        case "demo.asice":
            // As make demo leaves it before the card signs: three files, two signatures.
            let files = folder.appendingPathComponent(".demo-files")
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            for (name, text) in [
                ("agreement ö #1.txt", "We agree.\n"), ("invoice.json", "{\"total\": 100}\n"),
                ("scan.bin", "\u{0}\u{1}\u{2} a scan"),
            ] {
                try TestEnvironment.write(text, named: name, in: files)
            }
            let demo = folder.appendingPathComponent("demo.asice").path
            var environment = base
            environment["TAMGA_TSA_URL"] = services.url("tsa").absoluteString
            for arguments in [
                ["container", "create", demo]
                    + ["agreement ö #1.txt", "invoice.json", "scan.bin"].map { files.appendingPathComponent($0).path },
                ["container", "create", folder.appendingPathComponent("compare.asice").path]
                    + ["agreement ö #1.txt", "invoice.json"].map { files.appendingPathComponent($0).path },
                ["sign", demo, "--with", "key:" + TestEnvironment.pki("ec-p256.p12"), "--role", "Tenant"],
                [
                    "sign", demo, "--with", "key:" + TestEnvironment.pki("rsa-2048.key.pem"), "--cert",
                    TestEnvironment.pki("rsa-2048.cert.pem"), "--role", "Landlord",
                ],
            ] {
                let result = try TestEnvironment.run(tamga, arguments, environment: environment)
                XCTAssertEqual(result.status, 0, "\(arguments): \(result.output)\(result.error)")
            }
            return [:]
        case "verify-files":
            let demo = folder.appendingPathComponent("demo.asice").path
            guard FileManager.default.fileExists(atPath: demo) else {
                throw RigError("verify-files needs demo.asice first")
            }
            let tampered = try TestEnvironment.run(
                "/usr/bin/python3",
                [
                    TestEnvironment.script("asice-tamper.py"), demo,
                    folder.appendingPathComponent("tampered.asice").path, "flip-byte", "invoice.json",
                ])
            XCTAssertEqual(tampered.status, 0, tampered.error)
            let chain =
                try String(contentsOfFile: TestEnvironment.pki("issuing-ca.cert.pem"), encoding: .utf8)
                + String(contentsOfFile: TestEnvironment.pki("root.cert.pem"), encoding: .utf8)
            try TestEnvironment.write(chain, named: "chain.pem", in: folder)
            for (name, fixture) in [("EE.xml", "tsl/tsl-good.xml"), ("tsl-signer.pem", "tsl/tsl-signer.cert.pem")] {
                try FileManager.default.copyItem(
                    atPath: TestEnvironment.fixture(fixture), toPath: folder.appendingPathComponent(name).path)
            }
            return [:]
        default:
            throw RigError("no test rig \(rig)")
        }
    }

    /// True when `actual` lines match the shown ones (`…` any text, a `...` line any lines).
    static func matches(_ shown: [String], _ actual: [String]) -> Bool {
        guard let first = shown.first else { return actual.isEmpty }
        if first.trimmingCharacters(in: .whitespaces) == "..." {
            return (0...actual.count).contains { matches(Array(shown.dropFirst()), Array(actual.dropFirst($0))) }
        }
        guard let line = actual.first else { return false }
        let pattern =
            "^"
            + first.components(separatedBy: "…").map(NSRegularExpression.escapedPattern(for:)).joined(separator: ".*")
            + "$"
        return line.range(of: pattern, options: .regularExpression) != nil
            && matches(Array(shown.dropFirst()), Array(actual.dropFirst()))
    }

    private func shell(_ script: String, _ environment: [String: String]) throws -> TestEnvironment.ProcessResult {
        try TestEnvironment.run("/bin/sh", ["-c", "cd \"$0\" && " + script, folder.path], environment: environment)
    }

    func testTheExamplesRunAndPrintWhatTheDocumentsShow() throws {
        let base = try sandbox()
        var ran = 0
        for file in Self.documents {
            for example in try Self.examples(in: file) where example.notRun == nil {
                ran += 1
                let environment = try self.environment(for: example, base: base)
                var example = example
                if example.rigs.contains("rp-session"), let session {
                    example = Example(
                        file: example.file, line: example.line, language: example.language,
                        lines: example.lines.map { $0.replacingOccurrences(of: "SESSION", with: session) }, notRun: nil,
                        rigs: example.rigs)
                }
                if example.language == "sh" {
                    let result = try shell("set -e\n" + local(example.lines.joined(separator: "\n")), environment)
                    XCTAssertEqual(result.status, 0, "\(example.place) failed:\n\(result.output)\(result.error)")
                    continue
                }
                // console: `$ COMMAND` lines, each followed by what it printed.
                var commands: [(command: String, shown: [String])] = []
                // A command line that ends in a backslash goes on at the next line, as in a shell.
                var continued = false
                for line in example.lines {
                    if continued, !commands.isEmpty {
                        commands[commands.count - 1].command += "\n" + line
                    } else if line.hasPrefix("$ ") {
                        commands.append((String(line.dropFirst(2)), []))
                    } else if !commands.isEmpty {
                        commands[commands.count - 1].shown.append(line)
                    }
                    continued = (line.hasPrefix("$ ") || continued) && line.hasSuffix("\\")
                }
                // Each command's exit code is kept across the marker, for a following `echo $?`;
                // a one-word output (stdout) is kept in a file, for the later commands that use it.
                var script = "status=0\n"
                var printed: [(word: String, file: String)] = []
                var oneWord: Set<Int> = []
                for (number, entry) in commands.enumerated() {
                    var command = local(entry.command)
                    for (word, file) in printed {
                        command = command.replacingOccurrences(of: word, with: "\"$(cat \(file))\"")
                    }
                    let shown = entry.shown.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
                    script += "printf '@@%d@@\\n' \(number)\n(exit $status)\n"
                    if shown.count == 1, let word = shown.first?.trimmingCharacters(in: .whitespaces),
                        !word.contains(" "), word.count >= 6,
                        commands.dropFirst(number + 1).contains(where: { $0.command.contains(word) })
                    {
                        let file = ".output-\(number)"
                        printed.append((word, file))
                        oneWord.insert(number)
                        script += "{\n\(command)\n} > \(file) 2>/dev/null; status=$?; cat \(file)\n"
                    } else {
                        // On lines of its own: a `# comment` ends at the line's end.
                        script += "{\n\(command)\n} 2>&1; status=$?\n"
                    }
                }
                let result = try shell(script, environment)
                // Split at the markers (a command that printed nothing gives an empty part).
                let outputs = masked(result.output).components(separatedBy: "\n")
                    .split(
                        omittingEmptySubsequences: false, whereSeparator: { $0.hasPrefix("@@") && $0.hasSuffix("@@") }
                    ).dropFirst().map { Array($0) }
                XCTAssertEqual(outputs.count, commands.count, "\(example.place): \(result.output)")
                for (number, (entry, actual)) in zip(commands, outputs).enumerated() {
                    let got = actual.filter { !$0.isEmpty }
                    if oneWord.contains(number) {
                        // Made at run time (the enrollment code): one word, like the one shown.
                        XCTAssertTrue(
                            got.count == 1 && !got[0].contains(" "),
                            "\(example.place): $ \(entry.command)\nprinted:\n\(got.joined(separator: "\n"))")
                        continue
                    }
                    let shown = masked(local(entry.shown.joined(separator: "\n"))).components(separatedBy: "\n").filter
                    { !$0.isEmpty }
                    XCTAssertTrue(
                        Self.matches(shown, got),
                        "\(example.place): $ \(entry.command)\nshown:\n\(shown.joined(separator: "\n"))\nprinted:\n\(got.joined(separator: "\n"))"
                    )
                }
            }
        }
        XCTAssertGreaterThan(ran, 0)
    }
}

/// A document that asks for a rig the tests do not have, or before the rig it needs: a failure
/// (a skip would let the document drift unnoticed).
struct RigError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
