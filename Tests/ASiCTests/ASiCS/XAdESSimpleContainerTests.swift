import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// XAdES in ASiC-S (`META-INF/signatures.xml`): validated as in ASiC-E, except that the
/// DataObjectFormat MimeType is not compared (ASiC-S has no manifest to declare a type), and the
/// references must cover exactly the one data object.
final class XAdESSimpleContainerTests: SimpleContainerTestCase {
    /// A B-level ASiC-E signature over one file, repackaged as ASiC-S (as the reference accepts).
    private func repackaged(
        _ name: String = "x.asics", dataName: String = "a.txt", data override: Data? = nil,
        extra: [(String, Data, ZipEntry.Method)] = [], services: LongTermServices? = nil
    ) async throws -> String {
        let content = Data("signed content\n".utf8)
        let source = try TestEnvironment.write("signed content\n", named: "a.txt", in: folder)
        let asice = Container(creatingAt: path("one.asice"))
        // A type the ASiC-S name would never guess: ASiC-S must not compare it.
        try asice.addDataFile(path: source, mediaType: "application/x-tamga-test")
        try asice.save()
        if let services {
            try await asice.sign(
                with: TestEnvironment.signer("ec-p256"), options: SignatureOptions(profile: .LT), services: services)
        } else {
            try await asice.sign(with: TestEnvironment.signer("ec-p256"), options: .baselineB)
        }
        let signature = try XCTUnwrap(try Container(openingAt: asice.path).signatures.first)
        return try writeZip(
            name,
            [
                ("mimetype", Self.mimetype, .stored), (dataName, override ?? content, .deflated),
                ("META-INF/signatures.xml", signature.data, .deflated),
            ] + extra)
    }

    func testRepackagedXAdESSignatureIsValid() async throws {
        let container = try Container(openingAt: try await repackaged())
        XCTAssertEqual(container.kind, .asics)
        XCTAssertEqual(container.signatures.map(\.name), ["META-INF/signatures.xml"])
        let report = try validate(container)
        XCTAssertEqual(report.status, .valid, "\(report)")
        XCTAssertEqual(report.signatures.first?.signer, try TestEnvironment.certificate("ec-p256").subject)
        XCTAssertEqual(report.signatures.first?.profile, "B")
    }

    /// An LT signature (time-stamp and OCSP from the loopback services) in ASiC-S: valid at the
    /// default minimum profile, and xmlsec1 (the reference's engine) verifies it independently.
    func testAnLTSignatureInASiCSIsValidAndXMLSecVerifiesIt() async throws {
        let services = try TestServices()
        defer { services.stop() }
        let transport = HTTPTransport(timeout: 5)
        let longTerm = LongTermServices(
            timeStamping: TimeStampClient(url: services.url("tsa"), transport: transport),
            ocsp: OCSPClient(transport: transport), ocspURL: services.url("ocsp"),
            issuerCandidates: [try TestEnvironment.certificate("issuing-ca")], transport: transport)
        let path = try await repackaged("lt.asics", services: longTerm)
        let report = try Container(openingAt: path).validate(ValidationOptions(trust: try TestEnvironment.testTrust()))
        XCTAssertEqual(report.status, .valid, "\(report)")
        XCTAssertEqual(report.signatures.first?.profile, "LT")
        XCTAssertEqual(report.signatures.first?.findings.map(\.code), [])
        try assertXMLSecVerifies(path, certificate: "ec-p256")
    }

    func testRepackagedWithAManifestIsStillValid() async throws {
        let manifest = Data("<?xml version=\"1.0\"?><x/>".utf8)
        let report = try validate(
            try Container(openingAt: try await repackaged(extra: [("META-INF/manifest.xml", manifest, .deflated)])))
        XCTAssertEqual(report.status, .valid, "\(report)")
    }

    func testDataObjectNotCoveredIsInvalid() async throws {
        let report = try validate(try Container(openingAt: try await repackaged(dataName: "other.txt")))
        XCTAssertEqual(report.status, .invalid)
        let codes = report.signatures.flatMap(\.findings).map(\.code)
        XCTAssertTrue(codes.contains("data-file-not-signed"), "\(codes)")
        XCTAssertTrue(codes.contains("reference-file-missing"), "\(codes)")
    }

    func testChangedDataObjectIsInvalid() async throws {
        let report = try validate(try Container(openingAt: try await repackaged(data: Data("tampered\n".utf8))))
        assertCode(report, "data-file-digest", .invalid)
    }

    func testSigningAnASiCSIsRefused() async throws {
        let container = try Container(openingAt: try await repackaged())
        do {
            try await container.sign(with: TestEnvironment.signer("ec-p256"), options: .baselineB)
            XCTFail("signed an ASiC-S")
        } catch {
            XCTAssertEqual(error as? ContainerError, .asicsReadOnly)
        }
    }
}
