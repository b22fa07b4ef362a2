import ASiC
import Foundation
import PCSC
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import IDCard

/// Signing ASiC-E containers with the virtual ID cards through the real pcscd.
final class IDCardSigningTests: IDCardTestCase {
    private func signLT(card: String, pin: String) async throws {
        try startRig([("Card Reader", [card, nil])])
        let services = try TestServices()
        defer { services.stop() }
        let pins = ScriptedPINs(pin)
        let signer = try IDCardSigner(pinProvider: pins)
        XCTAssertEqual(
            signer.algorithm, .ecdsa(try XCTUnwrap(signer.algorithm.curve), .sha256),
            "SHA-256, as the DigiDoc clients sign")
        let container = try makeContainer()
        let transport = HTTPTransport(timeout: 5)
        try await container.sign(
            with: signer, options: SignatureOptions(profile: .LT),
            services: LongTermServices(
                timeStamping: TimeStampClient(url: services.url("tsa"), transport: transport),
                ocsp: OCSPClient(transport: transport), ocspURL: services.url("ocsp"),
                issuerCandidates: [try TestEnvironment.certificate("issuing-ca")], transport: transport))
        XCTAssertEqual(pins.asked.count, 1, "one PIN2 per signature")
        XCTAssertEqual(pins.asked.first?.kind, .pin2)
        XCTAssertEqual(pins.asked.first?.triesLeft, card.hasPrefix("fineid") ? 5 : 3, "tries left shown before asking")
        let report = try validate(container.path, minimum: .LT)
        XCTAssertEqual(report.signatures.first?.status, .valid, "\(report)")
        XCTAssertEqual(report.signatures.first?.profile, "LT")
        // Independent check: pyasice (with the raw r‖s ECDSA form) verifies the signature.
        let check = try TestEnvironment.run(
            TestEnvironment.pyasicePython,
            [TestEnvironment.script("pyasice-check.py"), "--require-raw-ecdsa", container.path])
        XCTAssertEqual(check.status, 0, check.output + check.error)
    }

    /// A person typing the PIN for half a second: that time is the unlock phase, not the signature's.
    func testPINEntryIsTimedAsTheUnlockPhase() async throws {
        try startRig([("Card Reader", ["idemia", nil])])
        struct SlowTypist: PINProvider {
            func pin(for request: PINRequest) async throws -> SecretBytes {
                try await Task.sleep(nanoseconds: 500_000_000)
                return SecretBytes(Array("12345".utf8))
            }
        }
        let signer = try IDCardSigner(pinProvider: SlowTypist())
        let container = try makeContainer()
        try await container.sign(with: signer, options: .baselineB)
        let phases = try XCTUnwrap(container.lastSigningPhases)
        XCTAssertGreaterThanOrEqual(phases.unlock, 0.5, "\(phases)")
        XCTAssertLessThan(phases.sign, phases.unlock, "\(phases)")
        XCTAssertGreaterThan(phases.sign, 0, "the card's VERIFY and PSO:CDS")
    }

    func testIDEMIACardSignsAnLTContainer() async throws { try await signLT(card: "idemia", pin: "12345") }
    func testThalesCardSignsAnLTContainer() async throws { try await signLT(card: "thales", pin: "12345") }
    func testFinEIDCardSignsAnLTContainer() async throws { try await signLT(card: "fineid", pin: "123456") }
    func testIDEMIACardOverT0SignsAnLTContainer() async throws { try await signLT(card: "idemia+t0", pin: "12345") }

