import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// An LT signature judged against the test trusted lists of `Fixtures/tsl` (signed with
/// xmlsec1 by `scripts/make-test-tsl.py`); the expectations come from its `cases.json`.
final class TrustedListTests: ContainerTestCase {
    private struct Case: Decodable {
        struct Expectation: Decodable {
            let signer_chain, timestamp, ocsp_responder, signer_chain_at_issue, overall: String
        }
        let name: String
        let file: String
        let list: String
        let list_refusal_reason: String?
        let expect: Expectation
    }

    private func cases() throws -> [Case] {
        struct File: Decodable { let cases: [Case] }
        return try JSONDecoder().decode(
            File.self, from: TestEnvironment.bytes(TestEnvironment.fixture("tsl/cases.json"))
        ).cases
    }

    private func pinned() throws -> [Certificate] {
        [try Certificate(derOrPEM: TestEnvironment.bytes(TestEnvironment.fixture("tsl/tsl-signer.cert.pem")))]
    }

    private func list(_ file: String) throws -> TrustedList {
        try TrustedList(data: TestEnvironment.bytes(TestEnvironment.fixture("tsl/\(file)")), signers: pinned())
    }

    var services: TestServices?

    override func tearDown() {
        services?.stop()  // from synchronous code: Process.waitUntilExit must not run on a task's thread
        super.tearDown()
    }

    func testEveryCaseGivesTheExpectedVerdict() async throws {
        let services = try TestServices()
        self.services = services
        let container = try makeContainer()
        let longTerm = LongTermServices(
            timeStamping: TimeStampClient(url: services.url("tsa")), ocspURL: services.url("ocsp"),
            issuerCandidates: [try TestEnvironment.certificate("issuing-ca")])
        try await container.sign(
            with: TestEnvironment.signer("ec-p256"), options: SignatureOptions(profile: .LT), services: longTerm)
        let signed = try Container(openingAt: container.path)
        let all = try cases()
        XCTAssertGreaterThanOrEqual(all.count, 12)
        for testCase in all {
            if testCase.list == "refused" {
                XCTAssertThrowsError(try list(testCase.file), testCase.name) { error in
                    let expected = [
                        "signature": "tsl-signature-invalid", "signer-not-pinned": "tsl-signer-not-pinned",
                        "expired": "tsl-expired",
                    ]
                    XCTAssertEqual(
                        (error as? TrustedListError)?.code, expected[testCase.list_refusal_reason ?? ""],
                        "\(testCase.name): \(error)")
                }
                continue
            }
            // No PEM anchors: the list alone decides; the issuing CA is only a helper certificate.
            let report = signed.validate(
                ValidationOptions(
                    trust: TrustStore(intermediates: [try TestEnvironment.certificate("issuing-ca")]),
                    trustedList: try list(testCase.file)))
            let codes = Set(report.signatures[0].findings.map(\.code))
            XCTAssertEqual(
                report.status, testCase.expect.overall == "trusted" ? .valid : .unknown, "\(testCase.name): \(codes)")
            XCTAssertEqual(
                codes.contains("trust-not-established"), testCase.expect.signer_chain == "untrusted",
                "\(testCase.name): \(codes)")
            // The CA must also have been granted when it issued the signer's certificate (notBefore).
            XCTAssertEqual(
                codes.contains("trust-not-established-at-issue"), testCase.expect.signer_chain_at_issue == "untrusted",
                "\(testCase.name): \(codes)")
            XCTAssertEqual(
                codes.contains("signature-timestamp-untrusted"), testCase.expect.timestamp == "untrusted",
                "\(testCase.name): \(codes)")
            XCTAssertEqual(
                codes.contains("ocsp-responder-untrusted"), testCase.expect.ocsp_responder == "untrusted",
                "\(testCase.name): \(codes)")
        }
    }

    func testServiceStatusIsTakenAtTheTimeAsked() throws {
        let withdrawn = try list("tsl-ca-withdrawn-2025.xml")
        let issuing = try TestEnvironment.certificate("issuing-ca")
        let iso = ISO8601DateFormatter()
        XCTAssertTrue(
            withdrawn.certificates(of: [.certificateAuthority], at: iso.date(from: "2025-01-01T00:00:00Z")!).contains(
                issuing))
        XCTAssertFalse(
            withdrawn.certificates(of: [.certificateAuthority], at: iso.date(from: "2025-07-01T00:00:00Z")!).contains(
                issuing))
        XCTAssertEqual(withdrawn.territory, "EE")
    }

    func testAListThatIsChangedAfterSigningIsRefusedEvenIfOnlyWhitespaceMoves() throws {
        var text = String(
            decoding: try TestEnvironment.bytes(TestEnvironment.fixture("tsl/tsl-good.xml")), as: UTF8.self)
        text = text.replacingOccurrences(
            of: "<SchemeTerritory>EE</SchemeTerritory>", with: "<SchemeTerritory>EE </SchemeTerritory>")
        XCTAssertThrowsError(try TrustedList(data: Data(text.utf8), signers: pinned())) {
            XCTAssertEqual(($0 as? TrustedListError)?.code, "tsl-signature-invalid")
        }
    }

    func testWithoutQualifiersTheSignatureIsNotQualified() async throws {
        // The test signer carries no QC statements; only the list's qualifiers make it QC on a QSCD.
        XCTAssertEqual(
            try TestEnvironment.certificate("ec-p256").qualification,
            Certificate.Qualification(qualified: false, onQualifiedDevice: false, isSeal: false))
        let qualifiers = try list("tsl-good.xml").qualifiers(
            for: TestEnvironment.certificate("ec-p256"),
            issuedBy: TestEnvironment.certificate("issuing-ca"), at: Date())
        XCTAssertTrue(qualifiers.contains("QCStatement") && qualifiers.contains("QCWithQSCD"), "\(qualifiers)")
        XCTAssertEqual(
            try list("tsl-good.xml").qualifiers(
                for: TestEnvironment.certificate("nonrep-missing"),
                issuedBy: TestEnvironment.certificate("issuing-ca"), at: Date()), [],
            "the criteria require nonRepudiation")
    }
}
