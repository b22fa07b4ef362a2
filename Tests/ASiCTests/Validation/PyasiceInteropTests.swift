import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// Containers that pyasice creates and signs (exclusive C14N, its own Ids and file names,
/// no manifest version) open and verify with tamga.
final class PyasiceInteropTests: ContainerTestCase {
    private func pyasiceContainer(_ key: String, extraArguments: [String] = []) throws -> String {
        let file = path("py-\(key).asice")
        let a = try TestEnvironment.write("hello from pyasice\n", named: "a b #ö.txt", in: folder)
        let b = try TestEnvironment.write("{\"k\": 1}", named: "data.json", in: folder)
        let result = try TestEnvironment.run(
            TestEnvironment.pyasicePython,
            [TestEnvironment.script("pyasice-sign.py")] + extraArguments
                + [file, TestEnvironment.pki("\(key).key.pem"), TestEnvironment.pki("\(key).cert.pem"), a, b])
        XCTAssertEqual(result.status, 0, result.error)
        return file
    }

    func testPyasiceECDSAContainerVerifies() throws {
        let report = try validate(Container(openingAt: pyasiceContainer("ec-p256")))
        XCTAssertEqual(report.status, .valid, "\(report)")
        XCTAssertEqual(report.dataFiles.sorted(), ["a b #ö.txt", "data.json"])
    }

    func testPyasiceRSAContainerVerifies() throws {
        XCTAssertEqual(try validate(Container(openingAt: pyasiceContainer("rsa-2048"))).status, .valid)
    }

    func testPyasiceContainerWithTwoSignaturesVerifies() throws {
        let file = try pyasiceContainer("ec-p384")
        let append = try TestEnvironment.run(
            TestEnvironment.pyasicePython,
            [
                TestEnvironment.script("pyasice-sign.py"), "--append", file,
                TestEnvironment.pki("rsa-2048.key.pem"), TestEnvironment.pki("rsa-2048.cert.pem"),
            ])
        XCTAssertEqual(append.status, 0, append.error)
        let report = try validate(Container(openingAt: file))
        XCTAssertEqual(report.signatures.map(\.status), [.valid, .valid], "\(report)")
    }

    func testTamgaCanAddASignatureToAPyasiceContainer() async throws {
        let file = try pyasiceContainer("ec-p256")
        let container = try Container(openingAt: file)
        try await container.sign(with: TestEnvironment.signer("ec-p384"), options: .baselineB)
        let report = try validate(Container(openingAt: file))
        XCTAssertEqual(report.signatures.map(\.status), [.valid, .valid], "\(report)")
        try assertPyasiceVerifies(file)
    }
}
