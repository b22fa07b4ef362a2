import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// What the verifier judges beyond a single signature's cryptography: a signature stored twice,
/// a claimed SigningTime that contradicts the evidence, and `extend` on a broken signature.
final class EvidenceJudgementTests: LongTermTestCase {
    /// Rewrites the container's ZIP with python: `edit` is python code run with `name`, `data`
    /// for each entry (and `extra` to append entries).
    private func rewritten(_ container: Container, _ edit: String, name: String) throws -> String {
        let out = path(name)
        let script = """
            import sys, zipfile
            src = zipfile.ZipFile(sys.argv[1]); dst = zipfile.ZipFile(sys.argv[2], "w")
            extra = []
            for info in src.infolist():
                name = info.filename; data = src.read(name)
            \(edit.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
                dst.writestr(info, data, compress_type=info.compress_type)
            for name, data in extra: dst.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)
            dst.close()
            """
        let result = try TestEnvironment.run("/usr/bin/python3", ["-c", script, container.path, out])
        XCTAssertEqual(result.status, 0, result.error)
        return out
    }

    func testTheSameSignatureStoredTwiceCountsOnceAndIsReported() async throws {
        let signed = try await signedContainer()
        let copy = try rewritten(
            signed,
            """
            if name == "META-INF/signatures0.xml": extra.append(("META-INF/signatures1.xml", data))
            """, name: "twice.asice")
        let container = try Container(openingAt: copy)
        XCTAssertEqual(container.signatures.count, 2)
        let report = try validate(container)
        XCTAssertEqual(report.signatures.count, 1, "the copy is not a second signer")
        XCTAssertEqual(report.findings.map(\.code), ["duplicate-signature"])
        XCTAssertEqual(report.status, .warning)
        XCTAssertTrue(report.findings[0].message.contains("META-INF/signatures0.xml"))
    }

    func testAClaimedSigningTimeAfterTheTimeStampIsAWarningWithBothTimes() async throws {
        let container = try makeContainer("late-claim.asice")
        let claimed = Date().addingTimeInterval(3_600)
        try await container.sign(
            with: TestEnvironment.signer("ec-p256"), options: SignatureOptions(profile: .LT, signingTime: claimed),
            services: longTerm())
        let report = try Container(openingAt: container.path).validate(
            ValidationOptions(trust: try TestEnvironment.testTrust()))
        let finding = try XCTUnwrap(report.signatures[0].findings.first { $0.code == "signing-time-after-timestamp" })
        XCTAssertEqual(finding.severity, .warning)
        // Both times, so that a person can see how far apart they are: the claim and the
        // time-stamp's genTime.
        let stamped = try XCTUnwrap(report.signatures[0].timeStampTime)
        XCTAssertNotEqual(stamped, XSDDateTime.format(claimed))
        XCTAssertTrue(finding.message.contains("claimed SigningTime \(XSDDateTime.format(claimed))"), finding.message)
        XCTAssertTrue(finding.message.contains("time-stamp \(stamped)"), finding.message)
        XCTAssertEqual(report.status, .warning)
    }

    func testAClaimedSigningTimeBeforeTheCertificateIsAWarning() async throws {
        // tamga will not sign with such a claim: another tool's signature, re-signed by a script.
        let signed = try await signedContainer()
        let out = path("early-claim.asice")
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                TestEnvironment.script("asice-resign.py"), signed.path, out,
                "--key", TestEnvironment.fixture("pki/ec-p256.key.pem"), "--signing-time", "2000-01-01T00:00:00Z",
            ])
        XCTAssertEqual(result.status, 0, result.error)
        let report = try validate(Container(openingAt: out))
        let codes = report.signatures[0].findings.map(\.code)
        XCTAssertTrue(codes.contains("signing-time-before-certificate"), "\(codes)")
        XCTAssertFalse(codes.contains("signing-time-after-timestamp"))
        // Both times: the claim and the start of the certificate's validity.
        let finding = try XCTUnwrap(
            report.signatures[0].findings.first { $0.code == "signing-time-before-certificate" })
        XCTAssertEqual(finding.severity, .warning)
        let notBefore = try Certificate(
            derOrPEM: Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("pki/ec-p256.cert.pem")))
        ).notBefore
        XCTAssertTrue(finding.message.contains("claimed SigningTime 2000-01-01T00:00:00Z"), finding.message)
        XCTAssertTrue(finding.message.contains("from \(XSDDateTime.format(notBefore))"), finding.message)
    }

    func testExtendRefusesASignatureThatDoesNotVerifyAndChangesNothing() async throws {
        let signed = try await signedContainer()
        let tampered = try rewritten(
            signed,
            """
            if name == "b.txt": data = b"changed after signing\\n"
            """, name: "tampered.asice")
        let before = try Data(contentsOf: URL(fileURLWithPath: tampered))
        let container = try Container(openingAt: tampered)
        do {
            try await container.extend(to: .LT, services: longTerm())
            XCTFail("a signature over a changed file was extended")
        } catch ContainerError.signatureDoesNotVerify(let file, let reason) {
            XCTAssertEqual(file, "META-INF/signatures0.xml")
            XCTAssertTrue(reason.contains("data-file-digest"), reason)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: tampered)), before)
        // The intact one still extends.
        let extended = try await signed.extend(to: .LT, services: longTerm())
        XCTAssertEqual(extended, ["META-INF/signatures0.xml"])
    }
}
