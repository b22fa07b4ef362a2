import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// Base for tests that sign at T and above: the loopback TSA and OCSP responder are started
/// for each test and stopped afterwards (by PID, from synchronous code).
class LongTermTestCase: ContainerTestCase {
    var services: TestServices!

    override func setUpWithError() throws {
        try super.setUpWithError()
        services = try TestServices()
    }

    override func tearDown() {
        services.stop()
        super.tearDown()
    }

    func longTerm(tsa: String = "tsa", ocsp: String = "ocsp") throws -> LongTermServices {
        let transport = HTTPTransport(timeout: 5)
        return LongTermServices(
            timeStamping: TimeStampClient(url: services.url(tsa), transport: transport),
            ocsp: OCSPClient(transport: transport), ocspURL: services.url(ocsp),
            issuerCandidates: [try TestEnvironment.certificate("issuing-ca")], transport: transport)
    }

    func ltContainer(
        _ key: String = "ec-p256", profile: SignatureProfile = .LT, name: String = "lt.asice"
    ) async throws -> Container {
        let container = try makeContainer(name)
        try await container.sign(
            with: TestEnvironment.signer(key), options: SignatureOptions(profile: profile), services: longTerm())
        return try Container(openingAt: container.path)
    }
}
