import FoundationEssentials
import Glibc

#if canImport(Glibc)
import Glibc
#endif

/// Bytes of a secret (a PIN, a password) that are wiped when the last reference goes away.
/// Keep secrets in this type rather than `String`, whose storage cannot be wiped.
public final class SecretBytes: @unchecked Sendable {  // unchecked: immutable after init, wiped in deinit only
    private let pointer: UnsafeMutableRawBufferPointer

    public init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        pointer = .allocate(byteCount: Swift.max(bytes.count, 1), alignment: 1)
        _ = pointer.initializeMemory(as: UInt8.self, from: bytes)
        count = bytes.count
    }

    /// Takes a secret from a buffer and wipes the buffer.
    public convenience init(consuming buffer: inout [UInt8]) {
        self.init(buffer)
        wipe(&buffer)
    }

    public let count: Int
    public var isEmpty: Bool { count == 0 }

    /// Gives temporary access; do not let the pointer escape.
    public func withUnsafeBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        try body(UnsafeRawBufferPointer(rebasing: pointer[0..<count]))
    }

    deinit {
        wipeRaw(pointer)
        pointer.deallocate()
    }
}

/// Overwrites a buffer with zeros in a way the optimiser keeps.
public func wipe(_ buffer: inout [UInt8]) {
    buffer.withUnsafeMutableBytes { wipeRaw($0) }
}

@inline(never)
func wipeRaw(_ bytes: UnsafeMutableRawBufferPointer) {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return }
    // explicit_bzero is in glibc ≥ 2.25 and is specified not to be optimised away.
    explicit_bzero(base, bytes.count)
}
