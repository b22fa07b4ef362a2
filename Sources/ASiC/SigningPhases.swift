import Dispatch
import FoundationEssentials
import Glibc

/// How long each phase of the last signature took, for `tamga sign --json` and the
/// benchmarks that compare signers phase by phase (seconds, monotonic clock).
public struct SigningPhases: Sendable, Codable, Equatable {
    /// Hashing the data files and building the signature document.
    public var prepare: TimeInterval = 0
    /// Obtaining the PIN and unlocking the key, for signers that can tell it apart
    /// (`UnlockTimingSigner`: cards, tokens, the split key); 0 otherwise.
    public var unlock: TimeInterval = 0
    /// The signer producing the value (without `unlock`).
    public var sign: TimeInterval = 0
    /// Time-stamping authority round trips (signature and archive time-stamps).
    public var timeStamp: TimeInterval = 0
    /// OCSP round trip (and issuer download, if any).
    public var ocsp: TimeInterval = 0
    /// Writing the container: temporary file, fsync, rename.
    public var write: TimeInterval = 0

    public init() {}
}

/// Accumulates phase durations; one per signing operation, used from one task.
final class PhaseClock: @unchecked Sendable {  // unchecked: used by one signing task at a time
    var phases = SigningPhases()

    func measure<T>(_ phase: WritableKeyPath<SigningPhases, TimeInterval>, _ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { phases[keyPath: phase] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        return try body()
    }

    func measure<T>(
        _ phase: WritableKeyPath<SigningPhases, TimeInterval>, _ body: () async throws -> T
    ) async rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { phases[keyPath: phase] += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        return try await body()
    }
}
