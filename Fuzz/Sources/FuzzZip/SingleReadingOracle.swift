import Foundation

/// What must hold of any archive tamga opens, checked on the raw bytes by code that shares
/// nothing with tamga's reader (a second, naive reading as Python's zipfile and unzip do it):
/// one end record, at the end; no record signature in the comment; the central directory ending
/// where the end records begin; entries that start at byte 0, do not overlap and stay before the
/// central directory; every local header naming its entry with the central directory's method
/// and flags; non-ASCII names flagged UTF-8; attributes that make every entry a plain file (or a
/// folder); and every stored data file's bytes, read this naive way, equal to what tamga delivers. A failure stops the fuzzer with the reason.
struct SingleReadingOracle {
    let bytes: [UInt8]

    struct Entry {
        let name: [UInt8]
        let flags: UInt16
        let method: UInt16
        let compressedSize: UInt64
        let offset: UInt64
    }

    /// Central entries by name, read the naive way; stops the fuzzer at the first broken rule.
    func entries() -> [String: Entry] {
        let last = lastIndex(of: [0x50, 0x4B, 0x05, 0x06])
        guard let last, last + 22 <= bytes.count else {
            fail("tamga opened an archive whose last PK\\5\\6 cannot be an end record")
        }
        let commentLength = Int(u16(last + 20))
        check(
            last + 22 + commentLength == bytes.count,
            "the last end record's comment does not run exactly to the end of the file")
        let comment = bytes[(last + 22)...]
        let signatures: Set<[UInt8]> = [[1, 2], [3, 4], [5, 6], [6, 6], [6, 7], [7, 8], [5, 5], [6, 8]]
        for i in comment.indices.dropLast(3)
        where comment[i] == 0x50 && comment[i + 1] == 0x4B && signatures.contains([comment[i + 2], comment[i + 3]]) {
            fail("the archive comment holds a ZIP record signature")
        }
        var count = UInt64(u16(last + 10)), size = UInt64(u32(last + 12)), offset = UInt64(u32(last + 16))
        var directoryEnd = UInt64(last)
        // As Python's zipfile: a locator in the 20 bytes before the end record, and its record
        // in the 56 bytes before that, whatever the locator's offset says.
        if last >= 76, u32(last - 20) == 0x0706_4B50 {
            let record = last - 76
            check(u32(record) == 0x0606_4B50, "a ZIP64 locator without its end record right before it")
            check(u64(last - 12) == UInt64(record), "a ZIP64 locator pointing elsewhere than the record before it")
            let zCount = u64(record + 32), zSize = u64(record + 40), zOffset = u64(record + 48)
            check(count == 0xFFFF || count == zCount, "ZIP64 and end record counts differ")
            check(size == 0xFFFF_FFFF || size == zSize, "ZIP64 and end record directory sizes differ")
            check(offset == 0xFFFF_FFFF || offset == zOffset, "ZIP64 and end record directory offsets differ")
            (count, size, offset) = (zCount, zSize, zOffset)
            directoryEnd = UInt64(record)
        }
        check(
            offset <= directoryEnd && size <= directoryEnd - offset && offset + size == directoryEnd,
            "the central directory does not end where the end records begin")
        check(bytes.count >= 4 && u32(0) == 0x0403_4B50, "the first local header is not at byte 0")

        var result: [String: Entry] = [:]
        var spans: [(UInt64, UInt64)] = []
        var p = Int(offset)
        for _ in 0..<count {
            check(
                p + 46 <= Int(directoryEnd) && u32(p) == 0x0201_4B50,
                "a central record where the count promises one is missing")
            let flags = u16(p + 8), method = u16(p + 10)
            var compressed = UInt64(u32(p + 20)), uncompressed = UInt64(u32(p + 24))
            let nameLength = Int(u16(p + 28)), extraLength = Int(u16(p + 30)), commentLength = Int(u16(p + 32))
            var local = UInt64(u32(p + 42))
            check(
                p + 46 + nameLength + extraLength + commentLength <= Int(directoryEnd),
                "a central record runs past the directory")
            let name = Array(bytes[(p + 46)..<(p + 46 + nameLength)])
            widen(
                extra: Array(bytes[(p + 46 + nameLength)..<(p + 46 + nameLength + extraLength)]), &uncompressed,
                &compressed, &local)
            check(flags & 0x0800 != 0 || name.allSatisfy { $0 < 0x80 }, "a non-ASCII name without the UTF-8 flag")
            let mode = u32(p + 38) >> 16 & 0o170000, folder = name.last == UInt8(ascii: "/")
            check(
                mode == 0 || mode == (folder ? 0o040000 : 0o100000),
                "an entry whose Unix mode makes extractors write something else than it")
            check(folder || u32(p + 38) & 0x10 == 0, "a file with the MS-DOS folder attribute")
            let l = Int(local)
            check(
                local < offset && l + 30 <= Int(offset) && u32(l) == 0x0403_4B50,
                "a central record whose local header is missing")
            check(u16(l + 6) & ~0x0006 == flags & ~0x0006, "local and central flags differ")
            check(u16(l + 8) == method, "local and central methods differ")
            let localName = Int(u16(l + 26)), localExtra = Int(u16(l + 28))
            check(
                l + 30 + localName + localExtra <= Int(offset) && Array(bytes[(l + 30)..<(l + 30 + localName)]) == name,
                "the local header names another entry")
            let dataStart = local + 30 + UInt64(localName) + UInt64(localExtra)
            check(
                compressed <= offset && dataStart <= offset - compressed, "entry data runs into the central directory")
            spans.append((local, dataStart + compressed))
            result[String(decoding: name, as: UTF8.self)] = Entry(
                name: name, flags: flags, method: method, compressedSize: compressed,
                offset: dataStart)
            p += 46 + nameLength + extraLength + commentLength
        }
        let sorted = spans.sorted { $0.0 < $1.0 }
        check(sorted.first.map { $0.0 == 0 } ?? true, "the first entry does not start at byte 0")
        for (a, b) in zip(sorted, sorted.dropFirst()) { check(a.1 <= b.0, "two entries overlap") }
        return result
    }

