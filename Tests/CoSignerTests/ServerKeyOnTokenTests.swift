import CoSigner
import Foundation
import PKCS11
import TamgaCore
import TamgaTestSupport
import Threshold
import XCTest

/// The server key kept in the database wrapped by a SoftHSM token key, at the store's level.
final class ServerKeyOnTokenTests: XCTestCase {
    private var folder: URL!
    override func setUpWithError() throws { folder = try TestEnvironment.temporaryFolder("server-key-token") }
    override func tearDown() { TestEnvironment.removeFolder(folder) }

    /// Instances starting together on one empty database each make a key, and all end with the
    /// one whose row was written first (`ON CONFLICT DO NOTHING`, then read back): none fails,
    /// none seals with a key of its own.
    func testInstancesStartingTogetherOnAnEmptyDatabaseAgreeOnOneKey() throws {
        _ = try SoftHSMToken.shared.get()
        let token = try PKCS11Tokens.choose(
            label: SoftHSMToken.label, in: PKCS11Tokens.modules(path: SoftHSMToken.module))
        let pin = SecretBytes(Array(SoftHSMToken.pin.utf8))
        let label = "server-\(UUID().uuidString)"
        try TokenKeyWrapper.makeKey(token: token, label: label, pin: pin)
        // One wrapper for the process, as in `serve` (a second one's logout would log out the first).
        let wrapper = try TokenKeyWrapper(token: token, keyLabel: label, pin: pin)
        for round in 0..<8 {
            let path = folder.appendingPathComponent("round-\(round).db").path
            _ = try CoSignerStore.openDatabase(path: path)  // migrated once, as `cosigner migrate` would
            let results = Results()
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                results.add(
                    Result {
                        try CoSignerStore.sealingKey(in: CoSignerStore.openDatabase(path: path), wrapper: wrapper)
                    })
            }
            let keys = try results.all.map { try $0.get() }
            XCTAssertEqual(keys.count, 4)
            XCTAssertEqual(Set(keys).count, 1, "round \(round): one key for every instance")
            XCTAssertEqual(keys.first?.count, 32)
        }
    }
}

private final class Results: @unchecked Sendable {  // unchecked: `lock` guards `all`
    private let lock = NSLock()
    private(set) var all: [Result<[UInt8], Error>] = []
    func add(_ result: Result<[UInt8], Error>) { lock.withLock { all.append(result) } }
}
