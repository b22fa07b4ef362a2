import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// BDOC 2.1 time-marks made by `scripts/make-tm-container.py` (tamga never creates them) with
/// OCSP from the loopback responders, each judged as the reference judges it
/// (docs/design/asics-tm-names.md §2 and §4). Every verdict is asserted with its finding codes.
final class TimeMarkTests: ContainerTestCase {
    var services: TestServices!

    override func setUpWithError() throws {
        try super.setUpWithError()
        services = try TestServices()
    }

    override func tearDown() {
        services.stop()  // from synchronous code: Process.waitUntilExit must not run on a task's thread
        super.tearDown()
    }

    /// A container with a time-mark whose OCSP responses come, in order, from `ocsp` paths.
    private func timeMark(
        _ ocsp: [String] = ["ocsp/tm"], _ arguments: [String] = [], file: StaticString = #filePath,
        line: UInt = #line
    ) throws -> Container {
        let out = path("tm-\(UUID().uuidString).asice")
        var words = [
            TestEnvironment.script("make-tm-container.py"), "--pki", TestEnvironment.fixture("pki"), "--out", out,
        ]
        for path in ocsp { words += ["--ocsp", services.url(path).absoluteString] }
        let result = try TestEnvironment.run("/usr/bin/python3", words + arguments)
        XCTAssertEqual(result.status, 0, result.error, file: file, line: line)
        return try Container(openingAt: out)
    }

    private var pemTrust: ValidationOptions { get throws { ValidationOptions(trust: try TestEnvironment.testTrust()) } }

    /// The container's status and the finding codes of its one signature.
    private func verdict(
        _ container: Container, _ options: ValidationOptions? = nil
    ) throws -> (ValidationReport.Status, Set<String>) {
        let report = container.validate(try options ?? pemTrust)
        XCTAssertEqual(report.signatures.count, 1)
        return (report.status, Set(report.signatures.first?.findings.map(\.code) ?? []))
    }

    // MARK: valid time-marks

    func testATimeMarkFromATMResponderWithTheRightNonceIsValidAndTimedAtProducedAt() throws {
        let container = try timeMark()
        let report = container.validate(try pemTrust)
        XCTAssertEqual(report.status, .valid, "\(report.signatures[0].findings)")
        XCTAssertEqual(report.signatures[0].profile, "TM")
        XCTAssertEqual(report.signatures[0].findings, [])
        // producedAt of the OCSP response is the time the report gives (the responder answers now).
        let time = try XCTUnwrap(report.signatures[0].timeStampTime.flatMap(XAdESTime.parse))
        XCTAssertLessThan(abs(time.timeIntervalSinceNow), 300)
        // The test-made signature itself is sound for independent checkers too.
        try assertXMLSecVerifies(container.path, certificate: "ec-p256")
        try assertPyasiceVerifies(container.path)
    }

    func testEveryNonceFormAndHashTheReferenceAcceptsIsValid() throws {
        for arguments in [
            ["--nonce-form", "raw"], ["--nonce-hash", "sha1"], ["--nonce-hash", "sha224"], ["--nonce-hash", "sha384"],
            ["--nonce-hash", "sha512", "--nonce-form", "raw"],
            ["--policy", "urn:oid:1.3.6.1.4.1.10015.1000.3.2.3"],
            ["--policy", " urn:oid:1.3.6.1.4.1.10015.1000.3.2.1"],
            ["--wrong-policy-hash"],
        ] {  // SigPolicyHash is not checked, as in the reference
            let (status, codes) = try verdict(try timeMark(["ocsp/tm"], arguments))
            // SHA-1 in the nonce is no weak-digest warning: the reference gives none either.
            XCTAssertEqual(status, .valid, "\(arguments): \(codes)")
            XCTAssertEqual(codes, [], "\(arguments)")
        }
    }

    func testASignerWhoseCertificateExpiredBeforeProducedAtIsInvalid() throws {
        // expired-ec-p256 is valid 2025-01-01..2025-07-01; the time-mark is made now, so the only
        // proof of when it signed is after the certificate expired. Recorded difference: the
        // reference judges a time-mark's signer at notBefore only (observed: OK).
        let (status, codes) = try verdict(try timeMark(["ocsp/tm"], ["--signer", "expired-ec-p256"]))
        XCTAssertEqual(status, .invalid, "\(codes)")
        XCTAssertEqual(codes, ["certificate-chain"])
    }

