import TamgaTestSupport
import XCTest

@testable import ASiC

/// Base for the DDOC tests: the loopback TSA and OCSP responders (LongTermTestCase), and DigiDoc
/// files made by `scripts/make-ddoc.py` with the test PKI (tamga never writes DDOC).
class DDOCTestCase: LongTermTestCase {
    /// A DDOC of `version` (1.0 is SK-XML 1.0) with `arguments`, its OCSP from `ocsp`.
    func ddoc(
        _ version: String = "1.3", _ arguments: [String] = [], ocsp: String = "ocsp", pki: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        let out = path("\(version)-\(UUID().uuidString).ddoc")
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                TestEnvironment.script("make-ddoc.py"), "--pki", pki ?? TestEnvironment.fixture("pki"),
                "--ocsp", services.url(ocsp).absoluteString, "--out", out, "--version", version,
            ] + arguments)
        XCTAssertEqual(result.status, 0, result.error, file: file, line: line)
        return out
    }
}
