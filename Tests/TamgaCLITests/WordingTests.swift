import Foundation
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

#if canImport(Glibc)
import Glibc
#endif

/// What tamga says in passing: articles as profiles are read aloud, and a stopped server does
/// not speak of unfinished files.
final class WordingTests: XCTestCase {
    func testProfilesTakeTheArticleTheyAreReadWith() async throws {
        let folder = try TestEnvironment.temporaryFolder("wording")
        defer { TestEnvironment.removeFolder(folder) }
        let data = try TestEnvironment.write("x\n", named: "x.txt", in: folder)
        for (profile, expected) in [("LT", "an LT signature"), ("LTA", "an LTA signature"), ("T", "a T signature")] {
            let (code, _, err) = await runTamgaInProcess([
                "sign", folder.appendingPathComponent("c.asice").path, data,
                "--with", "key:\(TestEnvironment.pki("ec-p256.p12"))", "--profile", profile,
            ])
            XCTAssertEqual(code, .usage, err)
            XCTAssertTrue(err.contains(expected), err)
        }
    }

    /// SIGTERM is how a service manager stops `cosigner serve`: it says it stopped, nothing else.
    func testStoppingTheCoSignerSaysItStopped() throws {
        let folder = try TestEnvironment.temporaryFolder("serve")
        defer { TestEnvironment.removeFolder(folder) }
        let err = Pipe()
        let (process, url) = try TestEnvironment.startListening(
            executable: TestEnvironment.productsDirectory.appendingPathComponent("tamga").path,
            ["cosigner", "serve", "--db", folder.appendingPathComponent("cosigner.db").path, "--allow-unattested"],
            standardError: err)
        XCTAssertEqual(url.host, "127.0.0.1")
        kill(process.processIdentifier, SIGTERM)
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 128 + SIGTERM)
        XCTAssertTrue(said.contains("tamga: stopped."), said)
        XCTAssertFalse(said.contains("unfinished"), said)
    }

    func testTheInterruptionMessageFitsWhatWasHappening() {
        XCTAssertEqual(TamgaCommandLine.interruptionMessage(removedFiles: 0), "tamga: interrupted.")
        XCTAssertTrue(TamgaCommandLine.interruptionMessage(removedFiles: 1).contains("unfinished file was removed"))
    }
}
