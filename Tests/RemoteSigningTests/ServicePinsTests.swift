import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import RemoteSigning

/// The default TLS pins and the text limits, as SK documents them.
final class ServicePinsTests: XCTestCase {
    /// The shipped root is byte for byte Debian's copy of DigiCert Global Root G2 (the root SK
    /// names for the Smart-ID hosts' chain), and only the Smart-ID hosts get it.
    func testTheSmartIDHostsArePinnedToDigiCertGlobalRootG2() throws {
        let debian = try Certificate(
            derOrPEM: Data(
                contentsOf: URL(fileURLWithPath: "/usr/share/ca-certificates/mozilla/DigiCert_Global_Root_G2.crt")))
        for host in ["rp-api.smart-id.com", "sid.demo.sk.ee", "RP-API.Smart-ID.com"] {
            let anchors = try ServicePins.anchors(forHost: host)
            XCTAssertEqual(anchors.map(\.der), [debian.der], host)
        }
        let root = try XCTUnwrap(ServicePins.anchors(forHost: "sid.demo.sk.ee").first)
        XCTAssertEqual(
            Digest.compute(.sha256, over: root.der).bytes.map { String(format: "%02X", $0) }.joined(),
            "CB3CCBB76031E5E0138F8DD39A23F9DE47FFC35E43C1144CEA27D46A5AB1CB5F")
        XCTAssertTrue(root.subject.contains("CN=DigiCert Global Root G2"), root.subject)
        for host in ["mid.sk.ee", "tsp.demo.sk.ee", "127.0.0.1", "smart-id.com", "evil-rp-api.smart-id.com"] {
            XCTAssertEqual(try ServicePins.anchors(forHost: host).count, 0, "\(host) keeps the system's trust")
        }
    }

    /// The pin lookup sees the host in its canonical form, as the connection and its name check
    /// do: `rp-api.smart-id.com.` (the absolute form, which once skipped the pin) and upper case
    /// are the pinned host, not a host of the system's trust; a host with no canonical form is
    /// refused, never let through to the system's trust.
    func testTheSmartIDPinHoldsForTheRootDotAndUpperCase() throws {
        let debian = try Certificate(
            derOrPEM: Data(
                contentsOf: URL(fileURLWithPath: "/usr/share/ca-certificates/mozilla/DigiCert_Global_Root_G2.crt")))
        for host in ["rp-api.smart-id.com.", "RP-API.SMART-ID.COM.", "Sid.Demo.Sk.Ee."] {
            XCTAssertEqual(try ServicePins.anchors(forHost: host).map(\.der), [debian.der], host)
        }
        for written in [
            "https://rp-api.smart-id.com./v3", "https://RP-API.smart-id.com./v3", "https://rp-api.smart-id.com%2E/v3",
            "https://rp-api.smart-id.com.:443/v3",
        ] {
            let configuration = RemoteServiceConfiguration(
                url: try XCTUnwrap(URL(string: written)), relyingPartyUUID: "00000000-0000-4000-8000-000000000000",
                relyingPartyName: "DEMO")
            XCTAssertNoThrow(try configuration.checkScheme(service: "Smart-ID"), written)
            XCTAssertEqual(
                try configuration.transport().trustedCertificates.map(\.der), [debian.der],
                "\(written) keeps the Smart-ID pin")
        }
        for written in [
            "https://rp-api.smart-id.com../v3", "https://rp-api..smart-id.com/v3",
            "https://rp-api.smart-id.com%E3%80%82/v3",
        ] {
            let configuration = RemoteServiceConfiguration(
                url: try XCTUnwrap(URL(string: written)), relyingPartyUUID: "00000000-0000-4000-8000-000000000000",
                relyingPartyName: "DEMO")
            XCTAssertThrowsError(try configuration.checkScheme(service: "Smart-ID"), written) { error in
                XCTAssertEqual((error as? RemoteSigningError)?.code, "remote-bad-configuration", written)
            }
            XCTAssertThrowsError(try configuration.transport(), "\(written): no fall-back to the system's trust")
        }
        // Plain http to this machine is compared in the same form.
        let local = RemoteServiceConfiguration(
            url: try XCTUnwrap(URL(string: "http://LOCALHOST.:8080/v3")), relyingPartyUUID: "x", relyingPartyName: "y")
        XCTAssertNoThrow(try local.checkScheme(service: "Smart-ID"))
    }

