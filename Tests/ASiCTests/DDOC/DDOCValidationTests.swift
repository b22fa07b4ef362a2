import TamgaCore
import TamgaTestSupport
import XCTest

@_spi(Testing) @testable import ASiC

/// DigiDoc XML files made by `scripts/make-ddoc.py` (tamga never writes them) with the test PKI
/// and the loopback OCSP responders, each version and each failure judged with its code.
final class DDOCValidationTests: DDOCTestCase {
    private var testTrust: ValidationOptions {
        get throws { ValidationOptions(trust: try TestEnvironment.testTrust()) }
    }

    /// Status and the codes of the one signature's findings and of the document's.
    private func verdict(
        _ path: String, _ options: ValidationOptions? = nil
    ) throws -> (ValidationReport.Status, [String], [String]) {
        let report = try Container(openingAt: path).validate(try options ?? testTrust)
        XCTAssertEqual(report.signatures.count, 1)
        return (report.status, report.signatures.first?.findings.map(\.code) ?? [], report.findings.map(\.code))
    }

    // MARK: - Every version, and the hashcode form of each

    func testEachVersionIsValidWithSHA1AsTheWarningItIs() throws {
        for (version, form) in [
            ("1.3", "DIGIDOC_XML_1.3"), ("1.2", "DIGIDOC_XML_1.2"), ("1.1", "DIGIDOC_XML_1.1"),
            ("1.0", "DIGIDOC_XML_1.0"),
        ] {
            let file = try ddoc(version)
            let container = try Container(openingAt: file)
            XCTAssertEqual(container.kind, .ddoc)
            let report = container.validate(try testTrust)
            XCTAssertEqual(report.containerType, form)
            XCTAssertEqual(report.status, .warning, "\(version): \(report.signatures.first?.findings ?? [])")
            XCTAssertEqual(report.signatures.first?.status, .valid, version)
            XCTAssertEqual(report.signatures.first?.profile, "TM", version)
            XCTAssertEqual(
                report.findings.map(\.code), version == "1.3" ? ["ddoc-sha1"] : ["ddoc-sha1", "ddoc-old-version"],
                version)
            XCTAssertNotNil(report.signatures.first?.timeStampTime, "producedAt is the time-mark's time")
        }
    }

    func testTheHashcodeFormOfEachVersionIsValid() throws {
        for version in ["1.3", "1.2", "1.1", "1.0"] {
            let full = try ddoc(version)
            let hashcode = path("hashcode-\(version).ddoc")
            let made = try TestEnvironment.run(
                "/usr/bin/python3", [TestEnvironment.script("make-ddoc.py"), "--hashcode-of", full, "--out", hashcode])
            XCTAssertEqual(made.status, 0, made.error)
            let container = try Container(openingAt: hashcode)
            let report = container.validate(try testTrust)
            XCTAssertEqual(report.containerType, "DIGIDOC_XML_\(version)_hashcode")
            XCTAssertEqual(
                report.signatures.first?.status, .valid, "\(version): \(report.signatures.first?.findings ?? [])")
            // Nothing to extract: only the digest is there.
            XCTAssertThrowsError(try container.read(container.dataFiles[0]) { _ in }) {
                XCTAssertEqual(($0 as? ContainerError)?.code, "ddoc-content-not-in-document")
            }
        }
    }

    func testTheContentReadsBackAsTheFileThatWasSigned() throws {
        let original = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let source = folder.appendingPathComponent("binary.bin")
        try original.write(to: source)
        for version in ["1.3", "1.0"] {
            let container = try Container(
                openingAt: try ddoc(
                    version, ["--file", "binary.bin=\(source.path)", "--mime", "application/octet-stream"]))
            XCTAssertEqual(container.dataFiles.map(\.name), ["binary.bin"])
            XCTAssertEqual(container.dataFiles[0].size, UInt64(original.count))
            var read = Data()
            try container.read(container.dataFiles[0]) { read.append(contentsOf: $0) }
            XCTAssertEqual(read, original, version)
            let out = path("out-\(version)")
            XCTAssertEqual(try container.extract(to: out).count, 1)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/binary.bin")), original)
        }
    }

