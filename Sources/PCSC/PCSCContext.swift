import FoundationEssentials
import Glibc

/// A PC/SC context (owns `SCARDCONTEXT`; released in `deinit`). Lists readers with their
/// state and ATR. Not thread-safe: one task uses it at a time.
// unchecked: used by one task at a time (pcsc-lite contexts are not for concurrent use)
public final class PCSCContext: @unchecked Sendable {
    let handle: SCardContextHandle

    /// Connects to pcscd. Throws `.serviceNotRunning` when there is none.
    public init() throws {
        handle = try SCardContextHandle()
    }

    /// Every reader with its current state and ATR, in pcscd's order. Empty when none.
    public func readers() throws -> [Reader] {
        let names = try handle.readerNames()
        guard !names.isEmpty else { return [] }
        return try handle.states(of: names)
    }
}