    func testTheFirstResponseThatVerifiesIsUsedAndTheRestIgnored() throws {
        // Only the second verifies: it is used.
        var (status, codes) = try verdict(try timeMark(["ocsp/bad-signature", "ocsp/tm"]))
        XCTAssertEqual(status, .valid, "\(codes)")
        XCTAssertEqual(codes, [])
        // The first verifies: a broken second one is never looked at.
        (status, codes) = try verdict(try timeMark(["ocsp/tm", "ocsp/bad-signature"]))
        XCTAssertEqual(status, .valid, "\(codes)")
        // None verifies: every reason is given, and the worst decides. Recorded difference: the
        // reference says Unknown here (its Unknown outranks Invalid); tamga's INVALID outranks UNKNOWN.
        (status, codes) = try verdict(try timeMark(["ocsp/bad-signature", "ocsp/tm-unknown"]))
        XCTAssertEqual(status, .invalid)
        XCTAssertEqual(codes, ["ocsp-signature", "ocsp-status-unknown"])
    }

    func testArchiveTimeStampsOnATimeMarkAreInvalidAsInSiVa() throws {
        // The reference says OK (it does not look at archive time-stamps on a time-mark); SiVa's
        // policy accepts the time-mark policy only on a plain time-mark. tamga follows SiVa.
        let report = try timeMark(["ocsp/tm"], ["--archive-garbage"]).validate(try pemTrust)
        XCTAssertEqual(report.signatures[0].profile, "TM-A")
        XCTAssertEqual(report.status, .invalid)
        XCTAssertEqual(report.signatures[0].findings.map(\.code), ["time-mark-archive-timestamp"])
        XCTAssertTrue(
            report.signatures[0].findings[0].message.contains("they are not validated"),
            report.signatures[0].findings[0].message)
    }

    func testATimeMarkCountsAsLTForTheMinimumProfile() throws {
        let container = try timeMark()
        var options = try pemTrust
        options.minimumProfile = .LTA
        XCTAssertEqual(try verdict(container, options).1, ["profile-too-low"])
        options.minimumProfile = .LT
        XCTAssertEqual(try verdict(container, options).0, .valid)
    }

    func testATimeMarkIsNeverExtendedAndTheContainerIsLeftAsItWas() async throws {
        let container = try timeMark()
        let before = try TestEnvironment.bytes(container.path)
        let longTerm = LongTermServices(
            timeStamping: TimeStampClient(url: services.url("tsa")), ocspURL: services.url("ocsp"),
            issuerCandidates: [try TestEnvironment.certificate("issuing-ca")])
        for profile in [SignatureProfile.LT, .LTA] {
            do {
                try await container.extend(to: profile, services: longTerm)
                XCTFail("a time-mark was extended to \(profile)")
            } catch {
                XCTAssertEqual((error as? ContainerError)?.code, "time-mark-not-extensible", "\(error)")
            }
        }
        XCTAssertEqual(try TestEnvironment.bytes(container.path), before)
    }

    // MARK: the BDOC 2.1 policy

    func testThePolicyMustBeBDOC21WithQualifierAndSPURI() throws {
        let cases: [([String], Set<String>)] = [
            (["--policy", "urn:oid:1.3.6.1.4.1.10015.1000.3.1.1"], ["time-mark-policy"]),
            (["--policy", "1.3.6.1.4.1.10015.1000.3.2.1"], ["time-mark-policy"]),  // no urn:oid:
            (["--policy", "urn:oid:1.3.6.1.4.1.10015.1000.3.2.1 "], ["time-mark-policy"]),  // trailing space
            (["--no-qualifier"], ["time-mark-policy"]),
            (["--spuri", ""], ["time-mark-policy-spuri"]),
            (["--policy", "none"], ["time-mark-policy", "time-mark-policy-spuri"]),
        ]
        for (arguments, expected) in cases {
            let (status, codes) = try verdict(try timeMark(["ocsp/tm"], arguments))
            XCTAssertEqual(status, .invalid, "\(arguments)")
            XCTAssertEqual(codes, expected, "\(arguments)")
        }
    }

    // MARK: the nonce

    func testANonceOverAnythingButTheDecodedSignatureValueIsAMismatch() throws {
        for over in ["canonical", "base64"] {
            let (status, codes) = try verdict(try timeMark(["ocsp/tm"], ["--nonce-over", over]))
            XCTAssertEqual(status, .invalid, over)
            XCTAssertEqual(codes, ["time-mark-nonce-mismatch"], over)
        }
    }

