import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

final class ValidationTests: ContainerTestCase {
    func testWithoutTrustAnchorsAnIntactSignatureIsUnknown() async throws {
        let container = try await signedContainer()
        let report = container.validate(ValidationOptions(minimumProfile: .B))
        XCTAssertEqual(report.status, .unknown)
        XCTAssertEqual(report.signatures[0].findings.map(\.code), ["trust-not-established"])
    }

    func testAnUnrelatedAnchorDoesNotEstablishTrust() async throws {
        let container = try await signedContainer()
        let report = container.validate(
            ValidationOptions(
                trust: TrustStore(anchors: [try TestEnvironment.certificate("other-ec-p256")]), minimumProfile: .B))
        XCTAssertEqual(report.status, .unknown)
    }

    func testAfterTheCertificateExpiresTheSignatureIsInvalid() async throws {
        let container = try await signedContainer()
        let cert = try TestEnvironment.certificate("ec-p256")
        let report = container.validate(
            ValidationOptions(
                trust: try TestEnvironment.testTrust(), time: cert.notAfter.addingTimeInterval(60), minimumProfile: .B))
        XCTAssertEqual(report.status, .invalid)
        XCTAssertTrue(report.signatures[0].findings.map(\.code).contains("certificate-chain"))
    }

    func testAContainerWithoutSignaturesIsNotValid() throws {
        let report = try validate(makeContainer())
        XCTAssertEqual(report.status, .invalid)
        XCTAssertEqual(report.findings.map(\.code), ["no-signatures"])
    }

    func testReportNamesSignerTimeAndProfile() async throws {
        let container = try await signedContainer("ec-p384")
        let result = try validate(container).signatures[0]
        XCTAssertEqual(result.id, "S0")
        XCTAssertEqual(result.profile, "B")
        XCTAssertEqual(result.signer, try TestEnvironment.certificate("ec-p384").subject)
        XCTAssertEqual(result.signatureMethod, "http://www.w3.org/2001/04/xmldsig-more#ecdsa-sha384")
        XCTAssertNotNil(result.signingTime)
    }

    func testSignatureFromASignerWithoutNonRepudiationIsInvalid() throws {
        // Signed by pyasice with the nonrep-missing key (tamga itself refuses to make such a signature).
        let file = path("nonrep.asice")
        let data = try TestEnvironment.write("data", named: "d.txt", in: folder)
        let result = try TestEnvironment.run(
            TestEnvironment.pyasicePython,
            [
                TestEnvironment.script("pyasice-sign.py"), file,
                TestEnvironment.pki("nonrep-missing.key.pem"), TestEnvironment.pki("nonrep-missing.cert.pem"), data,
            ])
        XCTAssertEqual(result.status, 0, result.error)
        let report = try validate(Container(openingAt: file))
        XCTAssertEqual(report.status, .invalid)
        XCTAssertEqual(report.signatures[0].findings.map(\.code), ["no-non-repudiation"])
    }
}
