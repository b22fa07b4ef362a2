import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

/// `tamga sign --with threshold` over a link that loses a segment (a lost answer once made it exit
/// 7 though the co-signer had signed), with the binaries: `cosigner serve` behind `LossyProxy`,
/// the device enrolled through it.
final class LostPacketCommandTests: XCTestCase {
    private var binary: String { TestEnvironment.productsDirectory.appendingPathComponent("tamga").path }

    func testSigningSucceedsWhenAFinishAnswerAProveAnswerOrEveryFinishIsLost() throws {
        let folder = try TestEnvironment.temporaryFolder("lost-packet-cli")
        defer { TestEnvironment.removeFolder(folder) }
        let fixture = try CoSignerFixture(folder: folder)
        defer { fixture.stop() }
        let (server, url) = try TestEnvironment.startListening(executable: binary, fixture.serveArguments)
        defer { TestEnvironment.terminate(server) }
        let proxy = try LossyProxy(upstreamPort: UInt16(try XCTUnwrap(url.port)))
        defer { proxy.stop() }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = folder.appendingPathComponent("xdg").path
        environment["TAMGA_PIN"] = "24680"
        let code = try TestEnvironment.run(binary, ["cosigner", "issue-code", "38001085718", "--db", fixture.database])
            .output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let enrolled = try TestEnvironment.run(
            binary,
            ["threshold", "enroll", "--server", proxy.url.absoluteString, "--code", code, "--account", "38001085718"],
            environment: environment)
        XCTAssertEqual(enrolled.status, 0, enrolled.error)
        // At LT (the test TSA and OCSP), so that `verify` judges the signature fully.
        let lt = [
            "--tsa", fixture.services.url("tsa").absoluteString, "--ocsp", fixture.services.url("ocsp").absoluteString,
            "--certs", TestEnvironment.pki("issuing-ca.cert.pem"),
        ]
        let container = folder.appendingPathComponent("lost.asice").path
        let document = try TestEnvironment.write("a lost answer\n", named: "doc.txt", in: folder)

        // The co-signer records the signature; its answer to finish never arrives. Before the
        // fix: exit 7 and no container, although the co-signer had the session COMPLETE.
        let before = proxy.log.count
        proxy.inject(.dropAnswer(), whenPathContains: "/sign/finish")
        let signed = try TestEnvironment.run(
            binary, ["sign", container, document, "--with", "threshold:38001085718"] + lt, environment: environment)
        XCTAssertEqual(signed.status, 0, signed.error)
        XCTAssertFalse(
            signed.error.contains("warning"), "delivered: the resend found the session COMPLETE: \(signed.error)")
        let finishes = proxy.log.dropFirst(before).filter { $0.path.hasSuffix("/sign/finish") }
        XCTAssertEqual(finishes.map(\.fault), ["dropAnswer", nil], "\(finishes)")
        XCTAssertEqual(finishes.map(\.serverStatus), [200, 409], "the resend met the COMPLETE session")
        let verified = try TestEnvironment.run(
            binary, ["verify", container, "--trust", TestEnvironment.pki("root.cert.pem")])
        XCTAssertEqual(verified.status, 0, verified.output + verified.error)

        // The co-signer's c3 never arrives: the session is abandoned (nothing was decrypted,
        // nothing locks) and tamga signs once more with a new session, without asking again.
        proxy.inject(.dropAnswer(), whenPathContains: "/sign/prove")
        let retried = folder.appendingPathComponent("retried.asice").path
        let again = try TestEnvironment.run(
            binary, ["sign", retried, document, "--with", "threshold:38001085718"] + lt, environment: environment)
        XCTAssertEqual(again.status, 0, again.error)
        XCTAssertTrue(again.error.contains("signing once more with a new session"), again.error)
        XCTAssertEqual(
            try TestEnvironment.run(binary, ["verify", retried, "--trust", TestEnvironment.pki("root.cert.pem")])
                .status, 0)

        // Every finish lost: the signature verified on this device is still used (its own
        // session), with a warning; nothing is locked (the co-signer's session expires).
        proxy.inject(.dropRequest, whenPathContains: "/sign/finish", times: 4)
        let second = folder.appendingPathComponent("undelivered.asice").path
        let undelivered = try TestEnvironment.run(
            binary, ["sign", second, document, "--with", "threshold:38001085718"] + lt, environment: environment)
        XCTAssertEqual(undelivered.status, 0, undelivered.error)
        XCTAssertTrue(
            undelivered.error.contains("warning: the co-signer did not confirm the signature"), undelivered.error)
        XCTAssertEqual(
            try TestEnvironment.run(binary, ["verify", second, "--trust", TestEnvironment.pki("root.cert.pem")]).status,
            0)
        let activity = try TestEnvironment.run(
            binary, ["threshold", "activity", "--account", "38001085718"], environment: environment)
        XCTAssertFalse(activity.output.contains("key-locked"), activity.output)
        XCTAssertEqual(
            activity.output.components(separatedBy: "session-signed").count - 1, 3,
            "the certificate's session, the first and the retried signature: \(activity.output)")
        XCTAssertTrue(activity.output.contains("session-abandoned"), activity.output)
    }
}
