import FoundationEssentials
import Glibc
import TamgaCore

/// Where the protocol's randomness comes from: the operating system's CSPRNG in use, a tape of
/// recorded values in the golden-vector tests (the tape checks each draw's label, so a change
/// in draw order fails loudly at the step that changed).
public protocol RandomSource: Sendable {
    /// `count` random bytes for the purpose named by `label` ("keygen.x1", "sign.k2", …).
    func bytes(_ count: Int, label: String) throws -> [UInt8]
}

/// OpenSSL's CSPRNG (RAND_bytes, seeded by the kernel's getrandom).
public struct SystemRandom: RandomSource {
    public init() {}
    public func bytes(_ count: Int, label: String) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard SecureRandom.fill(&bytes) else { throw ThresholdError.randomnessFailed }
        return bytes
    }
}

extension RandomSource {
    /// A uniform integer in [0, bound), by rejection sampling over whole bytes plus 128 bits
    /// (so the bias is below 2^-128 without retries in practice).
    public func integer(below bound: BigInt, label: String) throws -> BigInt {
        precondition(!bound.isZero && !bound.isNegative, "the bound must be positive")
        let width = (bound.bitWidth + 7) / 8 + 16
        var raw = try bytes(width, label: label)
        defer { wipe(&raw) }
        return BigInt(bytes: raw).modulo(bound)
    }

    /// A uniform integer in [1, bound).
    public func nonZeroInteger(below bound: BigInt, label: String) throws -> BigInt {
        while true {
            let value = try integer(below: bound, label: label)
            if !value.isZero { return value }
        }
    }
}
