import Foundation
import PKCS11
import TamgaCore
import TamgaTestSupport
import XCTest

@testable import Threshold

final class ShareKeyStoreTests: XCTestCase {
    var root: URL!
    var hardening: InProcessPINHardening!
    override func setUpWithError() throws {
        root = try TestEnvironment.temporaryFolder("keystore")
        hardening = InProcessPINHardening()
    }
    override func tearDown() { TestEnvironment.removeFolder(root) }

    func pin(_ text: String) -> SecretBytes { SecretBytes(Array(text.utf8)) }

    func testStoreUnlockAndSignWithTheStoredShare() async throws {
        let (share, serverShare) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "38001085718", root: root)
        try await store.store(share, role: .sign, pin: pin("24680"), hardening: hardening)
        // Files: 0700 folder, 0600 files, nothing secret in the clear.
        XCTAssertEqual(
            try FileManager.default.attributesOfItem(atPath: store.folder.path)[.posixPermissions] as? Int, 0o700)
        XCTAssertEqual(
            try FileManager.default.attributesOfItem(atPath: store.folder.appendingPathComponent("sign.share").path)[
                .posixPermissions] as? Int, 0o600)
        let sealed = try Data(contentsOf: store.folder.appendingPathComponent("sign.share"))
        XCTAssertNil(sealed.range(of: Data(Scalar.encode(share.x1))), "x1 is not stored in the clear")
        XCTAssertEqual(sealed.first, 2, "sealed under a PIN key hardened by the co-signer")

