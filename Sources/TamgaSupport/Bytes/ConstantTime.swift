/// Byte comparisons whose time does not depend on where the inputs differ: for secrets and for
/// values an attacker tries to match (digests, tags, nonces, pinned fingerprints). Only the
/// lengths, which are public, end the comparison early.
public enum ConstantTime {
    @inlinable
    public static func equal<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
