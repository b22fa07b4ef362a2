import Foundation
import TamgaCore
import TamgaTestSupport
@testable import Threshold
import PKCS11
import XCTest

final class ShareKeyStoreTests: XCTestCase {
    var root: URL!
    override func setUpWithError() throws { root = try TestEnvironment.temporaryFolder("keystore") }
    override func tearDown() { TestEnvironment.removeFolder(root) }

    func pin(_ text: String) -> SecretBytes { SecretBytes(Array(text.utf8)) }

    func testStoreUnlockAndSignWithTheStoredShare() throws {
        let (share, serverShare) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "38001085718", root: root)
        try store.store(share, role: .sign, pin: pin("24680"))
        // Files: 0700 folder, 0600 files, nothing secret in the clear.
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: store.folder.path)[.posixPermissions] as? Int, 0o700)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: store.folder.appendingPathComponent("sign.share").path)[.posixPermissions] as? Int, 0o600)
        let sealed = try Data(contentsOf: store.folder.appendingPathComponent("sign.share"))
        XCTAssertNil(sealed.range(of: Data(Scalar.encode(share.x1))), "x1 is not stored in the clear")
        XCTAssertEqual(sealed.first, 0)

        let unlocked = try store.unlock(.sign, pin: pin("24680"))
        XCTAssertEqual(unlocked.x1, share.x1)
        XCTAssertEqual(unlocked.publicKey, share.publicKey)
        XCTAssertEqual(unlocked.secretKey.publicKey, share.secretKey.publicKey)
        let signature = try PartyTests.sign("stored", client: unlocked, server: serverShare, guard: store.shareGuard(.sign))
        XCTAssertTrue(TwoPartySigning.verify(r: signature.r, s: signature.s, digest: Digest.compute(.sha256, over: Data("stored".utf8)), publicKey: share.publicKey))
        XCTAssertFalse(store.isEnrolled(.auth), "the two roles are independent")
    }

    func testWrongPINsAreCountedAndTheTenthDeletesTheShare() throws {
        let (share, _) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "counting", root: root)
        try store.store(share, role: .auth, pin: pin("1234"))
        XCTAssertThrowsError(try store.verifyPIN(.auth, pin: pin("0000"))) { XCTAssertEqual($0 as? ThresholdError, .wrongPIN(triesLeft: 9)) }
        XCTAssertNoThrow(try store.verifyPIN(.auth, pin: pin("1234")), "the right PIN resets the counter")
        for left in (1...9).reversed() {
            XCTAssertThrowsError(try store.verifyPIN(.auth, pin: pin("0000"))) { XCTAssertEqual($0 as? ThresholdError, .wrongPIN(triesLeft: left)) }
        }
        // The counter is on disk: a new store object (a restarted program) sees it.
        let restarted = try ShareKeyStore(account: "counting", root: root)
        XCTAssertThrowsError(try restarted.verifyPIN(.auth, pin: pin("0000"))) { XCTAssertEqual($0 as? ThresholdError, .shareLocked) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.folder.appendingPathComponent("auth.share").path), "the sealed share is deleted")
        XCTAssertThrowsError(try restarted.verifyPIN(.auth, pin: pin("1234"))) { XCTAssertEqual($0 as? ThresholdError, .shareLocked, "even the right PIN") }
        XCTAssertEqual(try String(contentsOf: store.folder.appendingPathComponent("auth.pin-failures"), encoding: .utf8), "10\n")
    }

    func testChangePINKeepsTheKeyAndRefusesAWrongOldPIN() throws {
        let (share, _) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "changing", root: root)
        try store.store(share, role: .sign, pin: pin("11111"))
        XCTAssertThrowsError(try store.changePIN(.sign, old: pin("22222"), new: pin("33333"))) { XCTAssertEqual($0 as? ThresholdError, .wrongPIN(triesLeft: 9)) }
        try store.changePIN(.sign, old: pin("11111"), new: pin("33333"))
        XCTAssertThrowsError(try store.verifyPIN(.sign, pin: pin("11111")))
        XCTAssertEqual(try store.unlock(.sign, pin: pin("33333")).publicKey, share.publicKey)
    }

    func testALockedShareDoesNotOpenAndTheDefaultFolderFollowsXDG() throws {
        let (share, _) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "abort", environment: ["XDG_DATA_HOME": root.path])
        XCTAssertEqual(store.folder.path, root.appendingPathComponent("tamga/threshold/abort").path)
        try store.store(share, role: .sign, pin: pin("55555"))
        try store.shareGuard(.sign).lock()
        XCTAssertThrowsError(try store.unlock(.sign, pin: pin("55555"))) { XCTAssertEqual($0 as? ThresholdError, .shareLocked) }
        XCTAssertThrowsError(try ShareKeyStore(account: "../escape", root: root))
        try store.deleteRegistration()
        XCTAssertFalse(FileManager.default.fileExists(atPath: store.folder.path))
    }
}

/// The extra wrap by a key on a PKCS#11 token (SoftHSM here), the stand-in for the Secure Enclave.
final class TokenWrappedShareTests: XCTestCase {
    func testAShareWrappedByATokenNeedsTheTokenAndThePIN() throws {
        let softhsm = try SoftHSMToken.shared.get()
        let root = try TestEnvironment.temporaryFolder("wrapped")
        defer { TestEnvironment.removeFolder(root) }
        _ = softhsm
        let modules = try PKCS11Tokens.modules(path: SoftHSMToken.module)
        let token = try PKCS11Tokens.choose(label: SoftHSMToken.label, in: modules)
        let wrapper = try PKCS11ShareWrapper(token: token, pin: SecretBytes(Array(SoftHSMToken.pin.utf8)))
        let (share, _) = try PartyTests.enroll()
        let store = try ShareKeyStore(account: "wrapped", root: root)
        try store.store(share, role: .sign, pin: SecretBytes(Array("13579".utf8)), wrapper: wrapper)
        XCTAssertEqual(try Data(contentsOf: store.folder.appendingPathComponent("sign.share")).first, 1)
        XCTAssertThrowsError(try store.unlock(.sign, pin: SecretBytes(Array("13579".utf8)))) {
            guard case ThresholdError.keyStore(let why)? = $0 as? ThresholdError else { return XCTFail("\($0)") }
            XCTAssertTrue(why.contains("PKCS#11 token"), why)
        }
        XCTAssertEqual(try store.unlock(.sign, pin: SecretBytes(Array("13579".utf8)), wrapper: wrapper).publicKey, share.publicKey)
        XCTAssertThrowsError(try store.unlock(.sign, pin: SecretBytes(Array("00000".utf8)), wrapper: wrapper)) {
            XCTAssertEqual($0 as? ThresholdError, .wrongPIN(triesLeft: 9), "the PIN is still checked")
        }
        // Another token has another wrapping key: it cannot unwrap.
        let spare = try PKCS11Tokens.choose(label: SoftHSMToken.spareLabel, in: modules)
        let other = try PKCS11ShareWrapper(token: spare, pin: SecretBytes(Array(SoftHSMToken.sparePIN.utf8)))
        XCTAssertThrowsError(try store.unlock(.sign, pin: SecretBytes(Array("13579".utf8)), wrapper: other))
        // The wrapping key stays on the token and cannot be read out.
        let session = try token.module.openSession(token.slot)
        try session.login(pin: SecretBytes(Array(SoftHSMToken.pin.utf8)))
        let key = try XCTUnwrap(session.secretKey(label: PKCS11ShareWrapper.keyLabel))
        XCTAssertNotNil(key)
    }
}
