import ASiC
import Foundation
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import PKCS11

/// Gives the same PIN each time and counts the requests.
final class FixedTokenPIN: TokenPINProvider, @unchecked Sendable {  // unchecked: the lock guards `requests`
    private let pin: String
    private let lock = NSLock()
    private var requests: [TokenPINRequest] = []
    init(_ pin: String) { self.pin = pin }
    var asked: [TokenPINRequest] { lock.withLock { requests } }
    func pin(for request: TokenPINRequest) async throws -> SecretBytes {
        lock.withLock { requests.append(request) }
        return SecretBytes(Array(pin.utf8))
    }
}

/// PKCS#11 through p11-kit against real SoftHSM2 tokens made by the test (`SoftHSMToken`).
final class PKCS11SigningTests: XCTestCase {
    var token: SoftHSMToken!
    var folder: URL!

    override func setUpWithError() throws {
        token = try SoftHSMToken.shared.get()
        folder = try TestEnvironment.temporaryFolder("pkcs11")
    }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    private func testToken() throws -> PKCS11Tokens.Token {
        try PKCS11Tokens.choose(label: SoftHSMToken.label, in: PKCS11Tokens.modules(path: SoftHSMToken.module))
    }

    private func makeContainer(_ name: String) throws -> Container {
        let container = Container(creatingAt: folder.appendingPathComponent(name).path)
        try container.addDataFile(path: TestEnvironment.write("signed on a token\n", named: "token.txt", in: folder))
        try container.save()
        return try Container(openingAt: container.path)
    }

    private func signAndCheck(keyID: UInt8, pss: Bool = false, expected: SignatureAlgorithm) async throws {
        let pins = FixedTokenPIN(SoftHSMToken.pin)
        let signer = try PKCS11Signer(token: testToken(), keyID: [keyID], pinProvider: pins, pss: pss)
        XCTAssertEqual(signer.algorithm, expected)
        let container = try makeContainer("key\(keyID)\(pss ? "-pss" : "").asice")
        try await container.sign(with: signer, options: .baselineB)
        let report = try Container(openingAt: container.path).validate(
            ValidationOptions(trust: TestEnvironment.testTrust(), minimumProfile: .B))
        XCTAssertEqual(report.signatures.first?.status, .valid, "\(report)")
        if !pss {  // pyasice does not implement RSA-PSS (docs/design/asice.md); openssl checks it below
            let check = try TestEnvironment.run(
                TestEnvironment.pyasicePython, [TestEnvironment.script("pyasice-check.py"), container.path])
            XCTAssertEqual(check.status, 0, check.output + check.error)
        }
        // The raw signature, checked by the openssl command line against the certificate.
        let digest = Digest.compute(expected.digest, over: Data("raw check".utf8))
        let raw = try await signer.sign(digest: digest)
        let certificate = try await signer.certificate()
        let der = expected.curve.map { try? ECDSASignature.der(fromRaw: raw, curve: $0) } ?? raw
        let files = (
            folder.appendingPathComponent("d.bin"), folder.appendingPathComponent("s.bin"),
            folder.appendingPathComponent("c.pem")
        )
        try digest.bytes.write(to: files.0)
        try XCTUnwrap(der).write(to: files.1)
        try certificate.pem.write(to: files.2, atomically: true, encoding: .utf8)
        var arguments = [
            "pkeyutl", "-verify", "-certin", "-inkey", files.2.path, "-in", files.0.path, "-sigfile", files.1.path,
            "-pkeyopt", "digest:\(expected.digest.rawValue)",
        ]
        if pss { arguments += ["-pkeyopt", "rsa_padding_mode:pss", "-pkeyopt", "rsa_pss_saltlen:32"] }
        let openssl = try TestEnvironment.run("/usr/bin/openssl", arguments)
        XCTAssertTrue(openssl.output.contains("Signature Verified Successfully"), openssl.output + openssl.error)
        XCTAssertEqual(pins.asked.count, 1, "one login for both signatures: the session stays logged in")
    }