    func testWrongPINTwiceThenBlockedThenUnblockedWithPUK() async throws {
        try startRig([("Card Reader", ["idemia", nil])])
        let container = try makeContainer()
        let original = try TestEnvironment.bytes(container.path)
        let pins = ScriptedPINs("54321", "54321", "54321")
        let signer = try IDCardSigner(pinProvider: pins)
        await assertCardError(.wrongPIN(.pin2, triesLeft: 2)) {
            try await container.sign(with: signer, options: .baselineB)
        }
        await assertCardError(.wrongPIN(.pin2, triesLeft: 1)) {
            try await container.sign(with: signer, options: .baselineB)
        }
        XCTAssertEqual(pins.asked.map(\.triesLeft), [3, 2], "each prompt is told the tries left")
        XCTAssertEqual(
            try TestEnvironment.bytes(container.path), original, "a failed signature leaves the container as it was")
        await assertCardError(.pinBlocked(.pin2)) { try await container.sign(with: signer, options: .baselineB) }
        // Blocked: the card says so before any PIN is asked for.
        await assertCardError(.pinBlocked(.pin2)) { try await container.sign(with: signer, options: .baselineB) }
        XCTAssertEqual(pins.asked.count, 3, "no PIN is asked for once the card reports PIN2 blocked")
        XCTAssertEqual(try IDCardPINs.retryCounter(.pin2), RetryCounter(triesLeft: 0, maximumTries: 3, isActive: true))
        XCTAssertEqual(try TestEnvironment.bytes(container.path), original)

        // A wrong PUK counts against the PUK, then the right one unblocks with a new PIN2.
        XCTAssertThrowsError(
            try IDCardPINs.unblock(
                .pin2, puk: SecretBytes(Array("11111111".utf8)), new: SecretBytes(Array("24680".utf8)))
        ) {
            XCTAssertEqual($0 as? CardError, .wrongPIN(.puk, triesLeft: 2))
        }
        try IDCardPINs.unblock(.pin2, puk: SecretBytes(Array("17258403".utf8)), new: SecretBytes(Array("24680".utf8)))
        XCTAssertEqual(try IDCardPINs.retryCounter(.pin2).triesLeft, 3)
        XCTAssertEqual(try IDCardPINs.retryCounter(.puk).triesLeft, 3, "a correct PUK resets its own counter")
        try await container.sign(with: IDCardSigner(pinProvider: ScriptedPINs("24680")), options: .baselineB)
        XCTAssertEqual(try validate(container.path).signatures.first?.status, .valid)
    }

    func testAPINOfTheWrongLengthIsRefusedBeforeTheCardSeesIt() async throws {
        try startRig([("Card Reader", ["idemia", nil])])
        let container = try makeContainer()
        await assertCardError(.pinLength(.pin2, allowed: 5...12)) {
            try await container.sign(with: IDCardSigner(pinProvider: ScriptedPINs("1234")), options: .baselineB)
        }
        await assertCardError(.pinLength(.pin2, allowed: 5...12)) {
            try await container.sign(with: IDCardSigner(pinProvider: ScriptedPINs("12a45")), options: .baselineB)
        }
        XCTAssertEqual(try IDCardPINs.retryCounter(.pin2).triesLeft, 3, "nothing reached the card, no try was used")
    }

    func testThalesPIN2StillAtItsIssuanceValueMustBeChangedFirst() async throws {
        try startRig([("Card Reader", ["thales+pin2-inactive", nil])])
        let container = try makeContainer()
        let pins = ScriptedPINs("12345")
        await assertCardError(.pinNotActivated(.pin2)) {
            try await container.sign(with: IDCardSigner(pinProvider: pins), options: .baselineB)
        }
        XCTAssertTrue(pins.asked.isEmpty, "no PIN is asked for a PIN2 the card will refuse")
        try IDCardPINs.change(.pin2, current: SecretBytes(Array("12345".utf8)), new: SecretBytes(Array("97531".utf8)))
        XCTAssertEqual(try IDCardPINs.retryCounter(.pin2).isActive, true)
        try await container.sign(with: IDCardSigner(pinProvider: ScriptedPINs("97531")), options: .baselineB)
        XCTAssertEqual(try validate(container.path).signatures.first?.status, .valid)
    }

    func testAnEmptyReaderNextToOneWithACardIsSkipped() async throws {
        try startRig([("Empty Reader", [nil, nil]), ("Card Reader", ["thales", nil])])
        let signer = try IDCardSigner(pinProvider: ScriptedPINs())
        XCTAssertEqual(signer.readerName, "Card Reader 00 00")
        XCTAssertEqual(signer.cardName, "EstEID Thales")
    }

