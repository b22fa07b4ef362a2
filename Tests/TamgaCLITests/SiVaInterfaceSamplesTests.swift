import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// Every sample request and response of SiVa's interface document (open-eid/SiVa
/// docs/siva3/interfaces.md): each sample request, in its shape, is posted to `tamga validation
/// serve` and answered; each sample response's shape is written below as a skeleton (the
/// document's members and JSON types, with tamga's own placeholder values), and the answer to
/// the matching request must have every member of it, with the same type, and the values from
/// the document's value sets. Trust is the test list of lists on loopback, so levels are judged.
/// Where the document and SiVa's own current code disagree, tamga answers as the code does,
/// and the test says so (`fileName`, the getDataFiles error).
final class SiVaInterfaceSamplesTests: XCTestCase {
    private var harness: ValidationServeHarness!

    override func setUpWithError() throws { harness = try ValidationServeHarness("siva-samples") }
    override func tearDown() { harness.stop() }

    // MARK: - Shapes

    /// Fails for each member of `skeleton` that `answer` lacks or has with another JSON type.
    /// An array in the skeleton asks that each of its elements match some element of the answer's.
    private func assertShape(
        _ answer: Any?, like skeleton: Any, at path: String = "", file: StaticString = #filePath, line: UInt = #line
    ) {
        switch skeleton {
        case let object as [String: Any]:
            guard let answered = answer as? [String: Any] else {
                return XCTFail("\(path): not an object: \(String(describing: answer))", file: file, line: line)
            }
            for (key, value) in object {
                assertShape(answered[key], like: value, at: "\(path).\(key)", file: file, line: line)
            }
        case let array as [Any]:
            guard let answered = answer as? [Any], !answered.isEmpty else {
                return XCTFail("\(path): not a non-empty array: \(String(describing: answer))", file: file, line: line)
            }
            for (index, element) in array.enumerated() where !answered.contains(where: { matches($0, element) }) {
                XCTFail(
                    "\(path)[\(index)]: no element of the answer has this sample element's members: \(answered)",
                    file: file, line: line)
            }
        case is String:
            XCTAssertTrue(
                answer is String, "\(path): not a string: \(String(describing: answer))", file: file, line: line)
        case is NSNumber:
            XCTAssertTrue(
                answer is NSNumber && !(answer is String), "\(path): not a number: \(String(describing: answer))",
                file: file, line: line)
        default:
            XCTFail("\(path): the skeleton has a \(type(of: skeleton))", file: file, line: line)
        }
    }

    private func matches(_ answer: Any, _ skeleton: Any) -> Bool {
        switch skeleton {
        case let object as [String: Any]:
            guard let answered = answer as? [String: Any] else { return false }
            return object.allSatisfy { key, value in answered[key].map { matches($0, value) } ?? false }
        case let array as [Any]:
            guard let answered = answer as? [Any], !answered.isEmpty else { return false }
            return array.allSatisfy { element in answered.contains { matches($0, element) } }
        case is String: return answer is String
        case is NSNumber: return answer is NSNumber
        default: return false
        }
    }

    private static let date = #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"#
    private func assertDate(_ value: Any?, _ what: String) {
        XCTAssertNotNil(
            (value as? String)?.range(of: Self.date, options: .regularExpression),
            "\(what): \(String(describing: value))")
    }