    /// The base64 is read and checked on one thread and hashed on another, chunk by chunk
    /// (`Container.ddocChunkSize`, 256 KB). With small chunks a 40 KB data file crosses dozens to
    /// hundreds of chunk boundaries; with CR LF line ends (66 bytes a line, the LF at 66j + 65 of
    /// the content) chunks of 1,055 (15 × 66 + 65) and 131 bytes put a CR at the end of one chunk
    /// and its LF at the start of the next, where 1,024 never does. Each version must still be
    /// valid and read back whole, and a changed character still be found.
    func testContentHashedInManySmallChunksKeepsEveryVerdict() throws {
        let saved = Container.ddocChunkSize
        defer { Container.ddocChunkSize = saved }
        let original = Data((0..<40_000).map { UInt8(truncatingIfNeeded: ($0 &* 31) ^ ($0 >> 7)) })
        let source = folder.appendingPathComponent("chunked.bin")
        try original.write(to: source)
        let arguments = ["--file", "chunked.bin=\(source.path)", "--mime", "application/octet-stream"]
        for version in ["1.3", "1.2", "1.0"] {
            for lineEnds in [[], ["--crlf"]] {
                let file = try ddoc(version, arguments + lineEnds)
                let tampered = try ddoc(version, arguments + lineEnds + ["--tamper-data"])
                for chunk in [1_024, 1_055, 131, 256 << 10] {
                    Container.ddocChunkSize = chunk
                    let label = "\(version)\(lineEnds.isEmpty ? "" : " CR LF"), \(chunk)-byte chunks"
                    let container = try Container(openingAt: file)
                    XCTAssertEqual(container.validate(try testTrust).signatures.first?.status, .valid, label)
                    XCTAssertEqual(container.dataFiles.first?.size, UInt64(original.count), label)
                    var read = Data()
                    try container.read(container.dataFiles[0]) { read.append(contentsOf: $0) }
                    XCTAssertEqual(read, original, label)
                    let (status, codes, _) = try verdict(tampered)
                    XCTAssertEqual(status, .invalid, label)
                    XCTAssertTrue(codes.contains("data-file-digest"), "\(label): \(codes)")
                }
            }
        }
    }

    func testManyDataFilesAcrossTheScannersWindowsAreEachReadAndSigned() throws {
        // 60 data files of 1,500 to 3,270 bytes: about 250 KB of tags and base64, so that start
        // and end tags fall across the scanner's 64 KB windows wherever they happen to.
        var arguments: [String] = []
        var originals: [Data] = []
        for index in 0..<60 {
            let data = Data((0..<(1_500 + index * 30)).map { UInt8(truncatingIfNeeded: ($0 &* 7) ^ index) })
            let source = folder.appendingPathComponent("many-\(index).bin")
            try data.write(to: source)
            originals.append(data)
            arguments += ["--file", "many-\(index).bin=\(source.path)"]
        }
        let container = try Container(openingAt: try ddoc("1.3", arguments + ["--mime", "application/octet-stream"]))
        XCTAssertEqual(container.dataFiles.map(\.size), originals.map { UInt64($0.count) })
        XCTAssertEqual(container.validate(try testTrust).signatures.map(\.status), [.valid])
        var read = Data()
        try container.read(container.dataFiles[37]) { read.append(contentsOf: $0) }
        XCTAssertEqual(read, originals[37])
    }

    func testInlineContentIsReadAndItsDigestCheckedButItIsNeverValid() throws {
        // ContentType EMBEDDED: DigiDoc4j (SiVa) refuses it, so a correct one is INVALID with its
        // own code and nothing else; a changed one also has the digest finding.
        let text = "tamga DDOC test document, signed with the tamga test PKI. TEST ONLY\n"
        for version in ["1.3", "1.2", "1.1", "1.0"] {
            let container = try Container(openingAt: try ddoc(version, ["--embedded"]))
            let report = container.validate(try testTrust)
            XCTAssertEqual(report.status, .invalid, version)
            XCTAssertTrue(
                report.findings.map(\.code).contains("ddoc-embedded-content"), "\(version): \(report.findings)")
            XCTAssertEqual(
                report.signatures.first?.findings.map(\.code), [],
                "\(version): the digest over the inline content agrees")
            var read = Data()
            try container.read(container.dataFiles[0]) { read.append(contentsOf: $0) }
            XCTAssertEqual(String(decoding: read, as: UTF8.self), text, version)
            let (_, tampered, _) = try verdict(try ddoc(version, ["--embedded", "--tamper-data"]))
            XCTAssertEqual(tampered, ["data-file-digest"], version)
        }
    }