    func testSeveralCardsNeedAReaderName() async throws {
        try startRig([("First Reader", ["idemia", nil]), ("Second Reader", ["fineid", "rutoken-ecp"])])
        XCTAssertThrowsError(try IDCardSigner(pinProvider: ScriptedPINs())) {
            XCTAssertEqual($0 as? CardError, .severalCards(readers: ["First Reader 00 00", "Second Reader 00 00"]))
        }
        let chosen = try IDCardSigner(reader: "Second Reader 00 00", pinProvider: ScriptedPINs())
        XCTAssertEqual(chosen.cardName, "FinEID")
        XCTAssertThrowsError(try IDCardSigner(reader: "Second Reader 00 01", pinProvider: ScriptedPINs())) {
            XCTAssertEqual(
                $0 as? CardError, .unsupportedCard(reader: "Second Reader 00 01", atr: "3B8B015275746F6B656E20445320C1")
            )
        }
        XCTAssertThrowsError(try IDCardSigner(reader: "No Such Reader", pinProvider: ScriptedPINs())) {
            XCTAssertEqual($0 as? CardError, .readerNotFound("No Such Reader"))
        }
    }

    func testNoCardAndUnsupportedCardsAreReportedAsSuch() throws {
        try startRig([("Token Reader", ["rutoken-ecp", nil]), ("Empty Reader", [nil, nil])])
        XCTAssertThrowsError(try IDCardSigner(pinProvider: ScriptedPINs())) {
            XCTAssertEqual($0 as? CardError, .noSupportedCard(found: ["Token Reader 00 00: Rutoken ECP"]))
        }
        XCTAssertThrowsError(try IDCardSigner(reader: "Empty Reader 00 00", pinProvider: ScriptedPINs())) {
            XCTAssertEqual($0 as? CardError, .noCard)
        }
    }

    func testCardInfoReadsHolderCertificatesAndCounters() throws {
        try startRig([("Card Reader", ["idemia", "thales"])])
        let idemia = try IDCardInfo.read(reader: "Card Reader 00 00")
        XCTAssertEqual(idemia.cardName, "EstEID IDEMIA")
        XCTAssertEqual(idemia.documentNumber, "AS0012345")
        XCTAssertEqual(idemia.holder["personalCode"], "38001085718")
        XCTAssertEqual(idemia.certificates[.signing]?.serialNumber, "4352", "serial 0x1100")
        XCTAssertEqual(idemia.certificates[.authentication]?.keyUsage?.contains(.digitalSignature), true)
        XCTAssertEqual(idemia.retryCounters[.pin1]?.triesLeft, 3)
        XCTAssertEqual(idemia.retryCounters[.puk]?.maximumTries, 3)
        let thales = try IDCardInfo.read(reader: "Card Reader 00 01")
        XCTAssertEqual(
            thales.holder["givenNames"], "MARY ÄNN",
            "from the certificate: Thales cards have no personal data file here")
        XCTAssertNil(thales.documentNumber)
    }
}

/// Failures at exact moments, and the PIN pad, through wrappers around the real connection.
final class IDCardChannelTests: IDCardTestCase {
    private func candidate() throws -> IDCardReaders.Candidate {
        try IDCardReaders.choose(nil, context: PCSCContext())
    }

