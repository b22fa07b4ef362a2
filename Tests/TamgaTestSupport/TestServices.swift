import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The loopback TSA and OCSP responder of `scripts/test-services.py`, started for a test and
/// stopped by PID. The URL path picks the behaviour (`/tsa`, `/tsa/unavailable`, `/ocsp`,
/// `/ocsp/stale`, …; see the script).
public final class TestServices: @unchecked Sendable {  // unchecked: immutable after start; stop() is idempotent
    public let baseURL: URL
    private let process: Process

    /// - Parameter clockOffset: runs the services under libfaketime with this offset
    ///   (e.g. "+20m"), for evidence produced at another time than the test's.
    /// - Parameter port: 0 picks a free port; 8788 is the one the fixture certificates name in
    ///   their AIA (OCSP and caIssuers URLs).
    /// - Parameter pki: the PKI folder to serve (default `Fixtures/pki`; a copy when a test
    ///   issues certificates into its index).
    public init(clockOffset: String? = nil, port: Int = 0, pki: String? = nil) throws {
        var environment: [String: String]? = nil
        if let clockOffset {
            environment = ProcessInfo.processInfo.environment
            environment?["LD_PRELOAD"] = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
            environment?["FAKETIME"] = clockOffset
            environment?["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
        }
        (process, baseURL) = try TestEnvironment.startListeningServer(
            "test-services.py",
            ["--pki", pki ?? TestEnvironment.fixture("pki"), "--port", String(port), "--exit-with-parent"],
            environment: environment)
    }

    public func url(_ path: String) -> URL { baseURL.appendingPathComponent(path) }

    public var pid: Int32 { process.processIdentifier }

    /// Sends SIGTERM (the script exits 0 and removes its state) and waits for the exit by
    /// polling, which is safe from any thread (waitUntilExit spins a run loop).
    public func stop() { TestEnvironment.terminate(process) }

    deinit { stop() }
}
