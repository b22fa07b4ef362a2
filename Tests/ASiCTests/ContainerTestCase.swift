import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// Base for container tests: a fresh folder per test and helpers to make signed containers.
class ContainerTestCase: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("asic") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// A file of `count` pseudo-random bytes (a linear congruential generator from `seed`: the
    /// same bytes every run), for the streaming tests.
    func pseudoRandomFile(_ count: Int, seed: UInt8) throws -> (path: String, bytes: [UInt8]) {
        var state = UInt32(seed) | 0x9E37_0000
        let bytes = (0..<count).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        let path = self.path("random-\(count)-\(seed).bin")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    /// A container with two small data files, one with spaces, `#` and non-ASCII in its name.
    func makeContainer(
        _ name: String = "c.asice", files: [String: String] = ["my file ö #1.txt": "hello\n", "b.txt": "second file\n"]
    ) throws -> Container {
        let container = Container(creatingAt: path(name))
        for (fileName, content) in files.sorted(by: { $0.key < $1.key }) {
            try container.addDataFile(path: TestEnvironment.write(content, named: fileName, in: folder))
        }
        try container.save()
        return try Container(openingAt: path(name))
    }

    func signedContainer(
        _ key: String = "ec-p256", options: SignatureOptions = .baselineB,
        algorithm: SignatureAlgorithm? = nil, name: String = "signed.asice"
    ) async throws -> Container {
        let container = try makeContainer(name)
        try await container.sign(with: TestEnvironment.signer(key, algorithm: algorithm), options: options)
        return try Container(openingAt: container.path)
    }

    /// Replaces the signature file of a signed container with `xml` (same entry name).
    func withSignatureXML(_ xml: String, base: Container, name: String = "replaced.asice") throws -> String {
        try withSignatureBytes(Data(xml.utf8), base: base, name: name)
    }

    /// Replaces the signature file of a signed container with `bytes` (same entry name).
    func withSignatureBytes(_ bytes: Data, base: Container, name: String = "replaced.asice") throws -> String {
        let out = path(name)
        let script = """
            import sys, zipfile
            src = zipfile.ZipFile(sys.argv[1]); dst = zipfile.ZipFile(sys.argv[2], "w")
            for info in src.infolist():
                data = sys.stdin.buffer.read() if info.filename == "META-INF/signatures0.xml" else src.read(info.filename)
                dst.writestr(info, data, compress_type=info.compress_type)
            dst.close()
            """
        let result = try TestEnvironment.run("/usr/bin/python3", ["-c", script, base.path, out], input: bytes)
        XCTAssertEqual(result.status, 0, result.error)
        return out
    }

    func validate(_ container: Container) throws -> ValidationReport {
        container.validate(ValidationOptions(trust: try TestEnvironment.testTrust(), minimumProfile: .B))
    }

    /// Asserts the external checker exits 0 on the container.
    func assertExternalCheckPasses(
        _ executable: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try TestEnvironment.run(executable, arguments)
        XCTAssertEqual(
            result.status, 0, "\(executable) \(arguments.joined(separator: " ")):\n\(result.output)\n\(result.error)",
            file: file, line: line)
    }

    func assertXMLSecVerifies(
        _ container: String, certificate: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        try assertExternalCheckPasses(
            "/bin/bash",
            [TestEnvironment.script("xmlsec-check.sh"), container, TestEnvironment.pki("\(certificate).cert.pem")],
            file: file, line: line)
    }

    func assertPyasiceVerifies(_ container: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: TestEnvironment.pyasicePython),
            "pyasice venv missing: run scripts/setup-pyasice.sh (make test does)", file: file, line: line)
        try assertExternalCheckPasses(
            TestEnvironment.pyasicePython,
            [TestEnvironment.script("pyasice-check.py"), "--require-raw-ecdsa", container],
            file: file, line: line)
    }
}
