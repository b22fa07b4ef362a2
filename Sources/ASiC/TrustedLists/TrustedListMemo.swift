import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// Parsed, signature-checked trusted lists of this process, keyed by the SHA-256 of the bytes
/// and of the allowed signers: a list is parsed and its signature checked once per process,
/// however often it is loaded (a LOTL read for `trust show` and again for `verify`, a test
/// that verifies many containers). A failed check is not remembered.
final class TrustedListMemo: @unchecked Sendable {  // unchecked: every access holds `lock`
    static let shared = TrustedListMemo()
    static let maximumLists = 256

    private let lock = Lock()
    private var lists: [Data: TrustedList] = [:]
    /// How many lists were parsed and checked (not served from the memo): for the tests.
    private(set) var checks = 0

    func list(data: Data, signers: [Certificate]) throws -> TrustedList {
        var key = Data(Digest.compute(.sha256, over: data).bytes)
        for signer in signers.map({ Data(Digest.compute(.sha256, over: $0.der).bytes) }).sorted(by: {
            $0.lexicographicallyPrecedes($1)
        }) {
            key.append(signer)
        }
        if let known = lock.withLock({ lists[key] }) { return known }
        let list = try TrustedList(checking: data, signers: signers)
        lock.withLock {
            // A long-running verifier sees few distinct lists; past a bound, start afresh
            // rather than grow without end.
            if lists.count >= Self.maximumLists { lists.removeAll() }
            lists[key] = list
            checks += 1
        }
        return list
    }
}