    func testECP256() async throws { try await signAndCheck(keyID: 1, expected: .ecdsaP256SHA256) }
    func testECP384() async throws { try await signAndCheck(keyID: 3, expected: .ecdsaP384SHA384) }
    func testRSAPKCS1() async throws { try await signAndCheck(keyID: 2, expected: .rsaPKCS1SHA256) }
    func testRSAPSS() async throws { try await signAndCheck(keyID: 2, pss: true, expected: .rsaPSSSHA256) }

    func testAlwaysAuthenticateKeyTakesAPINForEverySignature() async throws {
        let pins = FixedTokenPIN(SoftHSMToken.pin)
        let signer = try PKCS11Signer(token: testToken(), keyID: [4], pinProvider: pins)
        let digest = Digest.compute(.sha256, over: Data("pin2".utf8))
        let first = try await signer.sign(digest: digest)
        let second = try await signer.sign(digest: digest)
        let certificate = try await signer.certificate()
        XCTAssertTrue(certificate.publicKey.verify(signature: first, digest: digest, algorithm: signer.algorithm))
        XCTAssertTrue(certificate.publicKey.verify(signature: second, digest: digest, algorithm: signer.algorithm))
        // First signature: one PIN for the token login and the context-specific login; second: the
        // session is logged in, the key still wants its own PIN.
        XCTAssertEqual(pins.asked.map(\.forEachSignature), [false, true])
        // And a container signed with it verifies with tamga and pyasice.
        let container = try makeContainer("pin2.asice")
        try await container.sign(with: signer, options: .baselineB)
        XCTAssertEqual(pins.asked.count, 3, "a PIN for this signature too")
        let report = try Container(openingAt: container.path).validate(
            ValidationOptions(trust: TestEnvironment.testTrust(), minimumProfile: .B))
        XCTAssertEqual(report.signatures.first?.status, .valid, "\(report)")
        let check = try TestEnvironment.run(
            TestEnvironment.pyasicePython, [TestEnvironment.script("pyasice-check.py"), container.path])
        XCTAssertEqual(check.status, 0, check.output + check.error)
    }

    func testWrongPINIsReportedAndNotRetried() async throws {
        let spare = try PKCS11Tokens.choose(
            label: SoftHSMToken.spareLabel, in: PKCS11Tokens.modules(path: SoftHSMToken.module))
        let pins = FixedTokenPIN("000000")
        let signer = try PKCS11Signer(token: spare, pinProvider: pins)
        do {
            _ = try await signer.sign(digest: Digest.compute(.sha256, over: Data()))
            XCTFail("a wrong PIN signed")
        } catch PKCS11Error.pinIncorrect(let countLow, _) {
            XCTAssertTrue(countLow, "SoftHSM sets CKF_USER_PIN_COUNT_LOW after a wrong PIN")
        }
        XCTAssertEqual(pins.asked.count, 1, "asked once, never retried")
        // The right PIN still works (SoftHSM has no retry limit) and clears the flag.
        _ = try await PKCS11Signer(token: spare, pinProvider: FixedTokenPIN(SoftHSMToken.sparePIN)).sign(
            digest: Digest.compute(.sha256, over: Data()))
    }

    func testTheRegisteredModuleAndTheModuleByPathShowTheSameToken() throws {
        let registered = PKCS11Tokens.tokens(in: try PKCS11Module.registered())
        let byPath = PKCS11Tokens.tokens(in: try PKCS11Tokens.modules(path: SoftHSMToken.module))
        let inRegistry = try XCTUnwrap(
            registered.first { $0.info.label == SoftHSMToken.label }, "Debian registers softhsm2 with p11-kit")
        let loaded = try XCTUnwrap(byPath.first { $0.info.label == SoftHSMToken.label })
        XCTAssertEqual(inRegistry.info.serialNumber, loaded.info.serialNumber)
        XCTAssertEqual(inRegistry.module.name, "softhsm2")
        XCTAssertTrue(inRegistry.info.flagNames.contains("token-initialized"))
        XCTAssertTrue(try loaded.module.mechanisms(loaded.slot).contains(.ecdsa))
    }

