import ASiC
import Foundation
import RemoteSigning
import TamgaCore
import TamgaTestSupport
import XCTest

/// Collects the verification codes a signer shows (the test compares them with the phone's).
final class ShownCodes: @unchecked Sendable {  // unchecked: `codes` behind `lock`
    private let lock = NSLock()
    private var codes: [String] = []
    var all: [String] { lock.withLock { codes } }
    func show(_ code: String) { lock.withLock { codes.append(code) } }
}

/// The Mobile-ID and Smart-ID signers against `scripts/remote-signing-sim.py` (TEST ONLY
/// simulators of both REST APIs, in Python, sharing no code with tamga) on loopback.
class RemoteSignerTestCase: XCTestCase {
    var simulator: Process!
    var base: URL!
    var folder: URL!

    override func setUpWithError() throws {
        (simulator, base) = try TestEnvironment.startListeningServer(
            "remote-signing-sim.py", ["--pki", TestEnvironment.fixture("pki"), "--exit-with-parent"])
        folder = try TestEnvironment.temporaryFolder("remote")
    }
    override func tearDown() {
        TestEnvironment.terminate(simulator)
        TestEnvironment.removeFolder(folder)
    }

    func configuration(
        _ path: String, name: String = "DEMO", uuid: String = "00000000-0000-0000-0000-000000000000"
    ) -> RemoteServiceConfiguration {
        var configuration = RemoteServiceConfiguration(
            url: base.appendingPathComponent(path), relyingPartyUUID: uuid, relyingPartyName: name)
        configuration.pollSeconds = 2
        configuration.overallTimeout = 6
        configuration.displayText = "Sign the lease"
        return configuration
    }

    /// The code the simulated phone shows for a session.
    func phoneCode(_ session: String?) async throws -> String {
        let data = try await HTTPTransport(timeout: 5).get(
            base.appendingPathComponent("_sim/code/\(try XCTUnwrap(session))"), service: "sim")
        return try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: String])?["code"])
    }

    func makeContainer() throws -> Container {
        let container = Container(creatingAt: folder.appendingPathComponent("remote.asice").path)
        try container.addDataFile(path: TestEnvironment.write("signed on a phone\n", named: "lease.txt", in: folder))
        try container.save()
        return try Container(openingAt: container.path)
    }

    /// Signs at LT with the loopback TSA/OCSP; checks tamga's verdict and pyasice's (its output
    /// is returned, with the container's path, for more checks).
    @discardableResult
    func signLTAndVerify(_ signer: any Signer, rawECDSA: Bool) async throws -> (path: String, pyasice: String) {
        let services = try TestServices()
        defer { services.stop() }
        let container = try makeContainer()
        let transport = HTTPTransport(timeout: 5)
        try await container.sign(
            with: signer, options: SignatureOptions(profile: .LT),
            services: LongTermServices(
                timeStamping: TimeStampClient(url: services.url("tsa"), transport: transport),
                ocsp: OCSPClient(transport: transport), ocspURL: services.url("ocsp"),
                issuerCandidates: [try TestEnvironment.certificate("issuing-ca")], transport: transport))
        let report = try Container(openingAt: container.path).validate(
            ValidationOptions(trust: TestEnvironment.testTrust(), minimumProfile: .LT))
        XCTAssertEqual(report.signatures.first?.status, .valid, "\(report)")
        let check = try TestEnvironment.run(
            TestEnvironment.pyasicePython,
            [TestEnvironment.script("pyasice-check.py"), "-v"] + (rawECDSA ? ["--require-raw-ecdsa"] : []) + [
                container.path
            ])
        XCTAssertEqual(check.status, 0, check.output + check.error)
        return (container.path, check.output + check.error)
    }

    /// `body` must throw exactly `expected`, and leave the container as it was.
    func assertFails(
        _ expected: RemoteSigningError, file: StaticString = #filePath, line: UInt = #line,
        _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            XCTFail("no error; expected \(expected)", file: file, line: line)
        } catch let error as RemoteSigningError {
            XCTAssertEqual(error, expected, file: file, line: line)
        } catch {
            XCTFail("\(error); expected \(expected)", file: file, line: line)
        }
    }
}

final class MobileIDSignerTests: RemoteSignerTestCase {
    func connect(
        _ phone: String, _ id: String, _ codes: ShownCodes, configuration: RemoteServiceConfiguration? = nil
    ) async throws -> MobileIDSigner {
        try await MobileIDSigner.connect(
            phoneNumber: phone, nationalIdentityNumber: id,
            configuration: configuration ?? self.configuration("mid-api"),
            showVerificationCode: { codes.show($0) })
    }

    func testECAndRSAPersonasSignLTContainersAndTheCodeIsThePhones() async throws {
        let codes = ShownCodes()
        let ec = try await connect("+37200000766", "30303039914", codes)
        XCTAssertEqual(ec.algorithm, .ecdsaP256SHA256)
        try await signLTAndVerify(ec, rawECDSA: true)
        let shown = codes.all
        XCTAssertEqual(shown.count, 1, "the code is shown once, before polling")
        let phone = try await phoneCode(ec.lastSessionID)
        XCTAssertEqual(shown.first, phone, "the code shown here is the one on the phone")
        let rsa = try await connect("+37200000767", "30303039914", codes)
        XCTAssertEqual(rsa.algorithm, .rsaPKCS1SHA256)
        try await signLTAndVerify(rsa, rawECDSA: false)
    }