    private func skeleton(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    /// "Sample JSON response Simple Report (successful scenario)", as members and types.
    private static let simpleReport = """
        {"validationReport": {"validationConclusion": {
          "validationTime": "T", "signaturesCount": 0, "validationLevel": "L", "validatedDocument": {"filename": "F"},
          "validSignaturesCount": 0,
          "signatures": [{
            "signatureFormat": "F", "subjectDistinguishedName": {"commonName": "C", "serialNumber": "S"},
            "certificates": [{"commonName": "C", "type": "T", "content": "B"},
                             {"commonName": "C", "type": "T", "content": "B", "issuer": {"commonName": "C", "content": "B"}}],
            "signedBy": "S", "claimedSigningTime": "T", "signatureLevel": "L",
            "signatureScopes": [{"scope": "S", "name": "N", "content": "C"}],
            "signatureMethod": "M", "id": "I", "indication": "I",
            "info": {"timestampCreationTime": "T", "timeAssertionMessageImprint": "B", "bestSignatureTime": "T", "ocspResponseCreationTime": "T"}}],
          "policy": {"policyDescription": "D", "policyUrl": "U", "policyName": "N"},
          "signatureForm": "F"}}}
        """

    /// "Sample JSON response Simple Report (ASiC-S with 2 timestamps)": one failed token, one passed.
    private static let failedToken = """
        {"signedTime": "T", "certificates": [{"commonName": "C", "type": "T", "content": "B"}], "signedBy": "S",
         "indication": "I", "error": [{"content": "E"}], "subIndication": "S", "timestampLevel": "L"}
        """
    private static let passedToken = """
        {"signedTime": "T", "certificates": [{"commonName": "C", "type": "T", "content": "B"}], "signedBy": "S",
         "indication": "I", "timestampScopes": [{"scope": "S", "name": "N", "content": "C"}], "timestampLevel": "L"}
        """
    private static let asicsReport = """
        {"validationReport": {"validationConclusion": {
          "validationTime": "T", "signaturesCount": 0, "validatedDocument": {"filename": "F"}, "validSignaturesCount": 0,
          "timeStampTokens": [], "policy": {"policyDescription": "D", "policyUrl": "U", "policyName": "N"}, "signatureForm": "F"}}}
        """

    private static let formats: Set<String> = [
        "XAdES_BASELINE_B", "XAdES_BASELINE_B_BES", "XAdES_BASELINE_B_EPES", "XAdES_BASELINE_T", "XAdES_BASELINE_LT",
        "XAdES_BASELINE_LT_TM", "XAdES_BASELINE_LTA",
    ]
    private static let levels: Set<String> = {
        let positive = ["QESIG", "QESEAL", "QES", "ADESIG_QC", "ADESEAL_QC", "ADES_QC", "ADESIG", "ADESEAL", "ADES"]
        return Set(
            positive + positive.map { "INDETERMINATE_" + $0 } + ["NOT_ADES_QC_QSCD", "NOT_ADES_QC", "NOT_ADES", "NA"])
    }()
    private static let certificateTypes: Set<String> = [
        "SIGNING", "REVOCATION", "SIGNATURE_TIMESTAMP", "ARCHIVE_TIMESTAMP", "CONTENT_TIMESTAMP",
    ]

    private func conclusion(_ body: Any?) -> [String: Any] {
        ((body as? [String: Any])?["validationReport"] as? [String: Any])?["validationConclusion"] as? [String: Any]
            ?? [:]
    }

    // MARK: - POST /validate

    /// "Sample JSON request with mandatory parameters" and "… with all parameters", answered
    /// with the "Simple Report (successful scenario)" shape and value sets.
    func testTheValidationSamplesAreAnsweredWithTheSimpleReportsMembers() async throws {
        await harness.updateTrust()
        let container = try await harness.signedContainer(named: "sample.asice")
        let (url, _) = try harness.serve([])
        let document = try TestEnvironment.bytes(container).base64EncodedString()
        let mandatory = try harness.post(url, "validate", ["filename": "sample.bdoc", "document": document])
        let all = try harness.post(
            url, "validate",
            ["filename": "sample.asice", "document": document, "signaturePolicy": "POLv3", "reportType": "Detailed"])
        XCTAssertEqual(mandatory.0, 200)
        XCTAssertEqual(all.0, 200)
        for (answer, policy) in [(mandatory.1, "POLv4"), (all.1, "POLv3")] {
            let conclusion = conclusion(answer)
            XCTAssertEqual(
                (conclusion["policy"] as? [String: Any])?["policyName"] as? String, policy,
                "the default policy is POLv4")
            XCTAssertEqual(conclusion["signatureForm"] as? String, "ASiC-E")
            assertDate(conclusion["validationTime"], "validationTime")
            let signature = (conclusion["signatures"] as? [[String: Any]])?.first ?? [:]
            XCTAssertTrue(Self.formats.contains(signature["signatureFormat"] as? String ?? ""), "\(signature)")
            XCTAssertTrue(Self.levels.contains(signature["signatureLevel"] as? String ?? ""), "\(signature)")
            XCTAssertTrue(
                ["TOTAL-PASSED", "TOTAL-FAILED", "INDETERMINATE"].contains(signature["indication"] as? String ?? ""))
            assertDate(signature["claimedSigningTime"], "claimedSigningTime")
        }
        // The sample is a passed signature: POLv3 passes every level, so its answer has every member.
        let passed = conclusion(all.1)
        XCTAssertEqual(passed["validSignaturesCount"] as? Int, 1, "\(passed)")
        // DSS's level, which SiVa gives for ASiC-E but not for a file named .bdoc (its BDOC
        // validation does not say it): the mandatory sample's sample.bdoc has none.
        XCTAssertEqual(passed["validationLevel"] as? String, "ARCHIVAL_DATA")
        XCTAssertNil(conclusion(mandatory.1)["validationLevel"])
        assertShape(all.1, like: try skeleton(Self.simpleReport))
        let signature = (passed["signatures"] as? [[String: Any]])?.first ?? [:]
        XCTAssertEqual(signature["indication"] as? String, "TOTAL-PASSED")
        XCTAssertEqual(signature["signatureFormat"] as? String, "XAdES_BASELINE_LT")
        XCTAssertEqual(signature["signatureMethod"] as? String, "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha256")
        // SiVa's code writes "SURNAME,GIVENNAME,CODE" (the sample's "JÕEORG,JAAK-KRISTJAN,38001085718").
        XCTAssertEqual(signature["signedBy"] as? String, "SIGNER,TEST,30303039914")
        XCTAssertEqual(
            (signature["subjectDistinguishedName"] as? [String: Any])?["serialNumber"] as? String, "PNOEE-30303039914")
        let info = signature["info"] as? [String: Any] ?? [:]
        for key in ["timestampCreationTime", "bestSignatureTime", "ocspResponseCreationTime"] {
            assertDate(info[key], key)
        }
        XCTAssertEqual(
            info["timestampCreationTime"] as? String, info["bestSignatureTime"] as? String,
            "an LT signature's best time is its time-stamp's")
        // The imprint is the time-stamp's MessageImprint: SHA-256 (as the sample's "MDEwDQYJYIZIAWUDBAIBBQAE…").
        XCTAssertTrue(
            (info["timeAssertionMessageImprint"] as? String ?? "").hasPrefix("MDEwDQYJYIZIAWUDBAIBBQAE"), "\(info)")
        let certificates = signature["certificates"] as? [[String: Any]] ?? []
        XCTAssertEqual(
            Set(certificates.compactMap { $0["type"] as? String }), ["SIGNING", "SIGNATURE_TIMESTAMP", "REVOCATION"])
        XCTAssertTrue(certificates.allSatisfy { Self.certificateTypes.contains($0["type"] as? String ?? "") })
        // Each certificate is the real one, in DER: the signer's and its issuer's are Fixtures/pki's.
        let signing = certificates.first { $0["type"] as? String == "SIGNING" } ?? [:]
        XCTAssertEqual(signing["commonName"] as? String, "TEST SIGNER EC256")
        XCTAssertEqual(signing["content"] as? String, try Self.der(TestEnvironment.pki("ec-p256.cert.pem")))
        XCTAssertEqual(
            (signing["issuer"] as? [String: Any])?["content"] as? String,
            try Self.der(TestEnvironment.pki("issuing-ca.cert.pem")))
        XCTAssertEqual(
            certificates.first { $0["type"] as? String == "SIGNATURE_TIMESTAMP" }?["commonName"] as? String,
            "tamga Test TSA")
        XCTAssertEqual(
            certificates.first { $0["type"] as? String == "REVOCATION" }?["commonName"] as? String,
            "tamga Test OCSP Responder")
        let scopes = signature["signatureScopes"] as? [[String: Any]] ?? []
        XCTAssertEqual(scopes.first?["scope"] as? String, "FULL")
        XCTAssertEqual(scopes.first?["content"] as? String, "Full document")
    }

    /// The table's claimed members: `info.signerRole[].claimedRole` and
    /// `info.signatureProductionPlace` by part, as the signer wrote them.
    func testTheSignersClaimsAreInTheInfo() async throws {
        await harness.updateTrust()
        let container = try await harness.signedContainer(
            named: "claims.asice",
            signOptions: [
                "--role", "Juhatuse liige", "--city", "Tartu",
                "--state", "Tartumaa", "--postal-code", "50090", "--country", "Eesti",
            ])
        let (url, _) = try harness.serve([])
        let (status, conclusion) = try harness.validate(url, container, name: "claims.asice")
        XCTAssertEqual(status, 200)
        let info = ((conclusion["signatures"] as? [[String: Any]])?.first?["info"] as? [String: Any]) ?? [:]
        XCTAssertEqual(info["signerRole"] as? [[String: String]], [["claimedRole": "Juhatuse liige"]], "\(info)")
        XCTAssertEqual(
            info["signatureProductionPlace"] as? [String: String],
            ["city": "Tartu", "stateOrProvince": "Tartumaa", "postalCode": "50090", "countryName": "Eesti"], "\(info)")
    }

    /// The DER of a PEM certificate, base64, as the report gives it.
    private static func der(_ pem: String) throws -> String {
        let text = try String(contentsOfFile: pem, encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    }

    /// "Sample JSON response Simple Report (ASiC-S with 2 timestamps)": a passed token and a
    /// failed one (here two archives, one intact, one carrying another archive's token).
    func testTheASiCSSampleIsAnsweredWithItsTimeStampTokensMembers() async throws {
        await harness.updateTrust()
        let container = try await harness.signedContainer(named: "inner.asice")
        let services = try harness.loopbackServices()
        let archive = harness.folder.appendingPathComponent("sample.asics").path
        let (stamped, _, error) = await harness.tamga([
            "container", "timestamp", container, archive, "--tsa", services.url("tsa").absoluteString, "-q",
        ])
        XCTAssertEqual(stamped, .success, error)
        // Another archive's token in this archive: it covers other bytes than the data object.
        let other = try await harness.signedContainer(named: "other.asice", document: "other\n")
        let otherArchive = harness.folder.appendingPathComponent("other.asics").path
        let (otherStamped, _, otherError) = await harness.tamga([
            "container", "timestamp", other, otherArchive, "--tsa", services.url("tsa").absoluteString, "-q",
        ])
        XCTAssertEqual(otherStamped, .success, otherError)
        let tampered = harness.folder.appendingPathComponent("tampered.asics").path
        let swapped = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                "-c",
                """
                import sys, zipfile
                source, donor, out = sys.argv[1:4]
                with zipfile.ZipFile(source) as a, zipfile.ZipFile(donor) as b, zipfile.ZipFile(out, "w") as z:
                    for info in a.infolist():
                        data = b.read(info.filename) if info.filename == "META-INF/timestamp.tst" else a.read(info.filename)
                        z.writestr(info, data)
                """, archive, otherArchive, tampered,
            ])
        XCTAssertEqual(swapped.status, 0, swapped.error)
        let (url, _) = try harness.serve([])
        let good = try harness.post(
            url, "validate",
            ["filename": "sample.asics", "document": try TestEnvironment.bytes(archive).base64EncodedString()])
        let bad = try harness.post(
            url, "validate",
            ["filename": "tampered.asics", "document": try TestEnvironment.bytes(tampered).base64EncodedString()])
        XCTAssertEqual(good.0, 200)
        XCTAssertEqual(bad.0, 200)
        assertShape(good.1, like: try skeleton(Self.asicsReport))
        assertShape(bad.1, like: try skeleton(Self.asicsReport))
        let passed = (conclusion(good.1)["timeStampTokens"] as? [Any])?.first
        let failed = (conclusion(bad.1)["timeStampTokens"] as? [Any])?.first
        assertShape(passed, like: try skeleton(Self.passedToken), at: "passed token")
        assertShape(failed, like: try skeleton(Self.failedToken), at: "failed token")
        let passedToken = passed as? [String: Any] ?? [:], failedToken = failed as? [String: Any] ?? [:]
        XCTAssertEqual(conclusion(good.1)["signatureForm"] as? String, "ASiC-S")
        XCTAssertEqual(passedToken["indication"] as? String, "TOTAL-PASSED")
        XCTAssertEqual(failedToken["indication"] as? String, "TOTAL-FAILED")
        XCTAssertEqual(failedToken["subIndication"] as? String, "HASH_FAILURE", "\(failedToken)")
        XCTAssertEqual(passedToken["timestampLevel"] as? String, "QTSA", "the LV list's qualified TSA")
        XCTAssertTrue(["QTSA", "TSA", "N/A"].contains(failedToken["timestampLevel"] as? String ?? ""))
        assertDate(passedToken["signedTime"], "signedTime")
        XCTAssertEqual(passedToken["signedBy"] as? String, "tamga Test TSA")
        let scopes = passedToken["timestampScopes"] as? [[String: Any]] ?? []
        XCTAssertEqual(scopes.first?["name"] as? String, "inner.asice")
        XCTAssertTrue(
            (passedToken["certificates"] as? [[String: Any]] ?? []).allSatisfy {
                $0["type"] as? String == "CONTENT_TIMESTAMP"
            })
        // The sample's other warning ("The time-stamp token does not cover container datafile!")
        // belongs to a token over something else than the data object: tamga fails such a token
        // (HASH_FAILURE, as here) rather than warning, so no answer here has a `warning` member.
    }