    /// The configuration's trust: --service-cert replaces the pins (and the leaf pins); otherwise
    /// the host's pins with the leaf pins on top.
    func testTheTransportTrustsWhatTheConfigurationSays() throws {
        let leaf = try Certificate(
            derOrPEM: Data(contentsOf: URL(fileURLWithPath: TestEnvironment.fixture("pki/rsa-2048.cert.pem"))))
        var configuration = RemoteServiceConfiguration(
            url: URL(string: "https://rp-api.smart-id.com/v3")!,
            relyingPartyUUID: "00000000-0000-4000-8000-000000000000", relyingPartyName: "DEMO")
        configuration.pinnedLeafCertificates = [leaf]
        var transport = try configuration.transport()
        XCTAssertEqual(transport.trustedCertificates.count, 1)
        XCTAssertEqual(transport.pinnedLeafCertificates, [Array(Digest.compute(.sha256, over: leaf.der).bytes)])
        configuration.trustedCertificates = [leaf]
        transport = try configuration.transport()
        XCTAssertEqual(transport.trustedCertificates.map(\.der), [leaf.der])
        XCTAssertEqual(transport.pinnedLeafCertificates, [], "--service-cert is the whole statement of trust")
        configuration = RemoteServiceConfiguration(
            url: URL(string: "https://mid.sk.ee/mid-api")!, relyingPartyUUID: "x", relyingPartyName: "y")
        XCTAssertEqual(try configuration.transport().trustedCertificates.count, 0, "Mobile-ID: the system's trust")
    }

    /// Cut at whole characters to a number of UTF-16 code units, as Java's String.length() counts.
    func testTextsAreFittedInUTF16CodeUnitsAtWholeCharacters() {
        XCTAssertEqual(TextLimits.fitted("Sign the lease", utf16Units: 60), "Sign the lease")
        XCTAssertEqual(TextLimits.fitted(String(repeating: "a", count: 61), utf16Units: 60).count, 60)
        let astral = String(repeating: "𝔸", count: 31)  // 62 units
        XCTAssertEqual(TextLimits.fitted(astral, utf16Units: 60), String(repeating: "𝔸", count: 30))
        XCTAssertEqual(TextLimits.fitted("a" + astral, utf16Units: 60).utf16.count, 59, "never half a surrogate pair")
        let combining = String(repeating: "e\u{301}", count: 31)  // 31 characters, 62 units
        XCTAssertEqual(TextLimits.fitted(combining, utf16Units: 60).unicodeScalars.count, 60)
        XCTAssertEqual(TextLimits.fitted("👩‍👩‍👧‍👦x", utf16Units: 10), "", "a family emoji is 11 units: not cut inside")
        XCTAssertEqual(TextLimits.quoted("a\u{1B}[31mb\u{9B}c\nd"), "\"a?[31mb?c?d\"")
        // What the signer sends: each interaction's text at its own limit.
        let interactions = SmartIDSigner.interactions(
            String(repeating: "𝔸", count: 30) + String(repeating: "b", count: 150))
        XCTAssertEqual(
            interactions.map { $0["type"] }, ["confirmationMessageAndVerificationCodeChoice", "displayTextAndPIN"])
        XCTAssertEqual(interactions[0]["displayText200"]?.utf16.count, 200)
        XCTAssertEqual(interactions[1]["displayText60"], String(repeating: "𝔸", count: 30))
    }

    /// RFC 9457 bodies: kept bounded, without control characters; other bodies are not problems.
    func testProblemBodiesAreReadBoundedAndClean() throws {
        let problem = try XCTUnwrap(
            ProblemDetails(
                Data(
                    #"{"type":"about:blank","title":"Not Found","status":404,"detail":"No\u001b[2J account\u009b","errors":[{"code":"NO_SUITABLE_ACCOUNT_FOUND"}]}"#
                        .utf8)))
        XCTAssertEqual(problem.said, "; the service says: Not Found: No[2J account (NO_SUITABLE_ACCOUNT_FOUND)")
        XCTAssertNil(ProblemDetails(Data(#"{"error":"relying party not authorised"}"#.utf8)))
        XCTAssertNil(ProblemDetails(Data("not json".utf8)))
        let long = try XCTUnwrap(ProblemDetails(Data("{\"title\":\"\(String(repeating: "x", count: 5000))\"}".utf8)))
        XCTAssertEqual(long.title.count, 160)
    }
}
