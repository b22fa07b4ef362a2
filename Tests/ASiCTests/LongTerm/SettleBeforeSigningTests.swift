import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// What can fail without the key fails before the key is used: no PIN asked, no card or
/// co-signer signature spent, for a signature that could not have been completed.
final class SettleBeforeSigningTests: LongTermTestCase {
    /// A signer that counts how often its key is used.
    final class CountingSigner: Signer, @unchecked Sendable {
        let inner: SoftwareSigner
        private let lock = NSLock()
        private var count = 0
        init(_ inner: SoftwareSigner) { self.inner = inner }
        var uses: Int { lock.withLock { count } }
        func certificate() async throws -> Certificate { try await inner.certificate() }
        var algorithm: SignatureAlgorithm { inner.algorithm }
        func sign(digest: Digest) async throws -> Data {
            lock.withLock { count += 1 }
            return try await inner.sign(digest: digest)
        }
    }

    private func attempt(
        _ services: LongTermServices, file: StaticString = #filePath, line: UInt = #line
    ) async throws -> (Error?, Int) {
        let container = try makeContainer("settle.asice")
        let before = try Data(contentsOf: URL(fileURLWithPath: container.path))
        let signer = CountingSigner(try TestEnvironment.signer("ec-p256"))
        var failure: Error?
        do { try await container.sign(with: signer, options: SignatureOptions(profile: .LT), services: services) } catch
        { failure = error }
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: container.path)), before, "the container is unchanged",
            file: file, line: line)
        return (failure, signer.uses)
    }

    func testAnUnknownIssuerIsFoundBeforeTheKeyIsUsed() async throws {
        var services = try longTerm()
        services.issuerCandidates = []  // and the certificate's AIA points at a port nobody serves here
        let (failure, uses) = try await attempt(services)
        XCTAssertEqual((failure as? CoreError)?.code, "service-response-rejected", "\(String(describing: failure))")
        XCTAssertEqual(uses, 0, "the key was not used")
    }

    func testAnUnreachableTSAOrResponderIsFoundBeforeTheKeyIsUsed() async throws {
        // A port that was free a moment ago: nothing listens there.
        let closed = URL(string: "http://127.0.0.1:9/tsa")!
        var services = try longTerm()
        services.timeStamping = TimeStampClient(url: closed, transport: HTTPTransport(timeout: 3))
        var (failure, uses) = try await attempt(services)
        XCTAssertEqual((failure as? CoreError)?.code, "service-unreachable", "\(String(describing: failure))")
        XCTAssertEqual(uses, 0)
        services = try longTerm()
        services.ocspURL = URL(string: "http://127.0.0.1:9/ocsp")!
        (failure, uses) = try await attempt(services)
        XCTAssertEqual((failure as? CoreError)?.code, "service-unreachable", "\(String(describing: failure))")
        XCTAssertEqual(uses, 0)
    }

    func testAFolderThatCannotTakeTheContainerIsFoundBeforeTheKeyIsUsed() async throws {
        let container = Container(creatingAt: path("gone/never.asice"))
        try container.addDataFile(path: TestEnvironment.write("text\n", named: "a.txt", in: folder))
        let signer = CountingSigner(try TestEnvironment.signer("ec-p256"))
        do {
            try await container.sign(with: signer, options: .baselineB)
            XCTFail("signed into a folder that does not exist")
        } catch ContainerError.ioFailure(let target, _) {
            XCTAssertEqual(target, path("gone/never.asice"))
        }
        XCTAssertEqual(signer.uses, 0)
    }

    func testWithEverythingInPlaceTheKeyIsUsedOnce() async throws {
        let container = try makeContainer("ok.asice")
        let signer = CountingSigner(try TestEnvironment.signer("ec-p256"))
        try await container.sign(with: signer, options: SignatureOptions(profile: .LT), services: try longTerm())
        XCTAssertEqual(signer.uses, 1)
    }
}