    /// "Sample JSON response (error situation)".
    func testTheErrorSampleIsAnsweredWordForWord() async throws {
        let (url, _) = try harness.serve(["--trust", TestEnvironment.pki("root.cert.pem")])
        let (status, body) = try harness.post(
            url, "validate", ["filename": "sample.asice", "document": Data("PK not a zip".utf8).base64EncodedString()])
        XCTAssertEqual(status, 400)
        let errors = (body as? [String: Any])?["requestErrors"] as? [[String: Any]] ?? []
        XCTAssertEqual(errors.count, 1)
        XCTAssertEqual(errors.first?["key"] as? String, "document")
        XCTAssertEqual(errors.first?["message"] as? String, "Document malformed or not matching documentType")
    }

    // MARK: - POST /validateHashcode

    /// Both hashcode samples: two signature files without data files (the integrator compares
    /// the hashes), and two with them, Simple and POLv4.
    func testTheHashcodeSamplesAreAnswered() async throws {
        await harness.updateTrust()
        let container = try await harness.signedContainer(named: "leping.asice", document: "leping\n", signatures: 2)
        var signatures: [String] = []
        for index in 0..<2 {
            let extracted = try TestEnvironment.run(
                "/usr/bin/unzip", ["-p", container, "META-INF/signatures\(index).xml"])
            XCTAssertEqual(extracted.status, 0, extracted.error)
            signatures.append(Data(extracted.output.utf8).base64EncodedString())
        }
        let digest = try TestEnvironment.run(
            "/bin/sh", ["-c", "printf 'leping\\n' | openssl dgst -sha256 -binary | base64"]
        ).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let (url, _) = try harness.serve([])
        let mandatory = try harness.post(
            url, "validateHashcode", ["signatureFiles": signatures.map { ["signature": $0] }])
        let files: [[String: Any]] = [["filename": "a.txt", "hashAlgo": "SHA256", "hash": digest]]
        let all = try harness.post(
            url, "validateHashcode",
            [
                "signatureFiles": signatures.map { ["signature": $0, "datafiles": files] },
                "reportType": "Simple", "signaturePolicy": "POLv4",
            ])
        for (status, body) in [mandatory, all] {
            XCTAssertEqual(status, 200, "\(String(describing: body))")
            let conclusion = conclusion(body)
            XCTAssertEqual(conclusion["signaturesCount"] as? Int, 2, "\(conclusion)")
            XCTAssertNil(conclusion["validatedDocument"], "not present for hashcode validation")
            XCTAssertNil(conclusion["signatureForm"])
            for signature in conclusion["signatures"] as? [[String: Any]] ?? [] {
                assertDate(signature["claimedSigningTime"], "claimedSigningTime")
                XCTAssertTrue(Self.levels.contains(signature["signatureLevel"] as? String ?? ""), "\(signature)")
            }
        }
        // Without data files the signature's own digests are listed for the integrator to compare.
        let scopes =
            (conclusion(mandatory.1)["signatures"] as? [[String: Any]])?.first?["signatureScopes"] as? [[String: Any]]
            ?? []
        XCTAssertEqual(scopes.first?["hash"] as? String, digest, "\(conclusion(mandatory.1))")
        XCTAssertEqual(scopes.first?["hashAlgo"] as? String, "SHA256")
    }

