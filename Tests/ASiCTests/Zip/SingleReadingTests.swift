import TamgaCore
import TamgaTestSupport
import XCTest

@testable import ASiC

/// A container has one reading or it is refused: the two shapes found by probing tamga 04dfaae
/// (a second archive behind the first one's comment; a ZIP64 locator before the end record that
/// points at another central directory) made tamga verify an LT signature over "Alice" while
/// Python's zipfile, unzip and Java read "Mallory". Each is built here from a real LT container;
/// the test first shows that another reader really reads the other text, then that tamga refuses.
final class SingleReadingTests: LongTermTestCase {
    static let alice = "Pay 100 EUR to Alice."
    static let mallory = "Pay 999999 EUR to Mallory."

    /// A valid LT container signing contract.txt = Alice's text.
    private func aliceContainer() async throws -> Container {
        let container = try makeContainer("alice.asice", files: ["contract.txt": Self.alice])
        try await container.sign(
            with: TestEnvironment.signer("ec-p256"), options: SignatureOptions(profile: .LT), services: longTerm())
        let reopened = try Container(openingAt: container.path)
        XCTAssertEqual(
            try validate(reopened).status, .valid, "the base container must be valid for the test to mean anything")
        return reopened
    }

    /// Writes the attack `shape` over `base` (scripts/make-ambiguous-zip.py).
    private func attacked(_ base: Container, shape: String) throws -> String {
        let out = path("\(shape).asice")
        let result = try TestEnvironment.run(
            "/usr/bin/python3", [TestEnvironment.script("make-ambiguous-zip.py"), shape, base.path, out, Self.mallory])
        XCTAssertEqual(result.status, 0, result.error)
        return out
    }

    /// What Python's zipfile reads as contract.txt.
    private func pythonReads(_ file: String) throws -> String {
        let result = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read('contract.txt').decode())",
                file,
            ])
        XCTAssertEqual(result.status, 0, result.error)
        return result.output
    }

    private func assertAmbiguous(_ file: String, mentioning words: String, line: UInt = #line) {
        let before = try? Data(contentsOf: URL(fileURLWithPath: file))
        XCTAssertThrowsError(try Container(openingAt: file), line: line) { error in
            XCTAssertEqual((error as? ContainerError)?.code, "ambiguous-zip", "\(error)", line: line)
            XCTAssertTrue("\(error)".contains(words), "\(error)", line: line)
        }
        XCTAssertEqual(
            try? Data(contentsOf: URL(fileURLWithPath: file)), before, "the file is left as it was", line: line)
    }

    func testASecondArchiveBehindTheFirstOnesCommentIsRefused() async throws {
        let base = try await aliceContainer()
        let file = try attacked(base, shape: "appended")
        XCTAssertEqual(try pythonReads(file), Self.mallory, "Python's zipfile reads the appended archive")
        let unzip = try TestEnvironment.run("/usr/bin/unzip", ["-p", file, "contract.txt"])
        XCTAssertEqual(unzip.output, Self.mallory, "so does Info-ZIP unzip")
        assertAmbiguous(file, mentioning: "two end-of-central-directory records")
    }

    func testASecondEndRecordClaimingAMissingCommentByteIsRefused() async throws {
        let base = try await aliceContainer()
        let file = try attacked(base, shape: "appended-missing-comment-byte")
        XCTAssertEqual(try pythonReads(file), Self.mallory)
        assertAmbiguous(file, mentioning: "comment")
    }

    func testAZIP64LocatorBeforeTheEndRecordPointingElsewhereIsRefused() async throws {
        let base = try await aliceContainer()
        let file = try attacked(base, shape: "zip64-locator")
        XCTAssertEqual(try pythonReads(file), Self.mallory, "Python's zipfile follows the locator")
        assertAmbiguous(file, mentioning: "ZIP64")
    }

    func testBytesAfterTheEndRecordAreRefused() async throws {
        let base = try await aliceContainer()
        let file = try attacked(base, shape: "trailing-bytes")
        assertAmbiguous(file, mentioning: "follow the end of the ZIP archive")
    }

    func testAPlainCommentIsStillRead() async throws {
        let base = try await aliceContainer()
        let file = try attacked(base, shape: "plain-comment")
        let container = try Container(openingAt: file)
        XCTAssertEqual(try validate(container).status, .valid)
    }
}