    func testAnAbsentOrMD5NonceIsMissing() throws {
        for hash in ["none", "md5"] {
            let (status, codes) = try verdict(try timeMark(["ocsp/tm"], ["--nonce-hash", hash]))
            XCTAssertEqual(status, .invalid, hash)
            XCTAssertEqual(codes, ["time-mark-nonce-missing"], hash)
        }
    }

    // MARK: the responder

    func testAResponderWithoutTheTMPolicyIsInvalidAndItsNonceIsNotChecked() throws {
        // The plain test responder has no certificatePolicies; the nonce is wrong too, but as in
        // the reference only the policy is reported.
        let (status, codes) = try verdict(try timeMark(["ocsp"], ["--nonce-over", "base64"]))
        XCTAssertEqual(status, .invalid)
        XCTAssertEqual(codes, ["time-mark-responder-policy"])
    }

    func testAResponderWithAnotherPolicyPassesOnlyWhenThatPolicyIsAccepted() throws {
        let container = try timeMark(["ocsp/tm-other-policy"])
        XCTAssertEqual(try verdict(container).1, ["time-mark-responder-policy"])
        var options = try pemTrust
        options.timeMarkResponderPolicies.insert("1.3.6.1.4.1.10015.3.1.1")
        XCTAssertEqual(try verdict(container, options).0, .valid)
        // Added, not replacing: the production responder still passes. Recorded difference: the
        // reference's ocsp.tm.profile replaces the production policy.
        XCTAssertEqual(try verdict(try timeMark(), options).0, .valid)
    }

    // MARK: status

    func testRevokedIsInvalidAndUnknownIsUnknown() throws {
        var (status, codes) = try verdict(try timeMark(["ocsp/tm-revoked"]))
        XCTAssertEqual(status, .invalid)
        XCTAssertEqual(codes, ["certificate-revoked"])
        (status, codes) = try verdict(try timeMark(["ocsp/tm-unknown"]))
        XCTAssertEqual(status, .unknown)
        XCTAssertEqual(codes, ["ocsp-status-unknown"])
    }

    func testAnOCSPResponseForAnotherCertificateIsUnknown() throws {
        let (status, codes) = try verdict(try timeMark(["ocsp/tm"], ["--about", "other-ec-p256"]))
        XCTAssertEqual(status, .unknown)
        XCTAssertEqual(codes, ["ocsp-other-certificate"])
    }

    func testAnUntrustedResponderIsUnknown() throws {
        let options = ValidationOptions(trust: TrustStore(anchors: [try TestEnvironment.certificate("other-ec-p256")]))
        let (status, codes) = try verdict(try timeMark(), options)
        XCTAssertEqual(status, .unknown)
        XCTAssertTrue(codes.contains("ocsp-responder-untrusted"), "\(codes)")
    }

    func testAResponseWithoutItsResponderCertificateVerifiesWithAKnownResponder() throws {
        let container = try timeMark(["ocsp/tm-no-certs"])
        // Nobody gave the responder's certificate: the response cannot be verified.
        var (status, codes) = try verdict(container)
        XCTAssertEqual(status, .invalid)
        XCTAssertEqual(codes, ["ocsp-signature"])
        // Given as a helper certificate (--certs), as the reference takes it from the trusted list.
        var options = try pemTrust
        options.trust.intermediates.append(try TestEnvironment.certificate("ocsp-responder-tm"))
        (status, codes) = try verdict(container, options)
        XCTAssertEqual(status, .valid, "\(codes)")
        // Listed as its own OCSP/QC service: the response verifies (no ocsp-signature); the signer
        // is then unknown only because this list withdrew its CA before producedAt.
        let pinned = [
            try Certificate(derOrPEM: TestEnvironment.bytes(TestEnvironment.fixture("tsl/tsl-signer.cert.pem")))
        ]
        let list = try TrustedList(
            data: TestEnvironment.bytes(TestEnvironment.fixture("tsl/tsl-ca-withdrawn-2025-tm.xml")), signers: pinned)
        (status, codes) = try verdict(
            container,
            ValidationOptions(
                trust: TrustStore(intermediates: [try TestEnvironment.certificate("issuing-ca")]),
                trustedList: list))
        XCTAssertEqual(status, .unknown, "\(codes)")
        XCTAssertEqual(codes, ["trust-not-established"])
    }

