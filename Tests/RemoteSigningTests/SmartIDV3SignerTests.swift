import ASiC
import Foundation
import RemoteSigning
import TamgaCore
import TamgaTestSupport
import XCTest

/// The Smart-ID signer on RP API v3 against the simulator's v3 surface (scripts/remote-signing-sim.py,
/// written from SK's OpenAPI description and the documentation's examples), with SK's demo relying
/// party and demo accounts.
final class SmartIDV3SignerTests: RemoteSignerTestCase {
    static let demoUUID = "00000000-0000-4000-8000-000000000000"

    func v3Configuration(
        name: String = "DEMO", uuid: String = SmartIDV3SignerTests.demoUUID, text: String = "Sign the lease"
    ) -> RemoteServiceConfiguration {
        var configuration = configuration("smart-id-rp/v3", name: name, uuid: uuid)
        configuration.displayText = text
        return configuration
    }

    func connect(
        _ identity: String, _ codes: ShownCodes = ShownCodes(), configuration: RemoteServiceConfiguration? = nil
    ) async throws -> SmartIDSigner {
        try await SmartIDSigner.connect(
            country: "EE", identityCode: identity, configuration: configuration ?? v3Configuration(),
            showVerificationCode: { codes.show($0) })
    }

    /// SK's demo OK account, an RSA-6144 key: the certificate choice, then an LT signature with
    /// RSASSA-PSS that tamga, pyasice (with `cryptography`'s PSS) and libxmlsec1 1.3 accept; the
    /// code shown is the one the service sent (and the phone shows), not one computed here.
    func testTheDemoAccountSignsAnLTContainerWithRSAPSSOnAnRSA6144Key() async throws {
        let codes = ShownCodes()
        let signer = try await connect("40504040001", codes)
        XCTAssertEqual(signer.apiVersion, .v3)
        XCTAssertEqual(signer.documentNumber, "PNOEE-40504040001-DEM0-Q")
        XCTAssertEqual(signer.algorithm, .rsaPSS(.sha256))
        guard case .rsa(let bits) = try await signer.certificate().publicKey.type else { return XCTFail("not RSA") }
        XCTAssertEqual(bits, 6144)

        let (path, pyasice) = try await signLTAndVerify(signer, rawECDSA: false)
        XCTAssertTrue(pyasice.contains("RSA-PSS"), "pyasice's canonical form, cryptography's PSS: " + pyasice)
        let unzipped = try TestEnvironment.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read('META-INF/signatures0.xml').decode())",
                path,
            ])
        XCTAssertTrue(
            unzipped.output.contains("Algorithm=\"http://www.w3.org/2007/05/xmldsig-more#sha256-rsa-MGF1\""),
            "the PSS URI")
        let xmlsec = try TestEnvironment.run(
            TestEnvironment.xmlsec13Python, [TestEnvironment.script("xmlsec13-check.py"), path])
        XCTAssertEqual(xmlsec.status, 0, xmlsec.output + xmlsec.error)
        XCTAssertTrue(
            xmlsec.output.contains("ok (http://www.w3.org/2007/05/xmldsig-more#sha256-rsa-MGF1)"), xmlsec.output)

        let phone = try await phoneCode(signer.lastSessionID)
        XCTAssertEqual(codes.all, [phone], "the service's code, shown once")
    }

    func testEveryEndResultIsAClearErrorAndTheContainerStaysAsItWas() async throws {
        let cases: [(String, RemoteSigningError)] = [
            ("30403039928", .userRefused(service: "Smart-ID", stage: "at the PIN prompt")),
            ("30403039939", .userRefused(service: "Smart-ID", stage: "at the verification code choice")),
            ("30403039946", .userRefused(service: "Smart-ID", stage: "at the confirmation message")),
            ("30403039950", .userRefused(service: "Smart-ID", stage: "at the confirmation with code choice")),
            ("30403039972", .wrongVerificationCode),
            ("30403039801", .protocolFailure(service: "Smart-ID", detail: "the app reported a protocol failure")),
            ("30403039802", .protocolFailure(service: "Smart-ID", detail: "the app expected a linked signing session")),
            ("30403039803", .serviceError(service: "Smart-ID")),
            ("30403039806", .interactionNotSupported),
            ("30403039994", .malformedResponse(service: "Smart-ID", detail: "the answer is not a JSON object")),
            (
                "30403039995",
                .serviceRefused(
                    service: "Smart-ID", status: 580, meaning: "the service is under maintenance; try again later")
            ),
            ("30403039996", .timedOut(service: "Smart-ID")),
            ("30403039808", .userRefused(service: "Smart-ID", stage: "")),
            ("30403039809", .timedOut(service: "Smart-ID")),
            ("30403039810", .unexpectedResult(service: "Smart-ID", result: "SOMETHING_NEW")),
            (
                "30403039824",
                .serviceRefused(
                    service: "Smart-ID", status: 400,
                    meaning:
                        "a parameter is missing or invalid; the service says: Bad Request: Invalid request parameters found; parameters: interactions"
                )
            ),
            (
                "30403039825",
                .serviceRefused(
                    service: "Smart-ID", status: 404,
                    meaning:
                        "no such account, or the session is unknown or expired; the service says: Not Found: Session not found"
                )
            ),
        ]
        let container = try makeContainer()
        let before = try TestEnvironment.bytes(container.path)
        for (identity, expected) in cases {
            let signer = try await connect(identity)
            await assertFails(expected) { _ = try await container.sign(with: signer, options: .baselineB) }
            XCTAssertEqual(try TestEnvironment.bytes(container.path), before, "\(identity): nothing written")
        }
        // At the certificate choice already.
        let atChoice: [(String, RemoteSigningError)] = [
            ("30403039917", .userRefused(service: "Smart-ID", stage: "")),
            ("30403039983", .timedOut(service: "Smart-ID")),
            ("30403039807", .userRefused(service: "Smart-ID", stage: "at the certificate choice")),
            ("30403039804", .documentUnusable),
            ("30403039805", .documentUnusable),
            ("39912319997", .notAClient(service: "Smart-ID", who: "PNOEE-39912319997")),
            (
                "30403039998",
                .certificateMismatch(service: "Smart-ID", detail: "certificate level ADVANCED, QUALIFIED was asked for")
            ),
            // v3.2: v2's 471 is a 404 whose problem body says NO_SUITABLE_ACCOUNT_FOUND.
            (
                "30403039990",
                .serviceRefused(
                    service: "Smart-ID", status: 404,
                    meaning:
                        "no suitable account of the requested level (the person has others); the service says: Not Found: No suitable account of requested type found, but user has some other accounts (NO_SUITABLE_ACCOUNT_FOUND)"
                )
            ),
            (
                "30403039992",
                .serviceRefused(service: "Smart-ID", status: 480, meaning: "this client is too old for the service")
            ),
            (
                "30403039993",
                .serviceRefused(
                    service: "Smart-ID", status: 403,
                    meaning: "the relying party may not do this (certificate level or capability)")
            ),
        ]
        for (identity, expected) in atChoice {
            await assertFails(expected) { _ = try await self.connect(identity) }
        }
        await assertFails(
            .serviceRefused(
                service: "Smart-ID", status: 401, meaning: "the relying party is not authenticated (UUID or address)")
        ) {
            _ = try await self.connect(
                "40504040001", configuration: self.v3Configuration(uuid: "00000000-0000-0000-0000-000000000000"))
        }
    }

    /// Replies a client must not use, each refused with what is wrong, before or after the
    /// value is checked; nothing is written.
    func testRepliesWithOtherParametersOrValuesAreRefused() async throws {
        let cases: [(String, String)] = [
            ("30403039811", "salt length 20, 32 (the hash's length) is required"),
            ("30403039812", "mask generation \"id-mgf1\" with \"SHA-512\", MGF1 with SHA-256 is required"),
            ("30403039813", "trailer field \"0x01\", 0xbc is required"),
            ("30403039814", "it does not verify under the certificate for this hash (RSASSA-PSS)"),
            ("30403039815", "it does not verify under the certificate for this hash (RSASSA-PSS)"),
            ("30403039816", "interaction \"verificationCodeChoice\", which was not offered"),
            ("30403039817", "flow type \"QR\", a notification was started"),
            ("30403039818", "signature protocol \"ACSP_V2\", RAW_DIGEST_SIGNATURE was asked for"),
            ("30403039819", "signed with another certificate than the one chosen"),
            ("30403039821", "hash \"SHA-512\", SHA-256 was asked for"),
            ("30403039822", "algorithm \"sha256WithRSAEncryption\", rsassa-pss was asked for"),
            ("30403039823", "interaction none, which was not offered"),
        ]
        let container = try makeContainer()
        let before = try TestEnvironment.bytes(container.path)
        for (identity, detail) in cases {
            let signer = try await connect(identity)
            await assertFails(.signatureInvalid(service: "Smart-ID", detail: detail)) {
                _ = try await container.sign(with: signer, options: .baselineB)
            }
            XCTAssertEqual(try TestEnvironment.bytes(container.path), before, "\(identity): nothing written")
        }
        let codes = ShownCodes()
        let badCode = try await connect("30403039820", codes)
        await assertFails(
            .malformedResponse(service: "Smart-ID", detail: "no four-digit verification code (vc) with the session")
        ) {
            _ = try await container.sign(with: badCode, options: .baselineB)
        }
        XCTAssertEqual(codes.all, [], "a malformed code is never shown")
    }

    /// The service gives the old session back for an identical request within 15 s: without a
    /// nonce, a certificate choice retried after a timeout would time out again with no push.
    func testACertificateChoiceRetriedWithin15SecondsAsksThePhoneAgain() async throws {
        let started = Date()
        await assertFails(.timedOut(service: "Smart-ID")) { _ = try await self.connect("30403039830") }
        let retried = try await connect("30403039830")
        XCTAssertEqual(retried.documentNumber, "PNOEE-30403039830-MOCK-Q")
        // The same digest signed twice: two sessions, two codes from the service, not one.
        let digest = Digest.compute(.sha256, over: Data("the same document".utf8))
        _ = try await retried.sign(digest: digest)
        let first = retried.lastSessionID
        _ = try await retried.sign(digest: digest)
        XCTAssertNotNil(first)
        XCTAssertNotEqual(first, retried.lastSessionID, "a signature request repeated within 15 s is a new session")
        XCTAssertLessThan(Date().timeIntervalSince(started), 15, "every retry fell inside the service's 15 s window")
    }

    /// What the service would refuse, refused here before anything is sent; the text fitted to
    /// the limits as the service counts them (UTF-16 code units).
    func testTheRelyingPartyAndTheTextsAreCheckedAsTheServiceChecksThem() async throws {
        await assertFails(
            .badConfiguration(
                service: "Smart-ID", detail: "the relying party name is 33 bytes of UTF-8; the service takes 1 to 32")
        ) {
            _ = try await self.connect(
                "40504040001", configuration: self.v3Configuration(name: String(repeating: "Ä", count: 16) + "x"))
        }
        await assertFails(
            .badConfiguration(
                service: "Smart-ID",
                detail:
                    "the relying party UUID \"00000000-0000-4000-8000-00000000000\" is not of the form 00000000-0000-4000-8000-000000000000"
            )
        ) {
            _ = try await self.connect(
                "40504040001", configuration: self.v3Configuration(uuid: "00000000-0000-4000-8000-00000000000"))
        }
        var v2URL = v3Configuration()
        v2URL.url = URL(string: "https://sid.demo.sk.ee/smart-id-rp/v2")!
        await assertFails(
            .badConfiguration(
                service: "Smart-ID",
                detail:
                    "the URL \"https://sid.demo.sk.ee/smart-id-rp/v2\" is the v2 API but v3 is asked for (tamga speaks v3 unless --smart-id-api v2 or \"apiVersion\": \"v2\" says otherwise)"
            )
        ) {
            _ = try await self.connect("40504040001", configuration: v2URL)
        }
        var unversioned = v3Configuration()
        unversioned.url = URL(string: "https://sid.demo.sk.ee/smart-id-rp")!
        await assertFails(
            .badConfiguration(
                service: "Smart-ID",
                detail:
                    "the URL \"https://sid.demo.sk.ee/smart-id-rp\" is not an API version (it should end in /v3) but v3 is asked for (tamga speaks v3 unless --smart-id-api v2 or \"apiVersion\": \"v2\" says otherwise)"
            )
        ) {
            _ = try await self.connect("40504040001", configuration: unversioned)
        }
        await assertFails(
            .badConfiguration(
                service: "Smart-ID",
                detail: "the display text is empty or its first character is over 60 UTF-16 units (--display-text)")
        ) {
            _ = try await self.connect("40504040001", configuration: self.v3Configuration(text: ""))
        }
        // 30 mathematical letters (2 UTF-16 units each) and 150 more: 60 + 150 units. The simulator
        // refuses a displayText60 over 60 units and a displayText200 over 200, as Java counts.
        let long = String(repeating: "𝔸", count: 30) + String(repeating: "b", count: 150)
        let signer = try await connect("40504040001", configuration: v3Configuration(text: long))
        _ = try await signer.sign(digest: Digest.compute(.sha256, over: Data("x".utf8)))
    }
}
