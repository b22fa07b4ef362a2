import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// Signing with each key kind; every result is checked by tamga, by xmlsec1 (the reference's
/// engine) and by pyasice, which share no code with tamga.
final class SigningTests: ContainerTestCase {
    private func signAndCheck(
        _ key: String, algorithm: SignatureAlgorithm? = nil, options: SignatureOptions = .baselineB,
        xmlsec: Bool = true, pyasice: Bool = true
    ) async throws -> Container {
        let container = try await signedContainer(key, options: options, algorithm: algorithm)
        let report = try validate(container)
        XCTAssertEqual(report.status, .valid, "\(report)")
        XCTAssertEqual(report.signatures.count, 1)
        if xmlsec { try assertXMLSecVerifies(container.path, certificate: key) }
        if pyasice { try assertPyasiceVerifies(container.path) }
        return container
    }

    func testECDSAP256() async throws { _ = try await signAndCheck("ec-p256") }
    func testECDSAP384() async throws { _ = try await signAndCheck("ec-p384") }
    func testRSAPKCS1SHA256() async throws { _ = try await signAndCheck("rsa-2048") }
    func testRSAPKCS1SHA512WithSHA512References() async throws {
        _ = try await signAndCheck(
            "rsa-2048", algorithm: .rsaPKCS1SHA512, options: SignatureOptions(profile: .B, referenceDigest: .sha512))
    }
    // xmlsec 1.2.37 and pyasice do not implement RSA-PSS (docs/design/asice.md): tamga's own check, plus
    // OpenSSL's PSS verify in SoftwareSignerTests, cover it.
    func testRSAPSS() async throws {
        _ = try await signAndCheck("rsa-2048", algorithm: .rsaPSSSHA256, xmlsec: false, pyasice: false)
    }

    func testV1SigningCertificateWithRoleAndPlace() async throws {
        let place = SignatureOptions.ProductionPlace(
            city: "Tallinn & <Harju>", stateOrProvince: "Harjumaa", postalCode: "10111", countryName: "EE")
        let container = try await signAndCheck(
            "ec-p256",
            options: SignatureOptions(
                profile: .B, roles: ["Tester", "Ülevaataja"], productionPlace: place,
                certificateReference: .v1))
        let xml = String(decoding: container.signatures[0].data, as: UTF8.self)
        XCTAssertTrue(xml.contains("<xades:SigningCertificate><xades:Cert>"))
        XCTAssertTrue(xml.contains("<xades:City>Tallinn &amp; &lt;Harju&gt;</xades:City>"))
        XCTAssertTrue(xml.contains("<xades:ClaimedRole>Ülevaataja</xades:ClaimedRole>"))
        XCTAssertTrue(xml.contains("<ds:X509IssuerName>CN="))
    }

    func testV2FormIsTheDefault() async throws {
        let place = SignatureOptions.ProductionPlace(city: "Tartu", streetAddress: "Ülikooli 18", countryName: "EE")
        let container = try await signAndCheck(
            "ec-p256", options: SignatureOptions(profile: .B, roles: ["Signer"], productionPlace: place))
        let xml = String(decoding: container.signatures[0].data, as: UTF8.self)
        XCTAssertTrue(xml.contains("<xades:SigningCertificateV2><xades:Cert><xades:CertDigest>"))
        XCTAssertTrue(xml.contains("<xades:IssuerSerialV2>"))
        XCTAssertTrue(
            xml.contains(
                "<xades:SignatureProductionPlaceV2><xades:City>Tartu</xades:City><xades:StreetAddress>Ülikooli 18</xades:StreetAddress>"
            ))
        XCTAssertTrue(xml.contains("<xades:SignerRoleV2>"))
    }