    func testSeveralSignaturesAndDataFilesAreEachJudged() throws {
        let second = try TestEnvironment.write("second\n", named: "b.txt", in: folder)
        let first = try TestEnvironment.write("first\n", named: "a.txt", in: folder)
        let report = try Container(
            openingAt: try ddoc("1.3", ["--signatures", "2", "--file", "a.txt=\(first)", "--file", "b.txt=\(second)"])
        )
        .validate(try testTrust)
        XCTAssertEqual(report.signatures.map(\.id), ["S0", "S1"])
        XCTAssertEqual(report.signatures.map(\.status), [.valid, .valid])
        XCTAssertEqual(report.dataFiles, ["a.txt", "b.txt"])
    }

    // MARK: - Each failure, its own code

    func testEachTamperingGivesItsOwnFinding() throws {
        let cases: [([String], String, ValidationReport.Status)] = [
            (["--tamper-data"], "data-file-digest", .invalid),
            (["--tamper-signature-value"], "signature-value", .invalid),
            (["--tamper-signed-properties"], "signed-properties-digest", .invalid),
            (["--wrong-nonce"], "ocsp-nonce", .invalid),
            (["--no-nonce"], "ocsp-nonce", .invalid),
            (["--wrong-ocsp-digest"], "ocsp-digest", .invalid),
            (["--unsigned-datafile"], "data-file-not-signed", .invalid),
            (["--missing-datafile"], "reference-file-missing", .invalid),
            (["--signing-cert-digest-wrong"], "signing-certificate-digest", .invalid),
            (["--no-ocsp"], "ocsp-missing", .invalid),
            (["--no-xmlns-datafile"], "ddoc-alternate-digest", .warning),
        ]
        for (arguments, code, status) in cases {
            let (got, signatureCodes, _) = try verdict(try ddoc("1.3", arguments))
            XCTAssertEqual(got, status, "\(arguments): \(signatureCodes)")
            XCTAssertTrue(signatureCodes.contains(code), "\(arguments): \(signatureCodes)")
            if status == .invalid {
                XCTAssertFalse(signatureCodes.isEmpty)
            } else {
                XCTAssertEqual(signatureCodes, [code], "\(arguments): only the one finding")
            }
        }
    }

    func testDataFileIdsAreChecked() throws {
        let (duplicate, _, documentCodes) = try verdict(try ddoc("1.3", ["--duplicate-id"]))
        XCTAssertEqual(duplicate, .invalid)
        XCTAssertTrue(documentCodes.contains("duplicate-id"), "\(documentCodes)")
        let (badID, _, badCodes) = try verdict(try ddoc("1.3", ["--bad-id"]))
        XCTAssertEqual(badID, .invalid)
        XCTAssertTrue(badCodes.contains("ddoc-data-file-id"), "\(badCodes)")
    }

    func testTheResponderAndTheCertificateStatusAreJudged() throws {
        for (ocsp, code, status) in [
            ("ocsp/revoked", "certificate-revoked", ValidationReport.Status.invalid),
            ("ocsp/unknown", "ocsp-status-unknown", .invalid),
            ("ocsp/bad-signature", "ocsp-signature", .invalid),
        ] {
            let (got, codes, _) = try verdict(try ddoc("1.3", [], ocsp: ocsp))
            XCTAssertEqual(got, status, "\(ocsp): \(codes)")
            XCTAssertTrue(codes.contains(code), "\(ocsp): \(codes)")
        }
    }

    func testASignerWithoutNonRepudiationIsInvalid() throws {
        // The test PKI's RSA signer has nonRepudiation: a copy of it gets one that has only
        // digitalSignature, issued here by the test issuing CA.
        let pki = folder.appendingPathComponent("pki")
        try FileManager.default.copyItem(atPath: TestEnvironment.fixture("pki"), toPath: pki.path)
        let key = pki.appendingPathComponent("rsa-no-nonrep.key.pem").path,
            request = pki.appendingPathComponent("r.csr").path
        let extensions = pki.appendingPathComponent("ext.cnf").path
        try "keyUsage=critical,digitalSignature\n".write(toFile: extensions, atomically: true, encoding: .utf8)
        for step in [
            ["genrsa", "-out", key, "2048"],
            ["req", "-new", "-key", key, "-subj", "/C=EE/CN=TEST NO NONREPUDIATION", "-out", request],
            [
                "x509", "-req", "-in", request, "-CA", pki.appendingPathComponent("issuing-ca.cert.pem").path,
                "-CAkey", pki.appendingPathComponent("issuing-ca.key.pem").path, "-set_serial", "990001", "-days", "30",
                "-extfile", extensions, "-out", pki.appendingPathComponent("rsa-no-nonrep.cert.pem").path,
            ],
        ] {
            let made = try TestEnvironment.run("/usr/bin/openssl", step)
            XCTAssertEqual(made.status, 0, made.error)
        }
        let (status, codes, _) = try verdict(try ddoc("1.3", ["--not-nonrepudiation"], pki: pki.path))
        XCTAssertEqual(status, .invalid)
        XCTAssertTrue(codes.contains("no-non-repudiation"), "\(codes)")
    }

