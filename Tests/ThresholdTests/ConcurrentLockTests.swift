import Foundation
import TamgaCore
import XCTest

@testable import Threshold

/// `ServerParty.lockedKeys` is read by request threads (the co-signer checks it after every
/// failed step) while other requests lock keys. The read must be under the party's lock: a
/// `Set` grown by one thread while another copies it is a data race (ThreadSanitizer reports
/// it; without TSan it can crash when the copy retains storage the resize just freed).
final class ConcurrentLockTests: XCTestCase {
    func testReadingLockedKeysWhileOtherThreadsLockKeysIsSafe() throws {
        let party = try ServerParty(pid: PartyTests.serverPID, ringPedersen: RangeProofTests.ringPedersen)
        let client = try ClientEnrollment(pid: PartyTests.clientPID)
        let complete = try client.complete(try party.enrollInit(client.initRequest))
        let (response, server) = try party.enrollComplete(clientNonce: client.initRequest.clientNonce, complete)
        let share = try client.finish(response)
        // Many keys cheaply: the one enrolled share under other key ids (both sides agree on the
        // id, so every proof still checks). Each is locked by a failure report after its c3.
        let count = 160
        let keys: [(ClientPublicShare, ServerKeyShare)] = (0..<count).map { index in
            let id = Transcript.taggedHash("test/race-key", [[UInt8(index & 0xFF), UInt8(index >> 8)]])
            return (
                ClientPublicShare(
                    keyID: id, clientPID: share.clientPID, serverPID: share.serverPID, publicKey: share.publicKey,
                    q2: share.q2, ckey: share.ckey),
                ServerKeyShare(
                    pool: server.pool, keyID: id, clientPID: server.clientPID, x2: server.x2, q1: server.q1,
                    publicKey: server.publicKey,
                    paillier: server.paillier, ckey: server.ckey)
            )
        }
        let done = Atomic()
        let failures = Atomic()
        let readers = DispatchGroup()
        for _ in 0..<3 {
            DispatchQueue.global().async(group: readers) {
                var index = 0
                while !done.isSet {
                    // What the service does after a failed step: is this key locked?
                    _ = party.lockedKeys.contains(keys[index % count].1.keyID)
                    index += 1
                }
            }
        }
        DispatchQueue.concurrentPerform(iterations: count) { index in
            let (publicShare, serverShare) = keys[index]
            do {
                let signing = try ClientSigning(
                    share: publicShare, digest: Array(Digest.compute(.sha256, over: Data("race \(index)".utf8)).bytes),
                    guard: MemoryGuard())
                _ = try party.signProve(
                    serverShare, signing.prove(party.signCommit(serverShare, signing.commitRequest)))
                // a failure report after c3 locks the key
                XCTAssertThrowsError(try party.signFinish(serverShare, .init(signature: nil)))
            } catch {
                failures.set()
            }
        }
        done.set()
        readers.wait()
        XCTAssertFalse(failures.isSet)
        XCTAssertEqual(party.lockedKeys.count, count)
        XCTAssertTrue(keys.allSatisfy { party.lockedKeys.contains($0.1.keyID) })
    }
}

/// A flag set once, read from other threads.
private final class Atomic: @unchecked Sendable {  // unchecked: `lock` guards `value`
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