    func testStructureFollowsTheReference() async throws {
        let container = try await signedContainer()
        let xml = String(decoding: container.signatures[0].data, as: UTF8.self)
        XCTAssertEqual(container.signatures[0].name, "META-INF/signatures0.xml")
        XCTAssertTrue(
            xml.hasPrefix(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<asic:XAdESSignatures xmlns:asic=\"http://uri.etsi.org/02918/v1.2.1#\" xmlns:ds=\"http://www.w3.org/2000/09/xmldsig#\" xmlns:xades=\"http://uri.etsi.org/01903/v1.3.2#\"><ds:Signature Id=\"S0\">"
            ))
        XCTAssertEqual(xml.split(separator: "\n").count, 2, "one line after the declaration")
        XCTAssertTrue(xml.contains("URI=\"my%20file%20%C3%B6%20%231.txt\""))
        XCTAssertTrue(xml.contains("Type=\"http://uri.etsi.org/01903#SignedProperties\" URI=\"#S0-SignedProperties\""))
        XCTAssertTrue(xml.contains("<ds:CanonicalizationMethod Algorithm=\"http://www.w3.org/2006/12/xml-c14n11\">"))
        XCTAssertTrue(
            xml.contains(
                "<xades:DataObjectFormat ObjectReference=\"#S0-RefId1\"><xades:MimeType>text/plain</xades:MimeType>"))
        XCTAssertNotNil(
            xml.range(
                of: #"<xades:SigningTime>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ</xades:SigningTime>"#,
                options: .regularExpression))
    }

    func testSecondSignatureGetsTheNextFreeNameAndId() async throws {
        let container = try await signedContainer()
        try await container.sign(with: TestEnvironment.signer("rsa-2048"), options: .baselineB)
        let reopened = try Container(openingAt: container.path)
        XCTAssertEqual(reopened.signatures.map(\.name), ["META-INF/signatures0.xml", "META-INF/signatures1.xml"])
        XCTAssertTrue(String(decoding: reopened.signatures[1].data, as: UTF8.self).contains("<ds:Signature Id=\"S1\">"))
        let report = try validate(reopened)
        XCTAssertEqual(report.signatures.map(\.status), [.valid, .valid])
        // The first signature's file is copied byte for byte, never re-serialised.
        XCTAssertEqual(reopened.signatures[0].data, container.signatures[0].data)
    }

    func testTwoStepAPIWithAnExternalSigner() async throws {
        let container = try makeContainer()
        let signer = try TestEnvironment.signer("ec-p384")
        let digest = try container.prepareSignature(
            certificate: signer.signingCertificate, algorithm: signer.algorithm, options: .baselineB)
        XCTAssertEqual(digest.algorithm, .sha384)
        let value = try signer.signSynchronously(digest: digest)
        let added = try await container.addSignature(value)
        XCTAssertEqual(added, "META-INF/signatures0.xml")
        XCTAssertEqual(try validate(Container(openingAt: container.path)).status, .valid)
    }

    /// About one ECDSA signature in 600 has a raw r‖s that begins like a DER SEQUENCE: 0x30 and a
    /// length byte that fits in the value, which a lenient DER reader (pyasice's asn1crypto load)
    /// accepts. Such a value is still raw (and valid); the external check must say so, not call it DER.
    func testARawECDSAValueBeginningWith0x30IsRawAndVerifies() async throws {
        let container = try makeContainer()
        let signer = try TestEnvironment.signer("ec-p256")
        let digest = try container.prepareSignature(
            certificate: signer.signingCertificate, algorithm: signer.algorithm, options: .baselineB)
        var value = try signer.signSynchronously(digest: digest)
        func looksLikeDER(_ value: Data) -> Bool {
            value[value.startIndex] == 0x30 && value[value.startIndex + 1] <= 62
        }
        for _ in 0..<50_000 where !looksLikeDER(value) { value = try signer.signSynchronously(digest: digest) }
        XCTAssertTrue(looksLikeDER(value))
        XCTAssertEqual(value.count, 64)
        _ = try await container.addSignature(value)
        XCTAssertEqual(try validate(Container(openingAt: container.path)).status, .valid)
        try assertPyasiceVerifies(container.path)
    }