    func testAModulePathThatDoesNotExist() {
        XCTAssertThrowsError(try PKCS11Module.load(path: "/usr/lib/no-such-pkcs11.so")) {
            XCTAssertEqual($0 as? PKCS11Error, .moduleNotFound(path: "/usr/lib/no-such-pkcs11.so"))
        }
        XCTAssertThrowsError(try PKCS11Module.load(path: "/etc/hostname")) {
            guard case .moduleFailedToLoad(let path, _)? = $0 as? PKCS11Error else { return XCTFail("\($0)") }
            XCTAssertEqual(path, "/etc/hostname")
        }
    }

    func testSeveralCertificatesWithoutAKeyIDAreRefusedNamingTheIDs() throws {
        XCTAssertThrowsError(try PKCS11Signer(token: testToken(), pinProvider: FixedTokenPIN(""))) {
            XCTAssertEqual($0 as? PKCS11Error, .severalKeys(token: SoftHSMToken.label, ids: ["01", "02", "03", "04"]))
        }
    }

    func testWhatPkcs11ToolListsWeList() throws {
        let listing = try TestEnvironment.run(
            "/usr/bin/pkcs11-tool",
            [
                "--module", SoftHSMToken.module, "--token-label", SoftHSMToken.label,
                "--login", "--pin", SoftHSMToken.pin, "-O",
            ])
        XCTAssertEqual(listing.status, 0, listing.error)
        let token = try testToken()
        let session = try token.module.openSession(token.slot)
        try session.login(pin: SecretBytes(Array(SoftHSMToken.pin.utf8)))
        defer { session.logout() }
        let objects = try session.objects()
        func ids(_ kind: String) -> [String] {
            // pkcs11-tool prints blocks: "<Kind> Object; …" then "  ID:  01".
            var result: [String] = [], inKind = false
            for line in listing.output.split(separator: "\n") {
                if !line.hasPrefix(" ") { inKind = line.hasPrefix(kind) }
                if inKind, line.contains("ID:") {
                    result.append(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces))
                }
            }
            return result.sorted()
        }
        XCTAssertEqual(objects.certificates.map(\.idHex).sorted(), ids("Certificate Object"))
        XCTAssertEqual(objects.keys.map(\.idHex).sorted(), ids("Private Key Object"))
        XCTAssertEqual(objects.keys.filter(\.alwaysAuthenticate).map(\.idHex), ["04"])
        XCTAssertTrue(listing.output.contains("always authenticate"))
    }

    func testATokenRemovedBetweenListingAndSigningGivesATypedError() async throws {
        let modules = try PKCS11Tokens.modules(path: SoftHSMToken.module)
        let removable = try PKCS11Tokens.choose(label: SoftHSMToken.removableLabel, in: modules)
        let signer = try PKCS11Signer(token: removable, pinProvider: FixedTokenPIN(SoftHSMToken.sparePIN))
        let tokenFolder = try XCTUnwrap(token.tokenFolder(label: SoftHSMToken.removableLabel))
        try FileManager.default.removeItem(at: tokenFolder)
        do {
            _ = try await signer.sign(digest: Digest.compute(.sha256, over: Data("gone".utf8)))
            XCTFail("signed with a removed token")
        } catch let error as PKCS11Error {
            XCTAssertTrue(
                [.tokenRemoved, .keyNotFound(token: SoftHSMToken.removableLabel, id: "01")].contains(error), "\(error)")
        }
        XCTAssertThrowsError(try PKCS11Tokens.choose(label: SoftHSMToken.removableLabel, in: modules)) {
            XCTAssertEqual($0 as? PKCS11Error, .tokenNotFound(label: SoftHSMToken.removableLabel))
        }
    }
}
