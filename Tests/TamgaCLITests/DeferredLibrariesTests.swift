import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TamgaTestSupport
import XCTest

/// libpq and libmicrohttpd are loaded when the co-signer first needs them
/// (`Sources/CDeferredLibraries`), not when tamga starts: the binary does not name them, a
/// serving co-signer has them mapped, and a machine where one cannot be loaded gets an error
/// naming the package to install. The missing library is made real, not mocked: a private mount
/// namespace (`unshare -m`) puts an empty file over it for that one process.
final class DeferredLibrariesTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }
    private var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("deferred-libraries") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    /// The binary's NEEDED entries (readelf, from binutils, which make test installs).
    func testTheBinaryDoesNotNameTheDeferredLibraries() throws {
        let dynamic = try TestEnvironment.run("/usr/bin/readelf", ["-d", binary])
        XCTAssertEqual(dynamic.status, 0, dynamic.error)
        let needed = dynamic.output.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        XCTAssertTrue(needed.contains { $0.contains("libpcsclite.so.1") }, "a library it does link is listed: \(needed)")
        for deferred in ["libpq.so", "libmicrohttpd.so", "libgnutls", "libkrb5", "libldap"] {
            XCTAssertFalse(needed.contains { $0.contains(deferred) }, "\(deferred) is loaded at start-up: \(needed)")
        }
    }

    /// A serving co-signer has loaded libmicrohttpd (and with it GnuTLS); `--version` works
    /// without either.
    func testServingLoadsLibmicrohttpd() throws {
        let version = try TestEnvironment.run(binary, ["--version"])
        XCTAssertEqual(version.status, 0, version.error)
        let database = folder.appendingPathComponent("cosigner.db").path
        let (process, url) = try TestEnvironment.startListening(executable: binary, ["cosigner", "serve", "--db", database])
        defer { TestEnvironment.terminate(process) }
        let health = try TestEnvironment.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", url.appendingPathComponent("v3/health").absoluteString])
        XCTAssertEqual(health.output, "200")
        // Through cat: /proc files report no size, and a read by size sees nothing.
        let maps = try TestEnvironment.run("/bin/cat", ["/proc/\(process.processIdentifier)/maps"]).output
        XCTAssertTrue(maps.contains("libmicrohttpd.so.12"), "libmicrohttpd is mapped while serving")
        XCTAssertFalse(maps.contains("libpq.so.5"), "a SQLite co-signer never loads libpq")
    }

    /// `unshare -m` + a bind mount of an empty file over the library: only this process sees it
    /// gone. Needs root (CI and make test run as root).
    private func runWithout(_ library: String, _ arguments: [String]) throws -> TestEnvironment.ProcessResult {
        guard geteuid() == 0 else { throw XCTSkip("needs root for a private mount namespace (make test runs as root)") }
        let path = "/usr/lib/x86_64-linux-gnu/\(library)"
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "\(path) is installed (make test installs it)")
        let empty = try TestEnvironment.write("", named: "empty.so", in: folder)
        let quoted = ([binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try TestEnvironment.run("/usr/bin/unshare", ["-m", "/bin/sh", "-c", "mount --bind '\(empty)' '\(path)' && exec \(quoted)"])
    }

    func testAMissingLibpqIsNamedWithItsPackage() throws {
        let result = try runWithout("libpq.so.5", ["cosigner", "migrate", "--db", "postgresql:///tamga?host=\(folder.path)"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.error.contains("PostgreSQL needs libpq, which cannot be loaded"), result.error)
        XCTAssertTrue(result.error.contains("install the libpq5 package"), result.error)
        // With the library there, the same command gets as far as connecting.
        let connecting = try TestEnvironment.run(binary, ["cosigner", "migrate", "--db", "postgresql:///tamga?host=\(folder.path)"])
        XCTAssertNotEqual(connecting.status, 0)
        XCTAssertTrue(connecting.error.contains("cannot connect to PostgreSQL"), connecting.error)
    }

    func testAMissingLibmicrohttpdIsNamedWithItsPackage() throws {
        let database = folder.appendingPathComponent("cosigner.db").path
        let result = try runWithout("libmicrohttpd.so.12", ["cosigner", "serve", "--db", database])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.error.contains("needs libmicrohttpd, which cannot be loaded"), result.error)
        XCTAssertTrue(result.error.contains("install the libmicrohttpd12 package"), result.error)
        XCTAssertFalse(result.output.contains("listening"), result.output)
    }
}
