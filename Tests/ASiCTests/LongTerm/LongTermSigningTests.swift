import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// T, LT and LTA against a real RFC 3161 TSA (`openssl ts -reply`) and OCSP responder
/// (Python `cryptography`) on loopback; results cross-checked by `scripts/lt-check.py`,
/// which verifies the tokens and responses with the openssl command line.
final class LongTermSigningTests: LongTermTestCase {
    func defaultValidation(_ container: Container) throws -> ValidationReport {
        container.validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
    }

    func assertLTCheckPasses(_ file: String, line: UInt = #line) throws {
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                TestEnvironment.script("lt-check.py"), file,
                "--ca", TestEnvironment.pki("root.cert.pem"), "--untrusted", TestEnvironment.pki("issuing-ca.cert.pem"),
            ])
        XCTAssertEqual(result.status, 0, "\(result.output)\n\(result.error)", line: line)
    }

    func testLTWithEachKeyIsValidForTamgaAndTheIndependentCheckers() async throws {
        for key in ["ec-p256", "ec-p384", "rsa-2048"] {
            let container = try await ltContainer(key, name: "\(key).asice")
            let report = try defaultValidation(container)
            XCTAssertEqual(report.status, .valid, "\(key): \(report)")
            XCTAssertEqual(report.signatures[0].profile, "LT")
            XCTAssertNotNil(report.signatures[0].timeStampTime)
            try assertLTCheckPasses(container.path)
            try assertXMLSecVerifies(container.path, certificate: key)
            try assertPyasiceVerifies(container.path)
        }
    }

    func testLTAAndItsRenewal() async throws {
        let container = try await ltContainer(profile: .LTA)
        XCTAssertEqual(try defaultValidation(container).signatures[0].profile, "LTA")
        try assertLTCheckPasses(container.path)
        let changed = try await container.extend(to: .LTA, services: longTerm())
        XCTAssertEqual(changed, ["META-INF/signatures0.xml"])
        let renewed = try Container(openingAt: container.path)
        let xml = String(decoding: renewed.signatures[0].data, as: UTF8.self)
        XCTAssertTrue(xml.contains("Id=\"S0-A0\"") && xml.contains("Id=\"S0-A1\""), "a second archive time-stamp")
        XCTAssertEqual(try defaultValidation(renewed).status, .valid)
        try assertLTCheckPasses(renewed.path)
    }

    func testExtendingABSignatureToLTKeepsTheSignedPartsAndValidates() async throws {
        let container = try await signedContainer()  // B-level
        let signedInfoBefore = try XMLDocument(data: container.signatures[0].data, name: "s").root!
            .child("Signature", in: XMLNamespace.ds)!.child("SignedInfo", in: XMLNamespace.ds)!
        let canonicalBefore = try signedInfoBefore.document.canonicalize(signedInfoBefore, .c14n11)
        try await container.extend(to: .LT, services: longTerm())
        let extended = try Container(openingAt: container.path)
        let document = try XMLDocument(data: extended.signatures[0].data, name: "s")
        let signedInfo = document.root!.child("Signature", in: XMLNamespace.ds)!.child(
            "SignedInfo", in: XMLNamespace.ds)!
        XCTAssertEqual(try document.canonicalize(signedInfo, .c14n11), canonicalBefore)
        XCTAssertEqual(try defaultValidation(extended).status, .valid)
        try assertLTCheckPasses(extended.path)
        try assertXMLSecVerifies(extended.path, certificate: "ec-p256")
    }

    func testExtendingAPyasiceContainerToLT() async throws {
        let file = path("py.asice")
        let data = try TestEnvironment.write("from pyasice", named: "p.txt", in: folder)
        let made = try TestEnvironment.run(
            TestEnvironment.pyasicePython,
            [
                TestEnvironment.script("pyasice-sign.py"), file,
                TestEnvironment.pki("ec-p384.key.pem"), TestEnvironment.pki("ec-p384.cert.pem"), data,
            ])
        XCTAssertEqual(made.status, 0, made.error)
        let container = try Container(openingAt: file)
        try await container.extend(to: .LT, services: longTerm())
        XCTAssertEqual(try defaultValidation(Container(openingAt: file)).status, .valid)
        try assertLTCheckPasses(file)
    }

    func testTLevelIsInvalidUnlessAskedFor() async throws {
        let container = try await ltContainer(profile: .T)
        let report = try defaultValidation(container)
        XCTAssertEqual(report.status, .invalid)
        XCTAssertEqual(report.signatures[0].findings.map(\.code), ["profile-too-low"])
        let lenient = container.validate(ValidationOptions(trust: try TestEnvironment.testTrust(), minimumProfile: .T))
        XCTAssertEqual(lenient.status, .valid)
    }

    func testAnExpiredSignerIsStillValidAtItsTimeStamp() async throws {
        let container = try await ltContainer()
        let cert = try TestEnvironment.certificate("ec-p256")
        let later = container.validate(
            ValidationOptions(trust: try TestEnvironment.testTrust(), time: cert.notAfter.addingTimeInterval(86_400)))
        XCTAssertEqual(later.status, .valid, "the chain is checked at the time-stamp, not at the given time")
    }

    // MARK: - Service failures when signing: nothing is written, the error names the service.

    private func assertSigningFails(
        tsa: String = "tsa", ocsp: String = "ocsp", key: String = "ec-p256", code: String,
        contains text: String? = nil, line: UInt = #line
    ) async throws {
        let container = try makeContainer("fail-\(UUID().uuidString).asice")
        let before = try TestEnvironment.bytes(container.path)
        do {
            try await container.sign(
                with: TestEnvironment.signer(key), options: SignatureOptions(profile: .LT),
                services: longTerm(tsa: tsa, ocsp: ocsp))
            XCTFail("signing must fail", line: line)
        } catch let error as CoreError {
            XCTAssertEqual(error.code, code, "\(error)", line: line)
            if let text { XCTAssertTrue("\(error)".contains(text), "\(error)", line: line) }
        }
        XCTAssertEqual(try TestEnvironment.bytes(container.path), before, line: line)
        XCTAssertTrue(try Container(openingAt: container.path).signatures.isEmpty, line: line)
    }

    func testTSADownUnavailableGarbageOrRefusing() async throws {
        try await assertSigningFails(tsa: "tsa/unavailable", code: "service-http-status", contains: "503")
        try await assertSigningFails(tsa: "tsa/garbage", code: "service-response-rejected")
        try await assertSigningFails(tsa: "tsa/rejection", code: "service-response-rejected", contains: "refused")
        let port = services.baseURL.port!
        services.stop()
        try await assertSigningFails(code: "service-unreachable", contains: "127.0.0.1:\(port)")
    }

    func testASlowTSATimesOutWithAClearError() async throws {
        let container = try makeContainer()
        let transport = HTTPTransport(timeout: 1)
        let slow = LongTermServices(
            timeStamping: TimeStampClient(url: services.url("tsa/slow"), transport: transport),
            ocspURL: services.url("ocsp"), issuerCandidates: [try TestEnvironment.certificate("issuing-ca")])
        let started = Date()
        do {
            try await container.sign(
                with: TestEnvironment.signer("ec-p256"), options: SignatureOptions(profile: .LT), services: slow)
            XCTFail("must time out")
        } catch let error as CoreError {
            XCTAssertEqual(error.code, "service-unreachable", "\(error)")
            XCTAssertTrue("\(error)".contains("tsa/slow"), "\(error)")
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "the 30-second answer was not waited for")
        XCTAssertTrue(try Container(openingAt: container.path).signatures.isEmpty)
    }

    func testOCSPAnswersThatAreRefusedWhenSigning() async throws {
        try await assertSigningFails(ocsp: "ocsp/stale", code: "service-response-rejected", contains: "stale")
        try await assertSigningFails(ocsp: "ocsp/no-nonce", code: "service-response-rejected", contains: "nonce")
        try await assertSigningFails(ocsp: "ocsp/wrong-nonce", code: "service-response-rejected", contains: "nonce")
        try await assertSigningFails(ocsp: "ocsp/bad-signature", code: "service-response-rejected")
        try await assertSigningFails(ocsp: "ocsp/wrong-signer", code: "service-response-rejected")
        try await assertSigningFails(
            ocsp: "ocsp/unauthorized", code: "service-response-rejected", contains: "unauthorized")
        try await assertSigningFails(ocsp: "ocsp/unknown", code: "certificate-not-good", contains: "unknown")
        try await assertSigningFails(key: "revoked-ec-p256", code: "certificate-not-good", contains: "revoked")
    }

    func testIssuerAndOCSPURLsComeFromTheCertificateWhenNotGiven() async throws {
        // The fixture certificates name http://127.0.0.1:8788/ in their AIA; serve that port.
        let aia = try TestServices(port: 8788)
        defer { aia.stop() }
        let container = try makeContainer()
        let onlyTSA = LongTermServices(timeStamping: TimeStampClient(url: aia.url("tsa")))  // no --ocsp, no --certs
        try await container.sign(
            with: TestEnvironment.signer("ec-p256"), options: SignatureOptions(profile: .LT), services: onlyTSA)
        let report = try Container(openingAt: container.path).validate(
            ValidationOptions(trust: TrustStore(anchors: [try TestEnvironment.certificate("root")])))
        XCTAssertEqual(
            report.status, .valid, "the issuer came from AIA caIssuers and is in CertificateValues: \(report)")
    }

    func testExtendWithTheTSADownChangesNothing() async throws {
        let container = try await signedContainer()
        let before = try TestEnvironment.bytes(container.path)
        do {
            try await container.extend(to: .LT, services: longTerm(tsa: "tsa/unavailable"))
            XCTFail("must fail")
        } catch {
            XCTAssertEqual((error as? CoreError)?.code, "service-http-status")
        }
        XCTAssertEqual(try TestEnvironment.bytes(container.path), before)
    }
}