    // MARK: trusted lists: the signer at notBefore and producedAt, the responder at producedAt

    func testEveryTrustedListCaseGivesTheTimeMarkVerdictOfCasesJSON() throws {
        struct Case: Decodable {
            struct Expectation: Decodable { let signer_chain, signer_chain_at_issue, time_mark: String }
            let name, file, list: String
            let expect: Expectation
        }
        struct File: Decodable { let cases: [Case] }
        let cases = try JSONDecoder().decode(
            File.self, from: TestEnvironment.bytes(TestEnvironment.fixture("tsl/cases.json"))
        ).cases
        let pinned = [
            try Certificate(derOrPEM: TestEnvironment.bytes(TestEnvironment.fixture("tsl/tsl-signer.cert.pem")))
        ]
        let container = try timeMark()
        var checked = 0
        for testCase in cases where testCase.list == "accepted" {
            let list = try TrustedList(
                data: TestEnvironment.bytes(TestEnvironment.fixture("tsl/\(testCase.file)")), signers: pinned)
            let options = ValidationOptions(
                trust: TrustStore(intermediates: [try TestEnvironment.certificate("issuing-ca")]), trustedList: list)
            let (status, codes) = try verdict(container, options)
            XCTAssertEqual(
                status, testCase.expect.time_mark == "trusted" ? .valid : .unknown, "\(testCase.name): \(codes)")
            XCTAssertEqual(
                codes.contains("trust-not-established-at-issue"), testCase.expect.signer_chain_at_issue == "untrusted",
                "\(testCase.name): \(codes)")
            // The signer is judged at producedAt (the list's signer_chain column, judged now) once
            // the time-mark's response verified, which needs a trusted responder.
            XCTAssertEqual(
                codes.contains("trust-not-established"),
                testCase.expect.signer_chain == "untrusted" && !codes.contains("ocsp-responder-untrusted"),
                "\(testCase.name): \(codes)")
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 9)
    }

    /// docs/design/asics-tm-names.md §4, "own lists" table: the same signature as LT (time-stamped) and as TM.
    func testTheReferenceTableOfLTAgainstTMAtNotBeforeAndGenTime() throws {
        let pinned = [
            try Certificate(derOrPEM: TestEnvironment.bytes(TestEnvironment.fixture("tsl/tsl-signer.cert.pem")))
        ]
        func listed(_ file: String) throws -> ValidationOptions {
            ValidationOptions(
                trust: TrustStore(intermediates: [try TestEnvironment.certificate("issuing-ca")]),
                trustedList: try TrustedList(
                    data: TestEnvironment.bytes(TestEnvironment.fixture("tsl/\(file)")), signers: pinned))
        }
        let lt = try timeMark(["ocsp"], ["--timestamp", services.url("tsa").absoluteString])
        let tm = try timeMark()
        XCTAssertEqual(lt.validate(try listed("tsl-good.xml")).signatures[0].profile, "LT")
        XCTAssertEqual(try verdict(lt, try listed("tsl-good.xml")).0, .valid)

        // CA granted after notBefore: Unknown for both.
        XCTAssertEqual(try verdict(lt, try listed("tsl-ca-granted-2025.xml")).0, .unknown)
        XCTAssertEqual(try verdict(lt, try listed("tsl-ca-granted-2025.xml")).1, ["trust-not-established-at-issue"])
        XCTAssertEqual(try verdict(tm, try listed("tsl-ca-granted-2025.xml")).0, .unknown)
        XCTAssertEqual(try verdict(tm, try listed("tsl-ca-granted-2025.xml")).1, ["trust-not-established-at-issue"])

        // CA withdrawn between notBefore and genTime/producedAt: Unknown for both (recorded
        // difference: the reference says OK for the time-mark, judged at notBefore only).
        XCTAssertEqual(try verdict(lt, try listed("tsl-ca-withdrawn-2025-tm.xml")).0, .unknown)
        XCTAssertEqual(try verdict(lt, try listed("tsl-ca-withdrawn-2025-tm.xml")).1, ["trust-not-established"])
        XCTAssertEqual(try verdict(tm, try listed("tsl-ca-withdrawn-2025-tm.xml")).0, .unknown)
        XCTAssertEqual(try verdict(tm, try listed("tsl-ca-withdrawn-2025-tm.xml")).1, ["trust-not-established"])

        // Signer expired before genTime/producedAt: Invalid for both ("certificate has expired";
        // recorded difference: the reference says OK for the time-mark).
        let expiredLT = try timeMark(
            ["ocsp"], ["--timestamp", services.url("tsa").absoluteString, "--signer", "expired-ec-p256"])
        let expiredTM = try timeMark(["ocsp/tm"], ["--signer", "expired-ec-p256"])
        XCTAssertEqual(try verdict(expiredLT, try listed("tsl-good.xml")).0, .invalid)
        XCTAssertEqual(try verdict(expiredLT, try listed("tsl-good.xml")).1, ["certificate-chain"])
        XCTAssertEqual(try verdict(expiredTM, try listed("tsl-good.xml")).0, .invalid)
        XCTAssertEqual(try verdict(expiredTM, try listed("tsl-good.xml")).1, ["certificate-chain"])
    }

