import ASiC
import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

/// Several `tamga sign` processes on one container at once: each waits for the one before it
/// (a lock over the whole read–sign–rename), so every signature is kept in its own file.
final class ConcurrentSigningTests: XCTestCase {
    private var folder: URL!
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("concurrent") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    private func signConcurrently(_ count: Int) throws {
        let container = folder.appendingPathComponent("shared-\(count).asice").path
        let document = try TestEnvironment.write("signed by \(count) at once\n", named: "doc.txt", in: folder)
        let created = try TestEnvironment.run(binary, ["container", "create", container, document, "-q"])
        XCTAssertEqual(created.status, 0, created.error)
        let key = TestEnvironment.fixture("pki/ec-p256.key.pem"),
            certificate = TestEnvironment.fixture("pki/ec-p256.cert.pem")
        let script = """
            for i in $(seq \(count)); do
              "$0" sign "$1" --with "key:$2" --cert "$3" --profile B --role "signer $i" -q > "$4/out.$i" 2>&1 &
            done
            status=0
            for job in $(jobs -p); do wait "$job" || status=1; done
            exit $status
            """
        let result = try TestEnvironment.run(
            "/bin/bash", ["-c", script, binary, container, key, certificate, folder.path])
        let outputs = (1...count).map {
            (try? String(contentsOf: folder.appendingPathComponent("out.\($0)"), encoding: .utf8)) ?? ""
        }
        XCTAssertEqual(result.status, 0, outputs.joined(separator: "\n"))
        let opened = try Container(openingAt: container)
        XCTAssertEqual(opened.signatures.count, count, "every signature is kept")
        XCTAssertEqual(Set(opened.signatures.map(\.name)).count, count, "each in its own file")
        let report = opened.validate(ValidationOptions(trust: try TestEnvironment.testTrust(), minimumProfile: .B))
        XCTAssertEqual(report.signatures.count, count)
        XCTAssertTrue(report.signatures.allSatisfy { $0.status == .valid }, "\(report.signatures.map(\.findings))")
    }

    func testTwoSignersAtOnceKeepBothSignatures() throws { try signConcurrently(2) }

    func testTenSignersAtOnceKeepEverySignature() throws { try signConcurrently(10) }
}