        let unlocked = try await store.unlock(.sign, pin: pin("24680"), hardening: hardening)
        XCTAssertEqual(unlocked.x1, share.x1)
        XCTAssertEqual(unlocked.publicKey, share.publicKey)
        XCTAssertEqual(unlocked.secretKey.publicKey, share.secretKey.publicKey)
        let signature = try PartyTests.sign(
            "stored", client: unlocked, server: serverShare, guard: store.shareGuard(.sign))
        XCTAssertTrue(
            TwoPartySigning.verify(
                r: signature.r, s: signature.s, digest: Digest.compute(.sha256, over: Data("stored".utf8)),
                publicKey: share.publicKey))
        XCTAssertFalse(store.isEnrolled(.auth), "the two roles are independent")
    }

    func testWrongPINsAreCountedAndTheTenthDeletesTheShare() async throws {
        let (share, _) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "counting", root: root)
        try await store.store(share, role: .auth, pin: pin("1234"), hardening: hardening)
        await assertThrowsAsync({ try await store.verifyPIN(.auth, pin: pin("0000"), hardening: hardening) }) {
            XCTAssertEqual($0 as? ThresholdError, .wrongPIN(triesLeft: 9))
        }
        try await store.verifyPIN(.auth, pin: pin("1234"), hardening: hardening)  // the right PIN resets the counter
        for left in (1...9).reversed() {
            await assertThrowsAsync({ try await store.verifyPIN(.auth, pin: pin("0000"), hardening: hardening) }) {
                XCTAssertEqual($0 as? ThresholdError, .wrongPIN(triesLeft: left))
            }
        }
        // The counter is on disk: a new store object (a restarted program) sees it.
        let restarted = try ShareKeyStore(account: "counting", root: root)
        await assertThrowsAsync({ try await restarted.verifyPIN(.auth, pin: pin("0000"), hardening: hardening) }) {
            XCTAssertEqual($0 as? ThresholdError, .shareLocked)
        }
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: store.folder.appendingPathComponent("auth.share").path),
            "the sealed share is deleted")
        await assertThrowsAsync({ try await restarted.verifyPIN(.auth, pin: pin("1234"), hardening: hardening) }) {
            XCTAssertEqual($0 as? ThresholdError, .shareLocked, "even the right PIN")
        }
        XCTAssertEqual(
            try String(contentsOf: store.folder.appendingPathComponent("auth.pin-failures"), encoding: .utf8), "10\n")
    }

    func testChangePINKeepsTheKeyAndRefusesAWrongOldPIN() async throws {
        let (share, _) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "changing", root: root)
        try await store.store(share, role: .sign, pin: pin("11111"), hardening: hardening)
        await assertThrowsAsync({
            try await store.changePIN(.sign, old: pin("22222"), new: pin("33333"), hardening: hardening)
        }) {
            XCTAssertEqual($0 as? ThresholdError, .wrongPIN(triesLeft: 9))
        }
        try await store.changePIN(.sign, old: pin("11111"), new: pin("33333"), hardening: hardening)
        await assertThrowsAsync({ try await store.verifyPIN(.sign, pin: pin("11111"), hardening: hardening) })
        let unlocked = try await store.unlock(.sign, pin: pin("33333"), hardening: hardening)
        XCTAssertEqual(unlocked.publicKey, share.publicKey)
    }

    func testALockedShareDoesNotOpenAndTheDefaultFolderFollowsXDG() async throws {
        let (share, _) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "abort", environment: ["XDG_DATA_HOME": root.path])
        XCTAssertEqual(store.folder.path, root.appendingPathComponent("tamga/threshold/abort").path)
        try await store.store(share, role: .sign, pin: pin("55555"), hardening: hardening)
        try store.shareGuard(.sign).lock()
        await assertThrowsAsync({ _ = try await store.unlock(.sign, pin: pin("55555"), hardening: self.hardening) }) {
            XCTAssertEqual($0 as? ThresholdError, .shareLocked)
        }
        XCTAssertThrowsError(try ShareKeyStore(account: "../escape", root: root))
        try store.deleteRegistration()
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.folder.path))
    }

    /// PIN1 ≥ 4, PIN2 ≥ 5 characters (code points, so "ÄÖÜ1" is four): a shorter one is refused at
    /// enrollment, unlock and change before the co-signer hears anything or a try is counted.
    func testShortPINsAreRefusedBeforeAnythingIsSent() async throws {
        let (share, _) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "short", root: root)
        await assertThrowsAsync({ try await store.store(share, role: .auth, pin: pin("123"), hardening: hardening) }) {
            XCTAssertEqual($0 as? ThresholdError, .pinTooShort(role: "PIN1 (authentication)", minimum: 4))
        }
        await assertThrowsAsync({ try await store.store(share, role: .sign, pin: pin("1234"), hardening: hardening) }) {
            XCTAssertEqual($0 as? ThresholdError, .pinTooShort(role: "PIN2 (signing)", minimum: 5))
            XCTAssertTrue(($0 as? ThresholdError)?.description.contains("Nothing was sent") == true)
        }
        await assertThrowsAsync({
            try await store.store(
                share, role: .sign, pin: pin(String(repeating: "9", count: 129)), hardening: hardening)
        }) {
            XCTAssertEqual($0 as? ThresholdError, .pinTooLong(maximum: 128))
        }
        XCTAssertEqual(hardening.evaluations, 0, "nothing reached the co-signer")
        XCTAssertFalse(store.isEnrolled(.sign))
        try await store.store(share, role: .auth, pin: pin("ÄÖÜ1"), hardening: hardening)
        XCTAssertEqual(hardening.evaluations, 1)
        await assertThrowsAsync({ _ = try await store.unlock(.auth, pin: pin("ÄÖ1"), hardening: self.hardening) }) {
            XCTAssertEqual($0 as? ThresholdError, .pinTooShort(role: "PIN1 (authentication)", minimum: 4))
        }
        await assertThrowsAsync({
            try await store.changePIN(.auth, old: pin("ÄÖÜ1"), new: pin("123"), hardening: self.hardening)
        }) {
            XCTAssertEqual($0 as? ThresholdError, .pinTooShort(role: "PIN1 (authentication)", minimum: 4))
        }
        XCTAssertEqual(hardening.evaluations, 1, "the short PINs were not sent")
        XCTAssertEqual(
            try String(contentsOf: store.folder.appendingPathComponent("auth.pin-failures"), encoding: .utf8), "0\n",
            "nor counted")
        _ = try await store.unlock(.auth, pin: pin("ÄÖÜ1"), hardening: hardening)
    }

    /// The sealed share names its account, role and key in its additional data: the same bytes
    /// under the same key do not open for another account or role, and a share file moved to
    /// another account's folder is refused (a wrong PIN, as far as the device can tell).
    func testTheSealedShareIsBoundToAccountRoleAndKey() async throws {
        let (share, _) = try PartyTests.enroll()
        let alice = try ShareKeyStore(account: "alice", root: root), bob = try ShareKeyStore(account: "bob", root: root)
        let key = [UInt8](repeating: 7, count: 32)
        let sealed = try SealedBox.seal(
            [1, 2, 3], key: key, additionalData: alice.additionalData(role: .sign, keyID: share.keyID),
            random: SystemRandom())
        XCTAssertEqual(
            try SealedBox.open(sealed, key: key, additionalData: alice.additionalData(role: .sign, keyID: share.keyID)),
            [1, 2, 3])
        XCTAssertNil(
            try SealedBox.open(sealed, key: key, additionalData: bob.additionalData(role: .sign, keyID: share.keyID)),
            "another account")
        XCTAssertNil(
            try SealedBox.open(sealed, key: key, additionalData: alice.additionalData(role: .auth, keyID: share.keyID)),
            "another role")
        XCTAssertNil(
            try SealedBox.open(
                sealed, key: key,
                additionalData: alice.additionalData(role: .sign, keyID: [UInt8](repeating: 1, count: 32))),
            "another key")

        try await alice.store(share, role: .sign, pin: pin("24680"), hardening: hardening)
        for name in ["sign.share", "sign.public"] {
            try FileManager.default.copyItem(
                at: alice.folder.appendingPathComponent(name), to: bob.folder.appendingPathComponent(name))
        }
        await assertThrowsAsync({ _ = try await bob.unlock(.sign, pin: self.pin("24680"), hardening: self.hardening) })
        {
            XCTAssertEqual($0 as? ThresholdError, .wrongPIN(triesLeft: 9))
        }
        // Moved to the other role of the same account: refused the same way.
        for name in ["share", "public"] {
            try FileManager.default.copyItem(
                at: alice.folder.appendingPathComponent("sign.\(name)"),
                to: alice.folder.appendingPathComponent("auth.\(name)"))
        }
        await assertThrowsAsync({ _ = try await alice.unlock(.auth, pin: self.pin("24680"), hardening: self.hardening) }
        ) {
            XCTAssertEqual($0 as? ThresholdError, .wrongPIN(triesLeft: 9))
        }
        _ = try await alice.unlock(.sign, pin: pin("24680"), hardening: hardening)
    }

    /// A share sealed under the PIN alone (formats 0 and 1, before the co-signer hardened the
    /// PIN) is refused with a request to enroll again, before anything is sent.
    func testASharePreviouslySealedUnderThePINAloneIsRefused() async throws {
        let (share, _) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "old", root: root)
        try await store.store(share, role: .sign, pin: pin("24680"), hardening: hardening)
        let before = hardening.evaluations
        for format: UInt8 in [0, 1] {
            try Data([format] + [UInt8](repeating: 0xab, count: 400)).write(
                to: store.folder.appendingPathComponent("sign.share"))
            await assertThrowsAsync({
                _ = try await store.unlock(.sign, pin: self.pin("24680"), hardening: self.hardening)
            }) {
                XCTAssertEqual($0 as? ThresholdError, .outdatedShareFormat)
                XCTAssertTrue(($0 as? ThresholdError)?.description.contains("Enroll this device again") == true)
            }
        }
        XCTAssertEqual(hardening.evaluations, before)
    }
}

