import Foundation
import TamgaTestSupport
import XCTest

@testable import TamgaCLI

#if canImport(Glibc)
import Glibc
#endif

/// What a new user meets with an unusual home or unusual file names: a read-only or missing
/// HOME gives a plain message naming the folder and the XDG variable to set (never
/// Foundation's error dump), and a file name that is not UTF-8 is found and shown escaped.
final class HomeFolderTests: XCTestCase {
    private var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("home") }
    override func tearDown() {
        chmod(folder.appendingPathComponent("home").path, 0o755)
        TestEnvironment.removeFolder(folder)
    }
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    /// Runs the binary with `home` read-only: a read-only bind mount in a mount namespace of its
    /// own when root (for whom permissions do not apply), else mode 0555.
    private func runWithReadOnly(
        _ home: URL, _ arguments: [String], environment: [String: String]
    ) throws -> TestEnvironment.ProcessResult {
        if getuid() == 0 {
            return try TestEnvironment.run(
                "/usr/bin/unshare",
                ["-m", "/bin/sh", "-c", "mount --bind -o ro \"$0\" \"$0\" && exec \"$@\"", home.path, binary]
                    + arguments,
                environment: environment)
        }
        chmod(home.path, 0o555)
        defer { chmod(home.path, 0o755) }
        return try TestEnvironment.run(binary, arguments, environment: environment)
    }

    func testAReadOnlyHomeNamesTheFolderAndTheVariable() throws {
        let home = folder.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let pin = try TestEnvironment.write("24680\n", named: "pin", in: folder)
        let environment = ["PATH": "/usr/bin:/bin", "HOME": home.path]
        // Enrolling makes the account folder: refused before any PIN is read or the server is called.
        let enroll = try runWithReadOnly(
            home,
            [
                "threshold", "enroll", "--server", "http://127.0.0.1:9", "--code", "X", "--account", "me",
                "--pin-file", pin,
            ], environment: environment)
        XCTAssertEqual(enroll.status, ExitCode.writeFailed.rawValue, enroll.error)
        XCTAssertTrue(enroll.error.contains(home.appendingPathComponent(".local").path), enroll.error)
        XCTAssertTrue(enroll.error.contains("XDG_DATA_HOME"), enroll.error)
        XCTAssertFalse(enroll.error.contains("NSCocoaErrorDomain"), enroll.error)
        // Reading an account that is not there says so, rather than failing to make its folder.
        let pending = try runWithReadOnly(home, ["threshold", "pending", "--account", "me"], environment: environment)
        XCTAssertEqual(pending.status, ExitCode.inputRejected.rawValue, pending.error)
        XCTAssertTrue(pending.error.contains("enroll first"), pending.error)
        // The trust cache: refused before anything is downloaded, naming XDG_CACHE_HOME.
        let trust = try runWithReadOnly(
            home, ["trust", "update", "--lotl", "http://127.0.0.1:9/eu-lotl.xml", "--json"], environment: environment)
        XCTAssertEqual(trust.status, ExitCode.writeFailed.rawValue, trust.error)
        XCTAssertTrue(trust.error.contains("XDG_CACHE_HOME") && trust.error.contains(home.path), trust.error)
        XCTAssertTrue(trust.output.contains("\"code\" : \"folder-not-writable\""), trust.output)
        // The co-signer's database in a read-only folder: the option to give, not SQLite's words.
        let database = home.appendingPathComponent("cosigner.db").path
        let code = try runWithReadOnly(
            home, ["cosigner", "issue-code", "38001085718", "--db", database, "--create"], environment: environment)
        XCTAssertEqual(code.status, ExitCode.writeFailed.rawValue, code.error)
        XCTAssertTrue(code.error.contains("--db") && !code.error.contains("readonly database"), code.error)
    }

    func testNoHomeAtAllSaysWhatToSet() throws {
        let pin = try TestEnvironment.write("24680\n", named: "pin", in: folder)
        let enroll = try TestEnvironment.run(
            binary,
            [
                "threshold", "enroll", "--server", "http://127.0.0.1:9", "--code", "X", "--account", "me",
                "--pin-file", pin,
            ], environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(enroll.status, ExitCode.writeFailed.rawValue, enroll.error)
        XCTAssertTrue(enroll.error.contains("HOME") && enroll.error.contains("XDG_DATA_HOME"), enroll.error)
        // With XDG_DATA_HOME alone, the account folder goes there (and the enrollment goes on to the network).
        let data = folder.appendingPathComponent("data")
        let elsewhere = try TestEnvironment.run(
            binary,
            [
                "threshold", "enroll", "--server", "http://127.0.0.1:9", "--code", "X", "--account", "me",
                "--pin-file", pin,
            ], environment: ["PATH": "/usr/bin:/bin", "XDG_DATA_HOME": data.path])
        XCTAssertEqual(elsewhere.status, ExitCode.serviceFailed.rawValue, elsewhere.error)
        XCTAssertTrue(FileManager.default.fileExists(atPath: data.appendingPathComponent("tamga/threshold/me").path))
    }

    /// A real file named with byte 0xFF, and a folder named with 0xFE: found, used, and shown
    /// with those bytes as \xFF; a new file cannot be given such a name and is refused.
    func testFileNamesThatAreNotUTF8AreFoundAndShownEscaped() throws {
        // The shell makes the names from bytes (Foundation's Process takes only Strings).
        let script = """
            cd "$1" || exit 99
            printf 'hello\\n' > "$(printf 'a\\377.txt')"
            mkdir "$(printf 'd\\376')"
            "$0" container create "$(printf 'd\\376')/c.asice" "$(printf 'a\\377.txt')" || exit 1
            "$0" container ls "$(printf 'd\\376')/c.asice" --json || exit 2
            "$0" sign "$(printf 'd\\376')/c.asice" --with key:"$2" --profile B --pin-file "$3" -q || exit 3
            "$0" verify "$(printf 'a\\377.txt')" 2>&1
            "$0" container create "$(printf 'new\\375.asice')" "$(printf 'a\\377.txt')" 2>&1
            echo "new: $?"
            ls
            """
        let pin = try TestEnvironment.write("test1234\n", named: "pin", in: folder)
        let result = try TestEnvironment.run(
            "/bin/sh", ["-c", script, binary, folder.path, TestEnvironment.pki("ec-p256.p12"), pin])
        XCTAssertEqual(result.status, 0, result.output + result.error)
        let out = result.output
        XCTAssertTrue(out.contains("d\\xFE/c.asice (ASiC-E): 1 data file(s), 0 signature(s)"), out)
        XCTAssertTrue(out.contains("\"container\" : \"d\\\\xFE/c.asice\""), out)
        XCTAssertTrue(out.contains("\"name\" : \"a\u{FFFD}.txt\""), out)  // ZIP names are UTF-8
        XCTAssertTrue(out.contains("Signed d\\xFE/c.asice as"), out)
        // The file itself was opened (it is not a container), not "no such file".
        XCTAssertTrue(out.contains("Not a readable ASiC container"), out)
        XCTAssertFalse(out.contains("/proc/self/fd"), out)
        XCTAssertTrue(out.contains("new\\xFD.asice is not UTF-8 and names no existing file"), out)
        XCTAssertTrue(out.contains("new: 2"), out)
        XCTAssertFalse(out.contains("new\u{FFFD}.asice"), "no file under a replaced name: \(out)")
    }
}