    /// The stored bytes of `entry`, read straight from the file.
    func storedData(_ entry: Entry) -> [UInt8]? {
        guard entry.method == 0 else { return nil }
        return Array(bytes[Int(entry.offset)..<Int(entry.offset + entry.compressedSize)])
    }

    // MARK: - little-endian fields (the oracle checked the bounds that matter before each read)

    private func u16(_ i: Int) -> UInt16 { i + 2 <= bytes.count ? UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 : 0 }
    private func u32(_ i: Int) -> UInt32 { i + 4 <= bytes.count ? UInt32(u16(i)) | UInt32(u16(i + 2)) << 16 : 0 }
    private func u64(_ i: Int) -> UInt64 { i + 8 <= bytes.count ? UInt64(u32(i)) | UInt64(u32(i + 4)) << 32 : 0 }

    private func widen(extra: [UInt8], _ uncompressed: inout UInt64, _ compressed: inout UInt64, _ offset: inout UInt64)
    {
        var i = 0
        while i + 4 <= extra.count {
            let id = UInt16(extra[i]) | UInt16(extra[i + 1]) << 8,
                length = Int(UInt16(extra[i + 2]) | UInt16(extra[i + 3]) << 8)
            guard i + 4 + length <= extra.count else { return }
            if id == 0x0001 {
                var j = i + 4
                func next() -> UInt64 {
                    defer { j += 8 }
                    guard j + 8 <= i + 4 + length else { return 0 }
                    return (0..<8).reduce(UInt64(0)) { $0 | UInt64(extra[j + $1]) << (8 * $1) }
                }
                if uncompressed == 0xFFFF_FFFF { uncompressed = next() }
                if compressed == 0xFFFF_FFFF { compressed = next() }
                if offset == 0xFFFF_FFFF { offset = next() }
                return
            }
            i += 4 + length
        }
    }

    private func lastIndex(of signature: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var i = bytes.count - 4
        while i >= max(0, bytes.count - 22 - 65_535 - 4) {
            if bytes[i] == signature[0], bytes[i + 1] == signature[1], bytes[i + 2] == signature[2],
                bytes[i + 3] == signature[3]
            {
                return i
            }
            i -= 1
        }
        return nil
    }

    private func check(_ condition: Bool, _ rule: String) { if !condition { fail(rule) } }

    private func fail(_ rule: String) -> Never {
        FileHandle.standardError.write(Data("FuzzZip oracle: tamga opened an archive although \(rule)\n".utf8))
        abort()
    }
}