    func testACardRemovedBetweenVERIFYAndPSOStopsWithATypedErrorAndChangesNothing() async throws {
        try startRig([("Card Reader", ["idemia", nil])])
        let container = try makeContainer()
        let original = try TestEnvironment.bytes(container.path)
        let rig = try XCTUnwrap(self.rig)
        let port = rig.port(reader: 0)
        let wrappers = Collected<CardRemovedAfterVERIFY>()
        let signer = try IDCardSigner(candidate: candidate(), pinProvider: ScriptedPINs("12345")) { name in
            let wrapper = CardRemovedAfterVERIFY(try CardConnection(context: PCSCContext(), reader: name)) {
                rig.removeCard(port: port)
            }
            wrappers.append(wrapper)
            return wrapper
        }
        await assertCardError(.cardRemoved(reader: "Card Reader 00 00")) {
            try await container.sign(with: signer, options: .baselineB)
        }
        XCTAssertTrue(wrappers.all.contains { $0.removed }, "the card was pulled after VERIFY")
        XCTAssertEqual(try TestEnvironment.bytes(container.path), original, "nothing was written")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix(".tamga-") }, [],
            "no temporary file left")
    }

    func testAPINPadReaderTakesThePINAndTheHostNeverSeesIt() async throws {
        try startRig([("Pinpad Reader", ["thales", nil])])
        let container = try makeContainer()
        let pins = ScriptedPINs()
        let pads = Collected<PINPadReaderMock>()
        let signer = try IDCardSigner(candidate: candidate(), pinProvider: pins) { name in
            let pad = PINPadReaderMock(try CardConnection(context: PCSCContext(), reader: name), keypadPIN: "12345")
            pads.append(pad)
            return pad
        }
        try await container.sign(with: signer, options: .baselineB)
        XCTAssertTrue(pins.asked.isEmpty, "with a PIN pad the host asks for nothing")
        let used = pads.all.filter { !$0.structures.isEmpty }
        XCTAssertEqual(used.count, 1)
        XCTAssertEqual(used.first?.problems, [])
        // bTimeOut 90 s, ASCII format, PIN 5–12 digits, the Thales VERIFY header with a 00-filled template.
        let structure = try XCTUnwrap(used.first?.structures.first)
        XCTAssertEqual(Array(structure.prefix(3)), [90, 90, 0x82])
        XCTAssertEqual(Array(structure[5...6]), [12, 5])
        XCTAssertEqual(Array(structure.suffix(17)), [0x00, 0x20, 0x00, 0x82, 0x0C] + [UInt8](repeating: 0, count: 12))
        XCTAssertEqual(try validate(container.path).signatures.first?.status, .valid)
    }

    func testAWrongPINOnThePINPadReportsTriesLeft() async throws {
        try startRig([("Pinpad Reader", ["idemia", nil])])
        let container = try makeContainer()
        let signer = try IDCardSigner(candidate: candidate(), pinProvider: ScriptedPINs()) { name in
            PINPadReaderMock(try CardConnection(context: PCSCContext(), reader: name), keypadPIN: "99999")
        }
        await assertCardError(.wrongPIN(.pin2, triesLeft: 2)) {
            try await container.sign(with: signer, options: .baselineB)
        }
    }
}

/// The authentication key (PIN1, INTERNAL AUTHENTICATE), checked with OpenSSL's verifier
/// through the certificate read from the card.
final class IDCardAuthenticationTests: IDCardTestCase {
    private func authenticate(_ card: String, pin1: String) async throws {
        try startRig([("Card Reader", [card, nil])])
        let pins = ScriptedPINs(pin1)
        let signer = try IDCardSigner(key: .authentication, pinProvider: pins)
        let certificate = try await signer.certificate()
        XCTAssertEqual(
            certificate.keyUsage?.contains(.nonRepudiation), false,
            "the authentication certificate, not the signing one")
        let challenge = Digest.compute(.sha256, over: Data("relying party challenge".utf8))
        let signature = try await signer.sign(digest: challenge)
        XCTAssertTrue(
            certificate.publicKey.verify(signature: signature, digest: challenge, algorithm: signer.algorithm))
        XCTAssertEqual(pins.asked.map(\.kind), [.pin1])
        XCTAssertEqual(pins.asked.first?.purpose, "authenticate")
    }

    func testIDEMIAAuthenticatesWithPIN1() async throws { try await authenticate("idemia", pin1: "1234") }
    func testThalesAuthenticatesWithPIN1() async throws { try await authenticate("thales", pin1: "1234") }

    func testChangingPIN1WithAWrongCurrentPINCountsATry() throws {
        try startRig([("Card Reader", ["idemia", nil])])
        XCTAssertThrowsError(
            try IDCardPINs.change(.pin1, current: SecretBytes(Array("0000".utf8)), new: SecretBytes(Array("4321".utf8)))
        ) {
            XCTAssertEqual($0 as? CardError, .wrongPIN(.pin1, triesLeft: 2))
        }
        XCTAssertThrowsError(
            try IDCardPINs.change(.pin1, current: SecretBytes(Array("1234".utf8)), new: SecretBytes(Array("12".utf8)))
        ) {
            XCTAssertEqual(
                $0 as? CardError, .newPINRejected(.pin1), "a new PIN of the wrong length is refused before it is sent")
        }
        try IDCardPINs.change(.pin1, current: SecretBytes(Array("1234".utf8)), new: SecretBytes(Array("4321".utf8)))
        XCTAssertEqual(try IDCardPINs.retryCounter(.pin1).triesLeft, 3)
    }
}