    func testEveryEndResultIsAClearErrorAndTheContainerStaysAsItWas() async throws {
        let cases: [(String, String, RemoteSigningError)] = [
            ("+37201100266", "60001019950", .userRefused(service: "Mobile-ID", stage: "cancelled on the phone")),
            ("+37213100266", "60001019983", .phoneUnreachable),
            ("+37207110066", "60001019947", .deliveryFailed),
            ("+37201200266", "60001019972", .simError),
            ("+37200000666", "60001019961", .signatureHashMismatch),
            ("+37066000266", "50001018908", .timedOut(service: "Mobile-ID")),
            (
                "+37200009991", "60001019991",
                .malformedResponse(service: "Mobile-ID", detail: "the answer is not a JSON object")
            ),
            ("+37200009992", "60001019992", .timedOut(service: "Mobile-ID")),
            (
                "+37200009993", "60001019993",
                .signatureInvalid(
                    service: "Mobile-ID", detail: "it does not verify under the certificate for this hash")
            ),
            ("+37200009994", "60001019994", .timedOut(service: "Mobile-ID")),
        ]
        let container = try makeContainer()
        let before = try TestEnvironment.bytes(container.path)
        for (phone, id, expected) in cases {
            let signer = try await connect(phone, id, ShownCodes())
            await assertFails(expected) { _ = try await container.sign(with: signer, options: .baselineB) }
            XCTAssertEqual(try TestEnvironment.bytes(container.path), before, "\(phone): nothing written")
        }
        await assertFails(.notAClient(service: "Mobile-ID", who: "+37200000366 / 60001019928")) {
            _ = try await self.connect("+37200000366", "60001019928", ShownCodes())
        }
        await assertFails(
            .serviceRefused(
                service: "Mobile-ID", status: 401,
                meaning: "the relying party's name, UUID or address is not authorised")
        ) {
            _ = try await self.connect(
                "+37200000766", "30303039914", ShownCodes(),
                configuration: self.configuration("mid-api", name: "Somebody Else"))
        }
        // A certificate of somebody else than the person asked for is refused before anything is signed.
        await assertFails(
            .certificateMismatch(service: "Mobile-ID", detail: "its serialNumber is PNOEE-30303039914, not 60001019906")
        ) {
            _ = try await self.connect("+37200000766", "60001019906", ShownCodes())
        }
        // Plain HTTP only to this machine.
        var remote = configuration("mid-api")
        remote.url = URL(string: "http://mid.example/mid-api")!
        await assertFails(
            .notConfigured(service: "Mobile-ID", missing: "an https URL (plain http is allowed to this machine only)")
        ) {
            _ = try await self.connect("+37200000766", "30303039914", ShownCodes(), configuration: remote)
        }
    }

    /// A service (or proxy) that answers RUNNING at once is polled about once a second, not in a
    /// tight loop, and the wait ends at the overall timeout.
    func testAServiceThatAnswersRunningAtOnceIsNotHammered() async throws {
        var remote = configuration("mid-api")
        remote.overallTimeout = 3
        let signer = try await connect("+37200009995", "60001019995", ShownCodes(), configuration: remote)
        let started = Date()
        await assertFails(.timedOut(service: "Mobile-ID")) {
            _ = try await signer.sign(digest: Digest.compute(.sha256, over: Data("x".utf8)))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 6)
        let data = try await HTTPTransport(timeout: 5).get(
            base.appendingPathComponent("_sim/polls/\(try XCTUnwrap(signer.lastSessionID))"), service: "sim")
        let polls = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Int])?["polls"])
        XCTAssertLessThanOrEqual(polls, 5, "about one poll a second for 3 s")
        XCTAssertGreaterThanOrEqual(polls, 2)
    }

    func testTheDisplayTextFitsThePhone() {
        XCTAssertEqual(MobileIDSigner.displayText("Sign the lease").format, "GSM-7")
        XCTAssertEqual(MobileIDSigner.displayText(String(repeating: "a", count: 150)).text.count, 100)
        let russian = MobileIDSigner.displayText("Подписать договор аренды квартиры на Ülikooli улице в Тарту, 2026")
        XCTAssertEqual(russian.format, "UCS-2", "Cyrillic is not GSM-7: sent as UCS-2, not blanked")
        XCTAssertEqual(russian.text.count, 50)
        XCTAssertEqual(
            MobileIDSigner.displayText("Leping õpetajaga").format, "UCS-2", "õ is not in GSM-7 (ä, ö, ü are)")
        XCTAssertEqual(MobileIDSigner.displayText("Äri ja öö ümber").format, "GSM-7")
        XCTAssertEqual(MobileIDSigner.displayText("{[€]}|~^€").text, "{[€]}", "at most five extension characters")
        XCTAssertEqual(MobileIDSigner.displayText("two\u{7}bells\u{1B}").text, "twobells", "control characters dropped")
    }
}