    func testTheCAWithdrawnBetweenNotBeforeAndProducedAtLeavesATimeMarkUnknown() throws {
        // docs/design/asics-tm-names.md §4: CA withdrawn before genTime → LT Unknown, and so is the time-mark
        // here, judged at producedAt (recorded difference: the reference says OK).
        let pinned = [
            try Certificate(derOrPEM: TestEnvironment.bytes(TestEnvironment.fixture("tsl/tsl-signer.cert.pem")))
        ]
        let list = try TrustedList(
            data: TestEnvironment.bytes(TestEnvironment.fixture("tsl/tsl-ca-withdrawn-2025-tm.xml")), signers: pinned)
        let options = ValidationOptions(
            trust: TrustStore(intermediates: [try TestEnvironment.certificate("issuing-ca")]), trustedList: list)
        let (status, codes) = try verdict(try timeMark(), options)
        XCTAssertEqual(status, .unknown, "\(codes)")
        XCTAssertEqual(codes, ["trust-not-established"])
    }

    // MARK: what signatures from other tools carry

    /// Without the issuing CA in the signature, the OCSP response about the signer is judged
    /// with the CA certificate of the trusted list, as the reference takes the issuer from the
    /// list: for a time-mark and for LT alike. With PEM trust and no --certs it is missing.
    func testTheSignersIssuerComesFromTheTrustedListWhenTheSignatureLeavesItOut() throws {
        let pinned = [
            try Certificate(derOrPEM: TestEnvironment.bytes(TestEnvironment.fixture("tsl/tsl-signer.cert.pem")))
        ]
        let listOnly = ValidationOptions(
            trustedList: try TrustedList(
                data: TestEnvironment.bytes(TestEnvironment.fixture("tsl/tsl-good.xml")),
                signers: pinned))
        let rootOnly = ValidationOptions(trust: TrustStore(anchors: [try TestEnvironment.certificate("root")]))
        for arguments in [["--no-ca-cert"], ["--no-ca-cert", "--timestamp", services.url("tsa").absoluteString]] {
            let container = try timeMark(arguments.count > 1 ? ["ocsp"] : ["ocsp/tm"], arguments)
            let (status, codes) = try verdict(container, listOnly)
            XCTAssertEqual(status, .valid, "\(arguments): \(codes)")
            XCTAssertEqual(codes, [], "\(arguments)")
            let (rootStatus, rootCodes) = try verdict(container, rootOnly)
            XCTAssertEqual(rootStatus, .unknown, "\(arguments)")
            XCTAssertTrue(rootCodes.contains("issuer-missing"), "\(arguments): \(rootCodes)")
        }
    }

    /// XAdES lets SigningCertificate name the signer's path. The signer's Cert comes first and
    /// is the one checked, as in the reference; with the CA's first, the signed digest names a
    /// certificate that did not sign.
    func testASigningCertificateNamingThePathIsCheckedByItsFirstCert() throws {
        let (status, codes) = try verdict(try timeMark(["ocsp/tm"], ["--signing-cert-path", "after"]))
        XCTAssertEqual(status, .valid, "\(codes)")
        XCTAssertEqual(codes, [])
        let (wrongStatus, wrongCodes) = try verdict(try timeMark(["ocsp/tm"], ["--signing-cert-path", "before"]))
        XCTAssertEqual(wrongStatus, .invalid)
        XCTAssertTrue(wrongCodes.contains("signing-certificate-digest"), "\(wrongCodes)")
    }
}
