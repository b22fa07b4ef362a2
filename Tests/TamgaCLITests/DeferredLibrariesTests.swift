import Foundation
import TamgaTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// libpq and libmicrohttpd are loaded when the co-signer first needs them, and OpenSSL, libxml2,
/// SQLite and p11-kit when a command first calls one of their functions
/// (`Sources/CDeferredLibraries`), not when tamga starts: the binary does not name them,
/// `--version`, help and `readers` never load them, a command that uses one has it mapped, and a
/// machine where one cannot be loaded gets an error naming the package to install. The missing library is made real, not mocked: a private mount
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
        XCTAssertTrue(
            needed.contains { $0.contains("libpcsclite.so.1") }, "a library it does link is listed: \(needed)")
        for deferred in [
            "libpq.so", "libmicrohttpd.so", "libgnutls", "libkrb5", "libldap",
            "libssl.so", "libcrypto.so", "libxml2.so", "libsqlite3.so", "libp11-kit.so", "libicuuc.so",
        ] {
            XCTAssertFalse(needed.contains { $0.contains(deferred) }, "\(deferred) is loaded at start-up: \(needed)")
        }
    }

    /// The shared objects a run of tamga loads, as the dynamic loader reports them
    /// (LD_DEBUG=files names each file it opens).
    private func loadedLibraries(_ arguments: [String], environment: [String: String] = [:]) throws -> [String] {
        var variables = ProcessInfo.processInfo.environment
        variables["LD_DEBUG"] = "files"
        for (name, value) in environment { variables[name] = value }
        let result = try TestEnvironment.run(binary, arguments, environment: variables)
        return result.error.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "file=") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != " " && $0 != "\t" && $0 != ";" })
        }
    }

    /// `--version`, help and the readers listing load none of the lazily loaded libraries; a
    /// command that verifies a container loads OpenSSL and libxml2 (and ICU with it), and still
    /// not SQLite or p11-kit.
    func testShortCommandsLoadNoneOfTheLazyLibraries() throws {
        let lazy = [
            "libssl.so.3", "libcrypto.so.3", "libxml2.so.2", "libsqlite3.so.0", "libp11-kit.so.0", "libicuuc.so",
        ]
        for arguments in [["--version"], ["--version", "--json"], ["help"], ["readers", "--json"], ["readers"]] {
            let loaded = try loadedLibraries(
                arguments, environment: ["PCSCLITE_CSOCK_NAME": folder.appendingPathComponent("no-pcscd").path])
            XCTAssertTrue(loaded.contains { $0.hasPrefix("libpcsclite.so") }, "the loader's report was read: \(loaded)")
            for library in lazy {
                XCTAssertFalse(loaded.contains { $0.hasPrefix(library) }, "\(arguments) loaded \(library): \(loaded)")
            }
        }
        let data = try TestEnvironment.write("lazy\n", named: "data.txt", in: folder)
        let container = folder.appendingPathComponent("c.asice").path
        XCTAssertEqual(try TestEnvironment.run(binary, ["container", "create", container, data]).status, 0)
        let verifying = try loadedLibraries(["verify", container, "--trust", TestEnvironment.pki("root.cert.pem")])
        for library in ["libcrypto.so.3", "libxml2.so.2", "libicuuc.so"] {
            XCTAssertTrue(verifying.contains { $0.hasPrefix(library) }, "verify loads \(library): \(verifying)")
        }
        for library in ["libsqlite3.so.0", "libp11-kit.so.0"] {
            XCTAssertFalse(
                verifying.contains { $0.hasPrefix(library) }, "verify does not load \(library): \(verifying)")
        }
    }

    /// Without libcrypto (made absent for one process, not mocked): what needs no OpenSSL still
    /// works; a command that needs it stops with exit 11, the message naming the library, the
    /// loader's reason and the package, and writes nothing.
    func testAMissingLibcryptoStopsTheCommandThatNeedsItWithItsPackage() throws {
        let version = try runWithout("libcrypto.so.3", ["--version"])
        XCTAssertEqual(version.status, 0, version.error)
        XCTAssertTrue(version.output.hasPrefix("tamga "), version.output)
        let libraries = try runWithout("libcrypto.so.3", ["--version", "--libraries"])
        XCTAssertEqual(libraries.status, 0, libraries.error)
        XCTAssertTrue(
            libraries.output.contains("OpenSSL: cannot be loaded (/usr/lib/x86_64-linux-gnu/libcrypto.so.3:")
                || libraries.output.contains("OpenSSL: cannot be loaded (/lib/x86_64-linux-gnu/libcrypto.so.3:"),
            libraries.output)
        let data = try TestEnvironment.write("needs OpenSSL\n", named: "data.txt", in: folder)
        let container = folder.appendingPathComponent("c.asice").path
        let create = try runWithout("libcrypto.so.3", ["container", "create", container, data])
        XCTAssertEqual(create.status, 11, create.output + create.error)
        XCTAssertTrue(create.error.contains("tamga: OpenSSL (libcrypto.so.3) cannot be loaded: "), create.error)
        XCTAssertTrue(create.error.contains("Install the libssl3 package."), create.error)
        XCTAssertFalse(FileManager.default.fileExists(atPath: container), "nothing was written")
        // `.c.asice.tamga-lock` stays by design (ContainerLock); a `.c.asice.tamga-XXXXXX` would be a half-written container.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.contains(".tamga-") && !$0.hasSuffix(".tamga-lock")
        }
        XCTAssertEqual(leftovers, [], "no temporary file is left")
    }

    /// A serving co-signer has loaded libmicrohttpd (and with it GnuTLS); `--version` works
    /// without either.
    func testServingLoadsLibmicrohttpd() throws {
        let version = try TestEnvironment.run(binary, ["--version"])
        XCTAssertEqual(version.status, 0, version.error)
        let database = folder.appendingPathComponent("cosigner.db").path
        let (process, url) = try TestEnvironment.startListening(
            executable: binary, ["cosigner", "serve", "--db", database])
        defer { TestEnvironment.terminate(process) }
        let health = try TestEnvironment.run(
            "/usr/bin/curl",
            ["-s", "-o", "/dev/null", "-w", "%{http_code}", url.appendingPathComponent("v3/health").absoluteString])
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
        return try TestEnvironment.run(
            "/usr/bin/unshare", ["-m", "/bin/sh", "-c", "mount --bind '\(empty)' '\(path)' && exec \(quoted)"])
    }

    func testAMissingLibpqIsNamedWithItsPackage() throws {
        let result = try runWithout(
            "libpq.so.5", ["cosigner", "migrate", "--db", "postgresql:///tamga?host=\(folder.path)"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.error.contains("PostgreSQL needs libpq, which cannot be loaded"), result.error)
        XCTAssertTrue(result.error.contains("install the libpq5 package"), result.error)
        // With the library there, the same command gets as far as connecting.
        let connecting = try TestEnvironment.run(
            binary, ["cosigner", "migrate", "--db", "postgresql:///tamga?host=\(folder.path)"])
        XCTAssertNotEqual(connecting.status, 0)
        XCTAssertTrue(connecting.error.contains("cannot connect to PostgreSQL"), connecting.error)
    }

    func testAMissingLibmicrohttpdIsNamedWithItsPackage() throws {
        let database = folder.appendingPathComponent("cosigner.db").path
        let result = try runWithout("libmicrohttpd.so.12", ["cosigner", "serve", "--db", database])
        XCTAssertEqual(result.status, 11, "library-missing, as for the other deferred libraries")
        XCTAssertTrue(result.error.contains("needs libmicrohttpd, which cannot be loaded"), result.error)
        XCTAssertTrue(result.error.contains("install the libmicrohttpd12 package"), result.error)
        XCTAssertFalse(result.output.contains("listening"), result.output)
    }
}