    func testAWrongSignatureValueIsRefusedAndNothingIsWritten() async throws {
        let container = try makeContainer()
        let before = try TestEnvironment.bytes(container.path)
        let signer = try TestEnvironment.signer("ec-p256")
        let digest = try container.prepareSignature(
            certificate: signer.signingCertificate, algorithm: signer.algorithm, options: .baselineB)
        var value = try signer.signSynchronously(digest: digest)
        value[5] ^= 0x01
        for (label, candidate) in [
            ("tampered", value),
            (
                "DER instead of raw r‖s",
                try ECDSASignature.der(fromRaw: signer.signSynchronously(digest: digest), curve: .p256)
            ),
        ] {
            do {
                _ = try await container.addSignature(candidate)
                XCTFail("\(label) must be refused")
            } catch {
                XCTAssertEqual((error as? ContainerError)?.code, "signature-value-rejected", label)
            }
        }
        XCTAssertEqual(try TestEnvironment.bytes(container.path), before)
        XCTAssertTrue(container.signatures.isEmpty)
    }

    func testASignerThatFailsLeavesTheContainerIntact() async throws {
        struct FailingSigner: Signer {
            let inner: SoftwareSigner
            var algorithm: SignatureAlgorithm { inner.algorithm }
            func certificate() async throws -> Certificate { inner.signingCertificate }
            func sign(digest: Digest) async throws -> Data { throw CoreError.wrongPassword }
        }
        let container = try makeContainer()
        let before = try TestEnvironment.bytes(container.path)
        do {
            try await container.sign(with: FailingSigner(inner: TestEnvironment.signer("ec-p256")), options: .baselineB)
            XCTFail("signing should fail")
        } catch {
            XCTAssertEqual(error as? CoreError, .wrongPassword)
        }
        XCTAssertEqual(try TestEnvironment.bytes(container.path), before)
    }

    func testNewContainerIsWrittenAndSignedInOnePass() async throws {
        let container = Container(creatingAt: path("onepass.asice"))
        try container.addDataFile(path: TestEnvironment.write("one pass\n", named: "x y.txt", in: folder))
        try container.addDataFile(path: TestEnvironment.write("{}", named: "z.json", in: folder))
        let signatureFile = try await container.sign(with: TestEnvironment.signer("ec-p256"), options: .baselineB)
        XCTAssertEqual(signatureFile, "META-INF/signatures0.xml")
        let reopened = try Container(openingAt: path("onepass.asice"))
        XCTAssertEqual(reopened.dataFiles.map(\.name), ["x y.txt", "z.json"])
        XCTAssertEqual(try validate(reopened).status, .valid)
        try assertXMLSecVerifies(reopened.path, certificate: "ec-p256")
        try assertPyasiceVerifies(reopened.path)
    }

    func testOnePassSigningThatFailsCreatesNothing() async throws {
        struct RefusingSigner: Signer {
            let inner: SoftwareSigner
            var algorithm: SignatureAlgorithm { inner.algorithm }
            func certificate() async throws -> Certificate { inner.signingCertificate }
            func sign(digest: Digest) async throws -> Data { Data(count: 64) }  // a value that does not verify
        }
        let container = Container(creatingAt: path("never.asice"))
        try container.addDataFile(path: TestEnvironment.write("data", named: "d.txt", in: folder))
        do {
            try await container.sign(
                with: RefusingSigner(inner: TestEnvironment.signer("ec-p256")), options: .baselineB)
            XCTFail("a bad signature value must be refused")
        } catch {
            XCTAssertEqual((error as? ContainerError)?.code, "signature-value-rejected")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("never.asice")))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".tamga-") }, [])
    }

    func testCertificateWithoutNonRepudiationCannotSign() throws {
        let container = try makeContainer()
        let cert = try TestEnvironment.certificate("nonrep-missing")
        XCTAssertThrowsError(
            try container.prepareSignature(certificate: cert, algorithm: .ecdsaP256SHA256, options: .baselineB)
        ) {
            XCTAssertEqual(($0 as? ContainerError)?.code, "signing-certificate-unsuitable")
        }
    }
}