    // MARK: - Trust

    func testTheBuiltInTrustSetDoesNotTrustTheTestPKI() throws {
        // No --trust, no list: SK's historical CAs only (the issuing CA given as an intermediate,
        // as --certs gives it). The test signer chains to none of them, nor its responder.
        var options = ValidationOptions(
            trust: TrustStore(anchors: [], intermediates: [try TestEnvironment.certificate("issuing-ca")]))
        options.trustNotices = [.noTrustConfigured]
        let report = try Container(openingAt: try ddoc()).validate(options)
        XCTAssertEqual(report.status, .unknown, "\(report.signatures[0].findings)")
        XCTAssertFalse(
            report.findings.contains { $0.code == "no-trust-configured" }, "the DDOC trust set is configured trust")
        XCTAssertEqual(
            Set(report.signatures[0].findings.map(\.code)), ["ocsp-responder-untrusted", "trust-not-established"])
        // Without the issuer at all, that is said instead of a responder verdict.
        let bare = try Container(openingAt: try ddoc()).validate(ValidationOptions())
        XCTAssertEqual(Set(bare.signatures[0].findings.map(\.code)), ["issuer-missing", "trust-not-established"])
    }

    func testAResponderIsTrustedWhenItIsPinnedForTheSignersCA() throws {
        // A DDOC trust set made of the test PKI: the issuing CA, and the responder pinned for it.
        let file = try ddoc()
        let responder = try XCTUnwrap(Container(openingAt: file).validateResponderForTest())
        let ca = try TestEnvironment.certificate("issuing-ca")
        var options = ValidationOptions()
        options.ddocTrust = DDOCTrust(
            certificateAuthorities: [ca, try TestEnvironment.certificate("root")], responders: [(responder, [ca])])
        XCTAssertEqual(try Container(openingAt: file).validate(options).signatures[0].status, .valid)
        // The same responder pinned for another CA confirms nothing of this one's.
        options.ddocTrust = DDOCTrust(
            certificateAuthorities: [ca], responders: [(responder, [try TestEnvironment.certificate("root")])])
        let codes = try Container(openingAt: file).validate(options).signatures[0].findings.map(\.code)
        XCTAssertEqual(codes, ["ocsp-responder-untrusted"])
    }

    // MARK: - Read-only

    func testSigningAddingAndRemovingAreRefused() async throws {
        let container = try Container(openingAt: try ddoc())
        let before = try TestEnvironment.bytes(container.path)
        XCTAssertThrowsError(try container.addDataFile(path: TestEnvironment.write("x", named: "x.txt", in: folder))) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "ddoc-read-only")
            XCTAssertTrue("\($0)".contains("container timestamp"), "\($0)")
        }
        XCTAssertThrowsError(try container.save()) { XCTAssertEqual(($0 as? ContainerError)?.code, "ddoc-read-only") }
        do {
            try await container.sign(with: TestEnvironment.signer("rsa-2048"), options: .baselineB)
            XCTFail("signed a DDOC")
        } catch {
            XCTAssertEqual((error as? ContainerError)?.code, "ddoc-read-only")
        }
        XCTAssertEqual(try TestEnvironment.bytes(container.path), before)
    }
}

extension Container {
    /// The responder certificate a DDOC's first signature carries (its CertificateValues), for
    /// tests that pin it.
    fileprivate func validateResponderForTest() throws -> Certificate? {
        guard let block = ddoc?.signatures.first, let document = try? XMLDocument(data: block.bytes, name: "S0"),
            let root = document.root
        else { return nil }
        var found: Certificate? = nil
        root.walk { element in
            if found == nil, element.localName == "EncapsulatedX509Certificate",
                let der = XMLBase64.decode(element.text)
            {
                found = try? Certificate(der: der)
            }
        }
        return found
    }
}
