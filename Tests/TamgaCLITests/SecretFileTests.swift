import Foundation
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

/// `--pin-file`, read with read(2) into one wiped buffer: a pipe (process substitution) works,
/// a file larger than any PIN is refused rather than read whole, an empty one is an empty PIN,
/// and a missing one is unreadable.
final class SecretFileTests: XCTestCase {
    func testPINFilesAreBoundedAndPipesWork() throws {
        let folder = try TestEnvironment.temporaryFolder("secret-file")
        defer { TestEnvironment.removeFolder(folder) }
        let pin = try TestEnvironment.write("12345\n", named: "pin", in: folder)
        XCTAssertEqual(SecretInput.readSecretFile(pin), Array("12345\n".utf8))
        XCTAssertEqual(SecretInput.readSecretFile(try TestEnvironment.write("", named: "empty", in: folder)), [])
        let exact = try TestEnvironment.write(
            String(repeating: "7", count: SecretInput.maximumFileSize), named: "exact", in: folder)
        XCTAssertEqual(SecretInput.readSecretFile(exact)?.count, SecretInput.maximumFileSize)
        let huge = try TestEnvironment.write(
            String(repeating: "7", count: SecretInput.maximumFileSize + 1), named: "huge", in: folder)
        XCTAssertNil(SecretInput.readSecretFile(huge), "one byte more than a PIN file may hold")
        XCTAssertNil(SecretInput.readSecretFile(folder.appendingPathComponent("missing").path))
        XCTAssertThrowsError(try SecretInput(pinFile: huge, environment: [:]).read(prompt: "PIN: ")) { error in
            XCTAssertEqual("\(error)", "Cannot read the PIN file \(huge).")
        }
        // A pipe, as `--pin-file <(…)` gives one: read to its end.
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        _ = "24680\n".withCString { write(ends[1], $0, 6) }
        close(ends[1])
        defer { close(ends[0]) }
        XCTAssertEqual(SecretInput.readSecretFile("/dev/fd/\(ends[0])"), Array("24680\n".utf8))
    }
}
