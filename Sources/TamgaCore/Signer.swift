import Dispatch
import FoundationEssentials
import Glibc
import TamgaSupport

/// Anything that can produce a signature over a digest with a certified key: a software key,
/// an ID card, a PKCS#11 token, or the two-party threshold key. `ASiC` calls only this.
public protocol Signer: Sendable {
    /// The signing certificate; for a card this is read from the card.
    func certificate() async throws -> Certificate
    /// The algorithm the key signs with. The digest passed to `sign` uses `algorithm.digest`.
    var algorithm: SignatureAlgorithm { get }
    /// Signs a precomputed digest.
    /// - Returns: for ECDSA the raw `r‖s`, each half left-padded to the curve's field size
    ///   (the XML-DSig form); for RSA the signature block as long as the modulus.
    func sign(digest: Digest) async throws -> Data
}

/// How long the last `sign(digest:)` spent unlocking the key: obtaining the PIN (typing it
/// counts) and the unlock step a signer performs apart from the signature itself. Lets
/// `tamga sign --json` and `tamga compare` report PIN/unlock and signature as two phases.
public final class UnlockClock: @unchecked Sendable {  // unchecked: `total` behind `lock`
    private let lock = Lock()
    private var total: TimeInterval = 0

    public init() {}

    /// Starts a new signature's account.
    public func reset() { lock.withLock { total = 0 } }

    /// Seconds spent in `measure` since the last `reset`.
    public var lastDuration: TimeInterval { lock.withLock { total } }

    public func measure<T>(_ body: () async throws -> T) async rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            lock.withLock { total += elapsed }
        }
        return try await body()
    }

    public func measure<T>(_ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer {
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            lock.withLock { total += elapsed }
        }
        return try body()
    }
}

/// A signer whose PIN entry and key unlock can be timed apart from the signature.
public protocol UnlockTimingSigner: Signer {
    var unlockClock: UnlockClock { get }
}
