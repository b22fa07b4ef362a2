import Foundation
import TamgaTestSupport
import XCTest

/// A DigiDoc file whose DataFile declares a relative namespace cannot be canonicalised, and
/// libxml2 says so through its error handler, which by default prints "C14N error : …" lines on
/// stderr. tamga reads the error itself and says it once, in its own words: nothing of libxml2's
/// reaches a terminal, and nothing a client sends reaches the validation service's log.
final class LibraryErrorOutputTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    static let relativeNamespace = """
        <?xml version="1.0" encoding="UTF-8"?>
        <SignedDoc format="DIGIDOC-XML" version="1.3" xmlns="http://www.sk.ee/DigiDoc/v1.3.0#">
        <DataFile ContentType="EMBEDDED_BASE64" Filename="t.txt" Id="D0" MimeType="text/plain" xmlns="relative/uri">dGVzdA==</DataFile>
        </SignedDoc>

        """

    func testVerifySaysItInItsOwnWordsOnly() throws {
        let folder = try TestEnvironment.temporaryFolder("libxml2-errors")
        defer { TestEnvironment.removeFolder(folder) }
        let file = try TestEnvironment.write(Self.relativeNamespace, named: "relative.ddoc", in: folder)
        let result = try TestEnvironment.run(binary, ["verify", file])
        XCTAssertEqual(result.status, 3, result.error)
        XCTAssertEqual(result.error, "tamga: Refused: DataFile is not acceptable XML: canonicalization failed.\n")
        XCTAssertEqual(result.output, "")
    }

    func testTheValidationServiceLogsNoLibraryLines() throws {
        let harness = try ValidationServeHarness("libxml2-errors-serve")
        defer { harness.stop() }
        let anchor = TestEnvironment.pki("root.cert.pem")
        let (url, errors) = try harness.serve(["--trust", anchor, "--quiet"])
        let file = try TestEnvironment.write(Self.relativeNamespace, named: "relative.ddoc", in: harness.folder)
        let (status, _) = try harness.post(
            url, "validate",
            ["document": try TestEnvironment.bytes(file).base64EncodedString(), "filename": "relative.ddoc"])
        XCTAssertEqual(status, 400, "a document tamga cannot read is the client's error")
        harness.stopServers()
        let log = errors.text
        XCTAssertFalse(log.contains("C14N"), log)
        XCTAssertFalse(log.contains("error :"), log)
    }
}
