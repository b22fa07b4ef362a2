import Glibc

/// Finding a byte string in a buffer: memchr for each candidate first byte, memcmp for the rest.
/// Foundation's `Data.range(of:)` and the generic `firstRange(of:)` cost milliseconds per MB (and
/// allocate), which XML members, trusted lists and DDOC signatures would pay on every parse.
enum ByteSearch {
    /// The offset of the first `needle` in `haystack` at or after `start`, nil when there is none.
    static func firstIndex(of needle: [UInt8], in haystack: UnsafeRawBufferPointer, from start: Int = 0) -> Int? {
        guard let base = haystack.baseAddress, let first = needle.first, start >= 0,
            haystack.count >= needle.count, start <= haystack.count - needle.count
        else { return nil }
        return needle.withUnsafeBytes { pattern -> Int? in
            guard let pattern = pattern.baseAddress else { return nil }
            var index = start
            let last = haystack.count - needle.count
            while index <= last, let hit = memchr(base + index, Int32(first), last - index + 1) {
                let position = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + position, pattern, needle.count) == 0 { return position }
                index = position + 1
            }
            return nil
        }
    }
}