final class SmartIDSignerTests: RemoteSignerTestCase {
    static func meaning(_ status: Int) -> String {
        [
            471: "no suitable account of the requested level (the person has others)",
            472: "the person should open the Smart-ID app or portal first",
            480: "this client is too old for the service",
            403: "the relying party may not do this (certificate level or capability)",
        ][status]!
    }

    func v2Configuration() -> RemoteServiceConfiguration {
        var configuration = configuration("smart-id-rp/v2")
        configuration.smartIDAPI = .v2
        return configuration
    }

    func connect(_ identity: String, _ codes: ShownCodes, country: String = "EE") async throws -> SmartIDSigner {
        try await SmartIDSigner.connect(
            country: country, identityCode: identity, configuration: v2Configuration(),
            showVerificationCode: { codes.show($0) })
    }

    func testTheCertificateChoiceThenAnLTSignatureWithThePhonesCode() async throws {
        let codes = ShownCodes()
        let signer = try await connect("30303039914", codes)
        XCTAssertEqual(signer.apiVersion, .v2)
        XCTAssertEqual(signer.documentNumber, "PNOEE-30303039914-MOCK-Q")
        XCTAssertEqual(signer.algorithm, .rsaPKCS1SHA256)
        try await signLTAndVerify(signer, rawECDSA: false)
        let phone = try await phoneCode(signer.lastSessionID)
        XCTAssertEqual(codes.all, [phone])
    }

    /// The simulator (as the service) answers an identical request within 15 s with the session
    /// it already started; the nonce makes a second certificate choice a new one.
    func testASecondCertificateChoiceWithin15SecondsIsANewSession() async throws {
        let first = try await connect("30303039914", ShownCodes())
        let second = try await connect("30303039914", ShownCodes())
        XCTAssertNotNil(first.lastSessionID)
        XCTAssertNotEqual(first.lastSessionID, second.lastSessionID)
    }

    func testEveryEndResultIsAClearErrorAndTheContainerStaysAsItWas() async throws {
        let cases: [(String, RemoteSigningError)] = [
            ("30403039928", .userRefused(service: "Smart-ID", stage: "at the PIN prompt")),
            ("30403039939", .userRefused(service: "Smart-ID", stage: "at the verification code choice")),
            ("30403039946", .userRefused(service: "Smart-ID", stage: "at the confirmation message")),
            ("30403039950", .userRefused(service: "Smart-ID", stage: "at the confirmation with code choice")),
            ("30403039972", .wrongVerificationCode),
            ("30403039994", .malformedResponse(service: "Smart-ID", detail: "the answer is not a JSON object")),
            (
                "30403039995",
                .serviceRefused(
                    service: "Smart-ID", status: 580, meaning: "the service is under maintenance; try again later")
            ),
            ("30403039996", .timedOut(service: "Smart-ID")),
            (
                "30403039997",
                .signatureInvalid(service: "Smart-ID", detail: "it does not verify under the certificate for this hash")
            ),
        ]
        let container = try makeContainer()
        let before = try TestEnvironment.bytes(container.path)
        for (identity, expected) in cases {
            let signer = try await connect(identity, ShownCodes())
            await assertFails(expected) { _ = try await container.sign(with: signer, options: .baselineB) }
            XCTAssertEqual(try TestEnvironment.bytes(container.path), before, "\(identity): nothing written")
        }
        // Refusals and timeouts already at the certificate choice; an unknown person.
        await assertFails(.userRefused(service: "Smart-ID", stage: "")) {
            _ = try await self.connect("30403039917", ShownCodes())
        }
        await assertFails(.timedOut(service: "Smart-ID")) { _ = try await self.connect("30403039983", ShownCodes()) }
        await assertFails(.notAClient(service: "Smart-ID", who: "PNOEE-39912319997")) {
            _ = try await self.connect("39912319997", ShownCodes())
        }
        // The documented HTTP statuses of the certificate choice, each with its meaning.
        for (identity, status) in [
            ("30403039990", 471), ("30403039991", 472), ("30403039992", 480), ("30403039993", 403),
        ] {
            await assertFails(
                .serviceRefused(service: "Smart-ID", status: status, meaning: SmartIDSignerTests.meaning(status))
            ) {
                _ = try await self.connect(identity, ShownCodes())
            }
        }
        // An ADVANCED certificate when QUALIFIED was asked for; a certificate of another country's person.
        await assertFails(
            .certificateMismatch(service: "Smart-ID", detail: "certificate level ADVANCED, QUALIFIED was asked for")
        ) {
            _ = try await self.connect("30403039998", ShownCodes())
        }
        await assertFails(
            .certificateMismatch(
                service: "Smart-ID", detail: "its serialNumber is PNOEE-30303039914, not PNOLT-30303039914")
        ) {
            _ = try await self.connect("30303039914", ShownCodes(), country: "LT")
        }
    }
}
