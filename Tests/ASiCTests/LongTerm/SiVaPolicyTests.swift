import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// The BDOC 2.1 time-mark policy on a signature with archive time-stamps: tamga followed the
/// reference (VALID), SiVa's validation policy allows the policy only on a plain time-mark and
/// fails it. tamga follows SiVa, so that it never calls VALID what SiVa calls INVALID (the
/// time-mark with archive time-stamps, TM-A, is TimeMarkTests'; revocation freshness, SiVa's
/// other rule, is LongTermValidationTests').
final class SiVaPolicyTests: LongTermTestCase {
    /// A B-level signature of ec-p256 given the BDOC 2.1 time-mark policy by another tool
    /// (scripts/asice-resign.py: lxml and cryptography), then extended by tamga to `profile`.
    private func withTimeMarkPolicy(extendedTo profile: SignatureProfile) async throws -> Container {
        let signed = try await signedContainer()
        let out = path("tm-policy-\(profile.rawValue).asice")
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                TestEnvironment.script("asice-resign.py"), signed.path, out,
                "--key", TestEnvironment.pki("ec-p256.key.pem"), "--tm-policy",
            ])
        XCTAssertEqual(result.status, 0, result.error)
        let container = try Container(openingAt: out)
        let xml = try TestEnvironment.run("/usr/bin/unzip", ["-p", out, "META-INF/signatures0.xml"]).output
        XCTAssertTrue(xml.contains("urn:oid:1.3.6.1.4.1.10015.1000.3.2.1"), xml)
        _ = try await container.extend(to: profile, services: longTerm())
        return try Container(openingAt: out)
    }

    func testTheTimeMarkPolicyOnAnLTASignatureIsInvalid() async throws {
        let container = try await withTimeMarkPolicy(extendedTo: .LTA)
        let report = try validate(container)
        XCTAssertEqual(report.signatures[0].profile, "LTA")
        XCTAssertEqual(report.status, .invalid)
        XCTAssertEqual(report.signatures[0].findings.map(\.code), ["time-mark-archive-timestamp"])
        XCTAssertTrue(
            report.signatures[0].findings[0].message.contains("SiVa accepts that policy only on a plain time-mark"))
    }

    func testTheTimeMarkPolicyOnAnLTSignatureIsLeftAsTheReferenceJudgesIt() async throws {
        // Not covered by the rule (SiVa's own LT test files carry no such policy): the policy
        // claim alone changes nothing for a time-stamped signature without archive time-stamps.
        let container = try await withTimeMarkPolicy(extendedTo: .LT)
        let report = try validate(container)
        XCTAssertEqual(report.signatures[0].profile, "LT")
        XCTAssertEqual(report.status, .valid, "\(report.signatures[0].findings)")
    }
}
