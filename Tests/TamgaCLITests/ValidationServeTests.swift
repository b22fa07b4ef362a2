import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// `tamga validation serve` as an integrator meets it: the real binary on loopback, posted to by
/// curl (a client tamga did not write) with the project's own test containers, each answer
/// checked against `tamga verify --json` of the same file with the same trust.
final class ValidationServeTests: XCTestCase {
    private var folder: URL!
    private var services: TestServices!
    private var servers: [Process] = []
    private let trust = [
        "--trust", TestEnvironment.pki("root.cert.pem"), "--certs", TestEnvironment.pki("issuing-ca.cert.pem"),
    ]
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    private var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = folder.appendingPathComponent("cache").path
        return environment
    }

    override func setUpWithError() throws {
        folder = try TestEnvironment.temporaryFolder("validation-serve")
        services = try TestServices()
    }

    override func tearDown() {
        for server in servers { TestEnvironment.terminate(server) }
        services.stop()
        TestEnvironment.removeFolder(folder)
    }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    private func serve(_ extra: [String] = []) throws -> URL {
        let (process, url) = try TestEnvironment.startListening(
            executable: binary, ["validation", "serve"] + trust + extra, environment: environment)
        servers.append(process)
        return url
    }

    /// curl's answer: the HTTP status and the JSON body.
    private func post(
        _ url: URL, _ body: Data, path: String = "validate", contentType: String = "application/json;charset=UTF-8",
        expectContinue: Bool = false
    ) throws -> (Int, [String: Any]) {
        let file = self.path("request-\(UUID().uuidString).json")
        try body.write(to: URL(fileURLWithPath: file))
        let result = try TestEnvironment.run(
            "/usr/bin/curl",
            [
                "-s", "-S", "-o", "-", "-w", "\n%{http_code}", "-H", "Content-Type: \(contentType)", "-H",
                expectContinue ? "Expect: 100-continue" : "Expect:",
                "--data-binary", "@\(file)", url.appendingPathComponent(path).absoluteString,
            ])
        XCTAssertEqual(result.status, 0, result.error)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let json =
            (try? JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8)))
            as? [String: Any] ?? [:]
        return (status, json)
    }

    private func request(_ file: String, name: String, policy: String? = nil) throws -> Data {
        var object: [String: Any] = [
            "document": try TestEnvironment.bytes(file).base64EncodedString(), "filename": name,
        ]
        if let policy { object["signaturePolicy"] = policy }
        return try JSONSerialization.data(withJSONObject: object)
    }

    private func conclusion(_ json: [String: Any]) -> [String: Any] {
        (json["validationReport"] as? [String: Any])?["validationConclusion"] as? [String: Any] ?? [:]
    }

    private func verify(_ file: String) async -> [String: Any] {
        let (_, out, _) = await runTamgaInProcess(
            ["verify", file, "--json"] + trust, environment: ["XDG_CACHE_HOME": path("cache")])
        return (try? JSONSerialization.jsonObject(with: Data(out.utf8))) as? [String: Any] ?? [:]
    }

    private func ddoc(_ arguments: [String] = []) throws -> String {
        let out = path("\(UUID().uuidString).ddoc")
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                TestEnvironment.script("make-ddoc.py"), "--pki", TestEnvironment.fixture("pki"),
                "--ocsp", services.url("ocsp").absoluteString, "--out", out,
            ] + arguments)
        XCTAssertEqual(result.status, 0, result.error)
        return out
    }

    private func signedASiCE(profile: String = "LT") async throws -> String {
        let document = try TestEnvironment.write("validate me\n", named: "a.txt", in: folder)
        let container = path("signed-\(profile).asice")
        let (created, _, createErr) = await runTamgaInProcess(["container", "create", container, document, "-q"])
        XCTAssertEqual(created, .success, createErr)
        let (signed, _, signErr) = await runTamgaInProcess([
            "sign", container, "--with", "key:\(TestEnvironment.pki("ec-p256.key.pem"))",
            "--cert", TestEnvironment.pki("ec-p256.cert.pem"), "--certs", TestEnvironment.pki("issuing-ca.cert.pem"),
            "--tsa", services.url("tsa").absoluteString, "--ocsp", services.url("ocsp").absoluteString,
            "--profile", profile, "-q",
        ])
        XCTAssertEqual(signed, .success, signErr)
        return container
    }

    /// Each container's report says what verify says of the same file: the form, the counts,
    /// each signature's id and verdict; and has every field a DigiDoc client reads as text.
    func testEachTestContainerIsReportedAsVerifyJudgesIt() async throws {
        let url = try serve()
        let asice = try await signedASiCE()
        let cases: [(file: String, name: String, form: String)] = [
            (asice, "signed.asice", "ASiC-E"),
            (try ddoc(), "good.ddoc", "DIGIDOC_XML_1.3"),
            (try ddoc(["--hashcode"]), "hashcode.ddoc", "DIGIDOC_XML_1.3_hashcode"),
            (try ddoc(["--version", "1.2"]), "old.ddoc", "DIGIDOC_XML_1.2"),
            (try ddoc(["--tamper-data"]), "tampered.ddoc", "DIGIDOC_XML_1.3"),
            (try ddoc(["--tamper-signature-value"]), "bad-signature.ddoc", "DIGIDOC_XML_1.3"),
        ]
        for (file, name, form) in cases {
            let (status, json) = try post(url, try request(file, name: name, policy: "POLv3"))
            XCTAssertEqual(status, 200, "\(name): \(json)")
            let report = conclusion(json)
            let verified = await verify(file)
            let verdicts = (verified["signatures"] as? [[String: Any]] ?? []).filter {
                $0["profile"] as? String != "TimeStampToken"
            }
            XCTAssertEqual(verdicts.count, 1, "\(name): one signature each")
            XCTAssertEqual(report["signatureForm"] as? String, form, name)
            XCTAssertEqual((report["validatedDocument"] as? [String: Any])?["filename"] as? String, name)
            XCTAssertEqual((report["policy"] as? [String: Any])?["policyName"] as? String, "POLv3")
            XCTAssertEqual(report["signaturesCount"] as? Int, verdicts.count, name)
            let passed = verdicts.filter { ["VALID", "WARNING", "NON_QSCD"].contains($0["status"] as? String ?? "") }
                .count
            XCTAssertEqual(report["validSignaturesCount"] as? Int, passed, "\(name): \(report)")
            let signatures = report["signatures"] as? [[String: Any]] ?? []
            XCTAssertEqual(signatures.count, verdicts.count, name)
            for (signature, verdict) in zip(signatures, verdicts) {
                XCTAssertEqual(signature["id"] as? String, verdict["id"] as? String, name)
                let ok = ["VALID", "WARNING", "NON_QSCD"].contains(verdict["status"] as? String ?? "")
                XCTAssertEqual(signature["indication"] as? String == "TOTAL-PASSED", ok, "\(name): \(signature)")
                // Under POLv3 nothing but tamga's verdict decides: the service and verify --json
                // say the same ETSI words, from the one mapping.
                XCTAssertEqual(signature["indication"] as? String, verdict["indication"] as? String, name)
                XCTAssertEqual(signature["subIndication"] as? String, verdict["subIndication"] as? String, name)
                for key in ["id", "claimedSigningTime", "signatureFormat", "indication", "signedBy"] {
                    XCTAssertNotNil(signature[key] as? String, "\(name): libdigidocpp reads \(key) as a string")
                }
                if !ok {
                    XCTAssertFalse(
                        (signature["errors"] as? [[String: Any]] ?? []).isEmpty, "\(name): a failed signature says why")
                }
                if form.hasPrefix("DIGIDOC") {
                    XCTAssertNil(signature["signatureLevel"], "SiVa gives DDOC no level")
                    XCTAssertEqual(
                        signature["signatureFormat"] as? String, "DIGIDOC_XML_\(form.split(separator: "_")[2])", name)
                } else {
                    XCTAssertEqual(signature["signatureFormat"] as? String, "XAdES_BASELINE_LT", name)
                    XCTAssertEqual(signature["signedBy"] as? String, "SIGNER,TEST,30303039914", name)
                }
            }
            if form.hasPrefix("DIGIDOC") {
                let warnings = (report["validationWarnings"] as? [[String: Any]] ?? []).compactMap {
                    $0["content"] as? String
                }
                XCTAssertTrue(
                    warnings.contains(
                        "The algorithm SHA1 used in DDOC is no longer considered reliable for signature creation!"),
                    "\(name): \(warnings)")
            }
            XCTAssertEqual(
                report["validSignaturesCount"] as? Int, ["tampered.ddoc", "bad-signature.ddoc"].contains(name) ? 0 : 1,
                name)
            if name == "tampered.ddoc" {
                let errors = (signatures.first?["errors"] as? [[String: Any]] ?? []).compactMap {
                    $0["content"] as? String
                }
                XCTAssertTrue(
                    errors.contains { $0.hasPrefix("Bad digest for DataFile") },
                    "libdigidocpp's cue to send the whole file: \(errors)")
                XCTAssertEqual(signatures.first?["subIndication"] as? String, "HASH_FAILURE")
            }
        }
        // POLv4, the default, asks for a qualified level: the test PKI's signature, judged by PEM
        // anchors and no trusted list, has none (NA) and fails; a DDOC has no level and passes.
        let (_, strict) = try post(url, try request(asice, name: "signed.asice"))
        let signature = (conclusion(strict)["signatures"] as? [[String: Any]])?.first ?? [:]
        XCTAssertEqual((conclusion(strict)["policy"] as? [String: Any])?["policyName"] as? String, "POLv4")
        XCTAssertEqual(signature["signatureLevel"] as? String, "NA")
        XCTAssertEqual(signature["indication"] as? String, "TOTAL-FAILED")
        XCTAssertTrue(
            (signature["errors"] as? [[String: Any]] ?? []).contains {
                $0["content"] as? String
                    == "Signature/seal level do not meet the minimal level required by applied policy"
            })
        XCTAssertEqual(conclusion(strict)["validSignaturesCount"] as? Int, 0)
        let (_, ddocStrict) = try post(url, try request(try ddoc(), name: "good.ddoc"))
        XCTAssertEqual(conclusion(ddocStrict)["validSignaturesCount"] as? Int, 1, "\(ddocStrict)")
    }

    /// Validations at once on the service's threads (the trust, the certificates, libxml2 and
    /// OpenSSL shared between them) give each the answer one alone gives.
    func testConcurrentValidationsAgreeWithOneAlone() async throws {
        let url = try serve(["--threads", "4"])
        let bodies = [
            try request(try await signedASiCE(), name: "signed.asice", policy: "POLv3"),
            try request(try ddoc(), name: "good.ddoc"), try request(try ddoc(["--tamper-data"]), name: "bad.ddoc"),
        ]
        var files: [String] = []
        for (index, body) in bodies.enumerated() {
            files.append(path("body-\(index).json"))
            try body.write(to: URL(fileURLWithPath: files[index]))
        }
        let requests = files
        let alone = requests.map { Self.comparableAnswer(url, $0) }
        XCTAssertTrue(alone.allSatisfy { $0.contains("signaturesCount") }, "\(alone)")
        let answers = LockedLines()
        DispatchQueue.concurrentPerform(iterations: 24) { index in
            answers.append("\(index % requests.count) \(Self.comparableAnswer(url, requests[index % requests.count]))")
        }
        XCTAssertEqual(answers.all.count, 24)
        for line in answers.all {
            let index = Int(line.prefix(1)) ?? 0
            XCTAssertEqual(String(line.dropFirst(2)), alone[index], "request \(index)")
        }
    }

    /// curl's answer to the body in `file`, its validation conclusion without the time, as text.
    private static func comparableAnswer(_ url: URL, _ file: String) -> String {
        guard
            let result = try? TestEnvironment.run(
                "/usr/bin/curl",
                [
                    "-s", "-S", "-H", "Content-Type: application/json", "--data-binary", "@\(file)",
                    url.appendingPathComponent("validate").absoluteString,
                ]),
            let json = (try? JSONSerialization.jsonObject(with: Data(result.output.utf8))) as? [String: Any],
            var report = (json["validationReport"] as? [String: Any])?["validationConclusion"] as? [String: Any]
        else { return "no answer" }
        report["validationTime"] = nil
        return String(
            decoding: (try? JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])) ?? Data(),
            as: UTF8.self)
    }

    /// POST /getDataFiles gives a DDOC's files back as `container extract` writes them; a
    /// hashcode DDOC's files have no content to give; only .ddoc names are taken.
    func testGetDataFilesGivesTheDDOCsFilesAsExtractDoes() async throws {
        let url = try serve()
        let good = try ddoc()
        let (status, json) = try post(url, try request(good, name: "good.ddoc"), path: "getDataFiles")
        XCTAssertEqual(status, 200, "\(json)")
        let files = json["dataFiles"] as? [[String: Any]] ?? []
        XCTAssertEqual(files.count, 1, "\(json)")
        let out = path("extracted")
        let (extracted, _, error) = await runTamgaInProcess(["container", "extract", good, "--to", out, "-q"])
        XCTAssertEqual(extracted, .success, error)
        for file in files {
            let name = try XCTUnwrap(file["filename"] as? String)
            let expected = try TestEnvironment.bytes(URL(fileURLWithPath: out).appendingPathComponent(name).path)
            XCTAssertEqual(Data(base64Encoded: file["base64"] as? String ?? ""), expected, name)
            XCTAssertEqual(file["size"] as? Int, expected.count)
            XCTAssertNotNil(file["mimeType"] as? String)
        }
        let (_, hashcode) = try post(url, try request(try ddoc(["--hashcode"]), name: "h.ddoc"), path: "getDataFiles")
        let hashed = hashcode["dataFiles"] as? [[String: Any]] ?? []
        XCTAssertEqual(hashed.count, 1, "\(hashcode)")
        XCTAssertNil(hashed.first?["base64"], "a hashcode DataFile's content is not in the document")
        let (refused, errors) = try post(url, try request(good, name: "good.asice"), path: "getDataFiles")
        XCTAssertEqual(refused, 400)
        XCTAssertEqual(
            (errors["requestErrors"] as? [[String: Any]])?.first?["message"] as? String,
            "Invalid filename. Can only return data files for DDOC type containers.")
        let (notDDOC, _) = try post(url, try request(try await signedASiCE(), name: "x.ddoc"), path: "getDataFiles")
        XCTAssertEqual(notDDOC, 400, "an ASiC-E named .ddoc")
    }

    /// POST /validateHashcode: the signature file of a signed ASiC-E with its data file's hash
    /// passes as the container does; a wrong hash fails as a tampered file does; without data
    /// files the report lists the digests the signature states; a hash in another algorithm is
    /// said to be one; and a request with two signature files reports both.
    func testHashcodeValidationJudgesTheSignatureFileAsTheContainer() async throws {
        let url = try serve()
        let asice = try await signedASiCE()
        let signatureFile = path("signatures0.xml")
        let unzipped = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sys, zipfile; open(sys.argv[2], 'wb').write(zipfile.ZipFile(sys.argv[1]).read('META-INF/signatures0.xml'))",
                asice, signatureFile,
            ])
        XCTAssertEqual(unzipped.status, 0, unzipped.error)
        let signature = try TestEnvironment.bytes(signatureFile).base64EncodedString()
        let content = Data("validate me\n".utf8)
        let sha256 = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                "-c",
                "import hashlib, base64; print(base64.b64encode(hashlib.sha256(b'validate me\\n').digest()).decode())",
            ])
        let hash = sha256.output.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(Data(base64Encoded: hash)?.count, 32, "\(content.count) bytes hashed by Python")
        func body(_ files: [[String: Any]]?, signatures: Int = 1) throws -> Data {
            var entry: [String: Any] = ["signature": signature]
            if let files { entry["datafiles"] = files }
            return try JSONSerialization.data(withJSONObject: [
                "signatureFiles": Array(repeating: entry, count: signatures), "signaturePolicy": "POLv3",
            ])
        }
        func firstSignature(_ json: [String: Any]) -> [String: Any] {
            (conclusion(json)["signatures"] as? [[String: Any]])?.first ?? [:]
        }
        func errors(_ json: [String: Any]) -> [String] {
            (firstSignature(json)["errors"] as? [[String: Any]] ?? []).compactMap { $0["content"] as? String }
        }

        let verified = await verify(asice)
        let verdict =
            (verified["signatures"] as? [[String: Any]] ?? []).first { $0["profile"] as? String != "TimeStampToken" }
            ?? [:]
        var (status, json) = try post(
            url, try body([["filename": "a.txt", "hashAlgo": "SHA256", "hash": hash]]), path: "validateHashcode")
        XCTAssertEqual(status, 200, "\(json)")
        XCTAssertEqual(firstSignature(json)["indication"] as? String, "TOTAL-PASSED", "\(json)")
        XCTAssertEqual(firstSignature(json)["indication"] as? String, verdict["indication"] as? String)
        XCTAssertEqual(firstSignature(json)["id"] as? String, verdict["id"] as? String)
        XCTAssertEqual(firstSignature(json)["signatureFormat"] as? String, "XAdES_BASELINE_LT")
        XCTAssertEqual(conclusion(json)["validSignaturesCount"] as? Int, 1)
        XCTAssertNil(conclusion(json)["signatureForm"], "SiVa gives a hashcode answer no form")
        XCTAssertNil(conclusion(json)["validatedDocument"])
        let scope = (firstSignature(json)["signatureScopes"] as? [[String: Any]])?.first ?? [:]
        XCTAssertEqual(scope["name"] as? String, "a.txt")
        XCTAssertEqual(scope["hashAlgo"] as? String, "SHA256")
        XCTAssertEqual(scope["hash"] as? String, hash)

        // One byte of the hash changed: the data file is not the one signed.
        var wrong = Data(base64Encoded: hash) ?? Data()
        wrong[0] ^= 1
        (status, json) = try post(
            url, try body([["filename": "a.txt", "hashAlgo": "SHA256", "hash": wrong.base64EncodedString()]]),
            path: "validateHashcode")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(firstSignature(json)["indication"] as? String, "TOTAL-FAILED", "\(json)")
        XCTAssertEqual(firstSignature(json)["subIndication"] as? String, "HASH_FAILURE", "as SiVa: \(json)")
        XCTAssertEqual(
            errors(json).first, "The reference data object is not intact!", "DSS's words first, as SiVa gives them")
        XCTAssertEqual(conclusion(json)["validSignaturesCount"] as? Int, 0)
        XCTAssertEqual(conclusion(json)["validationLevel"] as? String, "ARCHIVAL_DATA")
        // A data file the signature does not cover, or one it covers left out: not passed.
        (status, json) = try post(
            url,
            try body([
                ["filename": "a.txt", "hashAlgo": "SHA256", "hash": hash],
                ["filename": "b.txt", "hashAlgo": "SHA256", "hash": hash],
            ]),
            path: "validateHashcode")
        XCTAssertEqual(
            firstSignature(json)["indication"] as? String, "TOTAL-PASSED",
            "a file given that it does not cover is passed by, as SiVa does: \(json)")
        XCTAssertEqual(
            (firstSignature(json)["signatureScopes"] as? [[String: Any]])?.compactMap { $0["name"] as? String },
            ["a.txt"], "only what it covers")
        XCTAssertTrue(
            (firstSignature(json)["warnings"] as? [[String: Any]] ?? []).contains {
                ($0["content"] as? String)?.hasPrefix("b.txt was given") == true
            }, "\(json)")
        (status, json) = try post(
            url, try body([["filename": "other.txt", "hashAlgo": "SHA256", "hash": hash]]), path: "validateHashcode")
        XCTAssertEqual(
            firstSignature(json)["indication"] as? String, "INDETERMINATE", "the signed file missing, as SiVa: \(json)")
        XCTAssertEqual(firstSignature(json)["subIndication"] as? String, "SIGNED_DATA_NOT_FOUND")
        XCTAssertEqual(errors(json).first, "The reference data object has not been found!")
        // The hash in another algorithm than the signature's: said so, and not passed.
        (status, json) = try post(
            url,
            try body([
                [
                    "filename": "a.txt", "hashAlgo": "SHA512",
                    "hash": Data(repeating: 1, count: 64).base64EncodedString(),
                ]
            ]),
            path: "validateHashcode")
        XCTAssertEqual(firstSignature(json)["indication"] as? String, "INDETERMINATE", "as SiVa: \(json)")
        XCTAssertEqual(firstSignature(json)["subIndication"] as? String, "SIGNED_DATA_NOT_FOUND")
        XCTAssertTrue(errors(json).contains { $0.contains("SHA512") && $0.contains("SHA256") }, "\(errors(json))")

        // No data files: the signature's own digests are reported, for the caller to compare.
        (status, json) = try post(url, try body(nil), path: "validateHashcode")
        XCTAssertEqual(status, 200)
        XCTAssertEqual(firstSignature(json)["indication"] as? String, "TOTAL-PASSED", "\(json)")
        let stated = (firstSignature(json)["signatureScopes"] as? [[String: Any]])?.first ?? [:]
        XCTAssertEqual(stated["name"] as? String, "a.txt")
        XCTAssertEqual(stated["hash"] as? String, hash, "the digest the signature states is the file's")

        // Two signature files in one request: both reported, counted once each.
        (status, json) = try post(
            url, try body([["filename": "a.txt", "hashAlgo": "SHA256", "hash": hash]], signatures: 2),
            path: "validateHashcode")
        XCTAssertEqual(conclusion(json)["signaturesCount"] as? Int, 2, "\(json)")
        XCTAssertEqual(conclusion(json)["validSignaturesCount"] as? Int, 2)

        // LTA: the archive time-stamp covers the files' bytes, which are not sent: said, and the
        // signature judged on the rest.
        let lta = try await signedASiCE(profile: "LTA")
        let ltaSignature = path("lta-signatures0.xml")
        XCTAssertEqual(
            try TestEnvironment.run(
                "/usr/bin/python3",
                [
                    "-c",
                    "import sys, zipfile; open(sys.argv[2], 'wb').write(zipfile.ZipFile(sys.argv[1]).read('META-INF/signatures0.xml'))",
                    lta, ltaSignature,
                ]
            ).status, 0)
        (status, json) = try post(
            url,
            try JSONSerialization.data(withJSONObject: [
                "signaturePolicy": "POLv3",
                "signatureFiles": [
                    [
                        "signature": try TestEnvironment.bytes(ltaSignature).base64EncodedString(),
                        "datafiles": [["filename": "a.txt", "hashAlgo": "SHA256", "hash": hash]],
                    ]
                ],
            ]),
            path: "validateHashcode")
        XCTAssertEqual(firstSignature(json)["indication"] as? String, "TOTAL-PASSED", "\(json)")
        XCTAssertEqual(firstSignature(json)["signatureFormat"] as? String, "XAdES_BASELINE_LTA")
        XCTAssertTrue(
            (firstSignature(json)["warnings"] as? [[String: Any]] ?? []).contains {
                ($0["content"] as? String)?.contains("given only by digest") == true
            }, "\(json)")

        // The whole container, or nonsense, where a signature file belongs: SiVa's 400.
        (status, json) = try post(
            url,
            try JSONSerialization.data(withJSONObject: [
                "signatureFiles": [["signature": try TestEnvironment.bytes(asice).base64EncodedString()]]
            ]),
            path: "validateHashcode")
        XCTAssertEqual(status, 400)
        XCTAssertEqual(
            (json["requestErrors"] as? [[String: Any]])?.first?["message"] as? String, "Signature file malformed")
    }

    /// What a client can send wrong is a 4xx with SiVa's shape, never a 5xx; the process lives on.
    func testBadRequestsAreAnsweredAsSiVaAnswersThem() async throws {
        let url = try serve()
        let limited = try serve(["--max-document-size", "2000"])
        let asice = try await signedASiCE()
        func firstError(_ json: [String: Any]) -> String {
            guard let first = (json["requestErrors"] as? [[String: Any]])?.first else { return "none: \(json)" }
            return "\(first["key"] ?? ""): \(first["message"] ?? "")"
        }
        var (status, json) = try post(url, Data(#"{"document":"QUJD","filename":"x.asice","filename":"y.ddoc"}"#.utf8))
        XCTAssertEqual(status, 400)
        XCTAssertEqual(firstError(json), "requestBodyNotReadable: Request body is malformed and cannot be read")
        (status, json) = try post(url, Data(#"{"document":"JVBERi0xLjQK","filename":"scan.pdf"}"#.utf8))
        XCTAssertEqual(status, 400)
        XCTAssertTrue(firstError(json).hasPrefix("document: Document type not supported: .pdf"), firstError(json))
        (status, json) = try post(url, try request(asice, name: "signed.ddoc"))
        XCTAssertEqual(status, 400, "an ASiC-E named .ddoc")
        XCTAssertEqual(firstError(json), "document: Document malformed or not matching documentType")
        (status, json) = try post(url, try request(asice, name: "../../etc/signed.asice"))
        XCTAssertEqual(status, 400)
        XCTAssertEqual(firstError(json), "filename: Invalid filename")
        (status, json) = try post(
            url, Data(#"{"document":"QUJD","filename":"x.asice"}"#.utf8),
            contentType: "application/x-www-form-urlencoded")
        XCTAssertEqual(status, 415)
        // The container is larger than 2000 bytes: refused after decoding; a body far over the
        // HTTP bound is refused by the server before the handler.
        XCTAssertGreaterThan(try TestEnvironment.bytes(asice).count, 2000)
        (status, json) = try post(limited, try request(asice, name: "signed.asice"))
        XCTAssertEqual(status, 413)
        XCTAssertTrue(firstError(json).hasPrefix("document: Document is larger than the 2000 bytes"), firstError(json))
        (status, json) = try post(
            limited, Data(#"{"document":"\#(String(repeating: "QUJD", count: 40_000))","filename":"x.asice"}"#.utf8))
        XCTAssertEqual(status, 413)
        XCTAssertTrue(
            firstError(json).hasPrefix("request: Request body length exceeds request size limit"), firstError(json))
        // A client that asks before sending (Expect: 100-continue) is refused before it sends.
        (status, json) = try post(
            limited, Data(#"{"document":"\#(String(repeating: "QUJD", count: 40_000))","filename":"x.asice"}"#.utf8),
            expectContinue: true)
        XCTAssertEqual(status, 413)
        XCTAssertTrue(
            firstError(json).hasPrefix("request: Request body length exceeds request size limit"), firstError(json))
        (status, json) = try post(url, Data(), path: "monitoring/health")
        XCTAssertEqual(status, 405)
        let health = try TestEnvironment.run(
            "/usr/bin/curl", ["-s", url.appendingPathComponent("monitoring/health").absoluteString])
        XCTAssertTrue(health.output.contains(#""status":"UP""#), health.output)
    }
}