    // MARK: - POST /getDataFiles

    /// "Data files request" and its two response samples. The success sample names the file
    /// `fileName`; SiVa's current code (DataFileData) and its own tests use `filename`, which is
    /// what tamga answers. The error sample's key `documentType` and "Invalid document type…"
    /// are the document's; SiVa's current code answers `filename` with "Invalid filename. Can
    /// only return data files for DDOC type containers.", as tamga does.
    func testTheDataFilesSamplesAreAnswered() async throws {
        let (url, _) = try harness.serve(["--trust", TestEnvironment.pki("root.cert.pem")])
        let document = try TestEnvironment.write("Glitter\n", named: "Glitter-rock-4_gallery.jpg", in: harness.folder)
        let ddoc = harness.folder.appendingPathComponent("sample.ddoc").path
        let services = try harness.loopbackServices()
        let made = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                TestEnvironment.script("make-ddoc.py"), "--pki", TestEnvironment.fixture("pki"),
                "--ocsp", services.url("ocsp").absoluteString, "--out", ddoc, "--file",
                "Glitter-rock-4_gallery.jpg=\(document)",
                "--mime", "application/octet-stream",
            ])
        XCTAssertEqual(made.status, 0, made.error)
        let (status, body) = try harness.post(
            url, "getDataFiles",
            ["filename": "sample.ddoc", "document": try TestEnvironment.bytes(ddoc).base64EncodedString()])
        XCTAssertEqual(status, 200, "\(String(describing: body))")
        let files = (body as? [String: Any])?["dataFiles"] as? [[String: Any]] ?? []
        XCTAssertEqual(files.count, 1)
        XCTAssertEqual(files.first?["filename"] as? String, "Glitter-rock-4_gallery.jpg")
        XCTAssertEqual(files.first?["size"] as? Int, 8)
        XCTAssertEqual(files.first?["base64"] as? String, Data("Glitter\n".utf8).base64EncodedString())
        XCTAssertTrue(files.first?["mimeType"] is String)

        let (refused, error) = try harness.post(
            url, "getDataFiles", ["filename": "sample.asice", "document": Data("x".utf8).base64EncodedString()])
        XCTAssertEqual(refused, 400)
        let errors = (error as? [String: Any])?["requestErrors"] as? [[String: Any]] ?? []
        XCTAssertEqual(errors.first?["key"] as? String, "filename")
        XCTAssertEqual(
            errors.first?["message"] as? String,
            "Invalid filename. Can only return data files for DDOC type containers.")
    }

    // MARK: - Monitoring

    /// The health, heartbeat and version samples.
    func testTheMonitoringSamplesAreAnswered() async throws {
        let (url, _) = try harness.serve(["--trust", TestEnvironment.pki("root.cert.pem")])
        let health = try harness.get(url, "monitoring/health")
        XCTAssertEqual(health.0, 200)
        let healthJSON = try JSONSerialization.jsonObject(with: Data(health.1.utf8))
        assertShape(
            healthJSON,
            like: try skeleton(
                """
                {"status": "S", "components": {"health": {"details": {"webappName": "W", "version": "V", "buildTime": "T", "startTime": "T", "currentTime": "T"}, "status": "S"}}}
                """))
        let details =
            (((healthJSON as? [String: Any])?["components"] as? [String: Any])?["health"] as? [String: Any])?["details"]
            as? [String: Any] ?? [:]
        for key in ["buildTime", "startTime", "currentTime"] { assertDate(details[key], key) }
        XCTAssertEqual((healthJSON as? [String: Any])?["status"] as? String, "UP")
        let heartbeat = try harness.get(url, "monitoring/heartbeat")
        XCTAssertEqual(heartbeat.0, 200)
        XCTAssertEqual(
            (try JSONSerialization.jsonObject(with: Data(heartbeat.1.utf8)) as? [String: Any])?["status"] as? String,
            "UP")
        let version = try harness.get(url, "monitoring/version")
        XCTAssertEqual(version.0, 200)
        XCTAssertTrue(
            (try JSONSerialization.jsonObject(with: Data(version.1.utf8)) as? [String: Any])?["version"] is String)
    }
}