/// The extra wrap by a key on a PKCS#11 token (SoftHSM here), the stand-in for the Secure Enclave.
final class TokenWrappedShareTests: XCTestCase {
    func testAShareWrappedByATokenNeedsTheTokenAndThePIN() async throws {
        let hardening = InProcessPINHardening()
        let softhsm = try SoftHSMToken.shared.get()
        let root = try TestEnvironment.temporaryFolder("wrapped")
        defer { TestEnvironment.removeFolder(root) }
        _ = softhsm
        let modules = try PKCS11Tokens.modules(path: SoftHSMToken.module)
        let token = try PKCS11Tokens.choose(label: SoftHSMToken.label, in: modules)
        let wrapper = try PKCS11ShareWrapper(token: token, pin: SecretBytes(Array(SoftHSMToken.pin.utf8)))
        let (share, _) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "wrapped", root: root)
        try await store.store(
            share, role: .sign, pin: SecretBytes(Array("13579".utf8)), hardening: hardening, wrapper: wrapper)
        XCTAssertEqual(try Data(contentsOf: store.folder.appendingPathComponent("sign.share")).first, 3)
        let evaluations = hardening.evaluations
        await assertThrowsAsync({
            _ = try await store.unlock(.sign, pin: SecretBytes(Array("13579".utf8)), hardening: hardening)
        }) {
            guard case ThresholdError.keyStore(let why)? = $0 as? ThresholdError else { return XCTFail("\($0)") }
            XCTAssertTrue(why.contains("PKCS#11 token"), why)
        }
        XCTAssertEqual(hardening.evaluations, evaluations, "no co-signer try spent without the token")
        let unwrapped = try await store.unlock(
            .sign, pin: SecretBytes(Array("13579".utf8)), hardening: hardening, wrapper: wrapper)
        XCTAssertEqual(unwrapped.publicKey, share.publicKey)
        await assertThrowsAsync({
            _ = try await store.unlock(
                .sign, pin: SecretBytes(Array("00000".utf8)), hardening: hardening, wrapper: wrapper)
        }) {
            XCTAssertEqual($0 as? ThresholdError, .wrongPIN(triesLeft: 9), "the PIN is still checked")
        }
        // Another token has another wrapping key: it cannot unwrap.
        let spare = try PKCS11Tokens.choose(label: SoftHSMToken.spareLabel, in: modules)
        let other = try PKCS11ShareWrapper(token: spare, pin: SecretBytes(Array(SoftHSMToken.sparePIN.utf8)))
        await assertThrowsAsync({
            _ = try await store.unlock(
                .sign, pin: SecretBytes(Array("13579".utf8)), hardening: hardening, wrapper: other)
        })
        // The wrapping key stays on the token and cannot be read out.
        let session = try token.module.openSession(token.slot)
        try session.login(pin: SecretBytes(Array(SoftHSMToken.pin.utf8)))
        let key = try XCTUnwrap(session.secretKey(label: PKCS11ShareWrapper.keyLabel))
        XCTAssertNotNil(key)
    }
}
