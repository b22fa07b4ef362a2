import FoundationEssentials
import Glibc

/// Where the central directory is, found the one way every mainstream reader agrees on.
///
/// ZIP readers do not find the end-of-central-directory record (EOCD) the same way, and an
/// archive can be built so that they find different ones, each naming a different central
/// directory with different files under the same names:
/// - Python's zipfile, Info-ZIP unzip, minizip, libarchive and Java's ZipFile take the *last*
///   `PK\5\6` in the file's last 64 KiB (Go's archive/zip takes the last one whose comment length
///   fits in the file; Java falls back to an earlier one when the last is implausible);
/// - Python's zipfile then believes a ZIP64 locator in the 20 bytes before the EOCD whenever it
///   is there (and reads the 56-byte ZIP64 end record right before it, whatever the locator's
///   offset says), where other readers look at ZIP64 only when an EOCD field is saturated;
/// - Info-ZIP unzip and Python's zipfile treat bytes between the central directory and the EOCD
///   as a shift of every offset (a self-extractor's prefix), other readers do not.
///
/// So the record is read only when all of these agree: the last `PK\5\6` is the EOCD, its comment
/// runs exactly to the end of the file and holds no ZIP record signature, the central directory
/// ends where the EOCD (or the ZIP64 end record) starts, and a ZIP64 locator, when present, is
/// well formed, points at a well-formed ZIP64 end record directly after the central directory and
/// agrees with every EOCD field that is not saturated. Anything else is `ambiguousZip`.
struct ZipEndRecord: Equatable {
    let entryCount: UInt64
    let centralDirectoryOffset: UInt64
    let centralDirectorySize: UInt64
    /// Where the EOCD record starts.
    let endRecordOffset: UInt64
    /// Whether the sizes came from a ZIP64 end record.
    let isZIP64: Bool

    static let endSignature: [UInt8] = [0x50, 0x4B, 0x05, 0x06]
    static let zip64EndSignature: UInt32 = 0x0606_4B50
    static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    /// The EOCD's fixed part; its comment is at most 65,535 bytes.
    static let endLength = 22
    static let zip64EndLength: UInt64 = 56
    static let zip64LocatorLength: UInt64 = 20

    /// The second pair of bytes of every record signature a reader might find in a comment
    /// (after `PK`): central header, local header, end, ZIP64 end and locator, data descriptor,
    /// digital signature, archive extra data. A reader that scans for any of them (recovery
    /// modes, streaming readers that lost their place) could start reading inside the comment.
    static let recordSignatureTails: [(UInt8, UInt8)] = [
        (1, 2), (3, 4), (5, 6), (6, 6), (6, 7), (7, 8), (5, 5), (6, 8),
    ]

    /// Locates and checks the end records of `file`.
    static func read(from file: InputFile) throws -> ZipEndRecord {
        let size = file.size
        guard size >= UInt64(endLength) else {
            throw ContainerError.malformedZip("the file is too short to be a ZIP archive")
        }
        let tailLength = Int(min(size, UInt64(endLength + 65_535)))
        let tailStart = size - UInt64(tailLength)
        let tail = try file.read(count: tailLength, at: tailStart)
        guard let last = lastEndSignature(in: tail) else {
            throw ContainerError.malformedZip("no end-of-central-directory record (the file is truncated or not a ZIP)")
        }
        guard last <= tailLength - endLength else {
            // Cut short, most likely a truncated file; ambiguous only when an earlier record
            // could be taken for the end instead.
            guard lastEndSignature(in: tail, before: last + 3) != nil else {
                throw ContainerError.malformedZip(
                    "the end-of-central-directory record is cut short (the file is truncated)")
            }
            throw ContainerError.ambiguousZip(
                "an end-of-central-directory signature lies in the last \(tailLength - last) bytes of the file, too close to the end to be a record: readers that take the last one fail, others take an earlier one"
            )
        }
        let commentLength = Int(tail[last + 20]) | Int(tail[last + 21]) << 8
        let following = tailLength - last - endLength
        guard commentLength == following else {
            throw ContainerError.ambiguousZip(
                commentLength < following
                    ? "\(following - commentLength) bytes follow the end of the ZIP archive (the end record's comment covers \(commentLength) of the \(following) after it): readers differ on where the archive ends"
                    : "the last end-of-central-directory record claims a \(commentLength)-byte comment where \(following) bytes remain: readers that need the comment to fit take an earlier record, others this one"
            )
        }
        // An earlier record whose comment runs exactly to the end of the file is another
        // reading of the same file (the one tamga took before 0.2: the archive behind it hidden
        // in its comment).
        var earlier = last - 1
        while earlier >= 0, let other = lastEndSignature(in: tail, before: earlier + 4) {
            if other + endLength <= tailLength,
                Int(tail[other + 20]) | Int(tail[other + 21]) << 8 == tailLength - other - endLength
            {
                throw ContainerError.ambiguousZip(
                    "the file holds two end-of-central-directory records, \(last - other) bytes apart, each of which can be read as the end of the archive: readers that take the last one read another archive than those that take the one whose comment runs to the end of the file"
                )
            }
            earlier = other - 1
        }
        let comment = tail[(last + endLength)...]
        if let signature = recordSignature(in: comment) {
            throw ContainerError.ambiguousZip(
                "the archive comment holds a ZIP record signature (\(signature)): a reader that scans for records would read the comment as part of the archive"
            )
        }
        let endOffset = tailStart + UInt64(last)
        var r = LittleEndianReader(tail, at: last + 4)
        let disk = try r.u16(), directoryDisk = try r.u16()
        let entriesOnDisk = try r.u16(), entries = try r.u16()
        let directorySize = try r.u32(), directoryOffset = try r.u32()
        guard disk == 0, directoryDisk == 0 else { throw ContainerError.unsupportedZip("multi-disk archives") }
        guard entriesOnDisk == entries else {
            throw ContainerError.ambiguousZip(
                "the end record counts \(entriesOnDisk) entries on this disk and \(entries) in all: readers take one or the other"
            )
        }
        let saturated = entries == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF
        if let zip64 = try zip64End(before: endOffset, in: file) {
            // Python's zipfile believes the ZIP64 values whenever the locator is there; other
            // readers only where an EOCD field is saturated: the two must say the same.
            guard entries == 0xFFFF || UInt64(entries) == zip64.entryCount,
                directorySize == 0xFFFF_FFFF || UInt64(directorySize) == zip64.centralDirectorySize,
                directoryOffset == 0xFFFF_FFFF || UInt64(directoryOffset) == zip64.centralDirectoryOffset
            else {
                throw ContainerError.ambiguousZip(
                    "the ZIP64 end record and the end record give different entry counts, sizes or offsets for the central directory: readers that follow the ZIP64 locator read another archive than those that do not"
                )
            }
            return try checked(
                ZipEndRecord(
                    entryCount: zip64.entryCount, centralDirectoryOffset: zip64.centralDirectoryOffset,
                    centralDirectorySize: zip64.centralDirectorySize, endRecordOffset: endOffset, isZIP64: true),
                directoryEnd: zip64.recordOffset)
        }
        guard !saturated else {
            throw ContainerError.ambiguousZip(
                "the end record has ZIP64 placeholder values (0xFFFF or 0xFFFFFFFF) but no ZIP64 locator before it")
        }
        return try checked(
            ZipEndRecord(
                entryCount: UInt64(entries), centralDirectoryOffset: UInt64(directoryOffset),
                centralDirectorySize: UInt64(directorySize), endRecordOffset: endOffset, isZIP64: false),
            directoryEnd: endOffset)
    }

    /// The central directory must end exactly where the end records begin: readers that meet a
    /// gap shift every offset by it (a self-extractor's prefix), others do not.
    private static func checked(_ record: ZipEndRecord, directoryEnd: UInt64) throws -> ZipEndRecord {
        // Written without sums of file values, which a hostile archive could make overflow.
        guard record.centralDirectoryOffset <= directoryEnd,
            record.centralDirectorySize <= directoryEnd - record.centralDirectoryOffset
        else {
            throw ContainerError.malformedZip("the central directory lies outside the file")
        }
        let gap = directoryEnd - record.centralDirectoryOffset - record.centralDirectorySize
        guard gap == 0 else {
            throw ContainerError.ambiguousZip(
                "\(gap) bytes lie between the central directory and the end record\(record.isZIP64 ? "s" : ""): readers that take them for a prefix read every entry at another offset"
            )
        }
        return record
    }

    private struct ZIP64End {
        let recordOffset: UInt64
        let entryCount: UInt64
        let centralDirectorySize: UInt64
        let centralDirectoryOffset: UInt64
    }

    /// The ZIP64 end record named by a locator in the 20 bytes before the EOCD; nil when there is
    /// no locator there. A locator is honoured or the archive refused, never ignored: its record
    /// must sit directly before it (where Python's zipfile reads it, whatever the locator says),
    /// at the offset the locator gives (where everyone else reads it), 56 bytes long.
    private static func zip64End(before endOffset: UInt64, in file: InputFile) throws -> ZIP64End? {
        guard endOffset >= zip64LocatorLength else { return nil }
        let locatorOffset = endOffset - zip64LocatorLength
        var locator = LittleEndianReader(try file.read(count: Int(zip64LocatorLength), at: locatorOffset))
        guard try locator.u32() == zip64LocatorSignature else { return nil }
        let recordDisk = try locator.u32()
        let recordOffset = try locator.u64()
        let disks = try locator.u32()
        guard recordDisk == 0, disks <= 1 else { throw ContainerError.unsupportedZip("multi-disk archives") }
        guard recordOffset <= locatorOffset else {
            throw ContainerError.malformedZip("the ZIP64 locator points past the end of the archive")
        }
        guard locatorOffset >= zip64EndLength, recordOffset == locatorOffset - zip64EndLength else {
            throw ContainerError.ambiguousZip(
                "the ZIP64 locator points at byte \(recordOffset), not at a 56-byte ZIP64 end record directly before it: readers disagree on which record to read"
            )
        }
        var z = LittleEndianReader(try file.read(count: Int(zip64EndLength), at: recordOffset))
        guard try z.u32() == zip64EndSignature else {
            throw ContainerError.ambiguousZip(
                "a ZIP64 locator names no ZIP64 end record: some readers ignore it, others refuse or read other values")
        }
        guard try z.u64() == zip64EndLength - 12 else {
            throw ContainerError.ambiguousZip(
                "the ZIP64 end record carries extensible data, which readers place differently")
        }
        _ = try z.u16()
        _ = try z.u16()  // made by, needed to extract
        guard try z.u32() == 0, try z.u32() == 0 else { throw ContainerError.unsupportedZip("multi-disk archives") }
        let entriesOnDisk = try z.u64(), entries = try z.u64()
        guard entriesOnDisk == entries else {
            throw ContainerError.ambiguousZip(
                "the ZIP64 end record counts \(entriesOnDisk) entries on this disk and \(entries) in all")
        }
        let size = try z.u64(), offset = try z.u64()
        return ZIP64End(
            recordOffset: recordOffset, entryCount: entries, centralDirectorySize: size, centralDirectoryOffset: offset)
    }

    /// The index of the last `PK\5\6` in `bytes` that ends before `limit`.
    static func lastEndSignature(in bytes: [UInt8], before limit: Int? = nil) -> Int? {
        let end = min(limit ?? bytes.count, bytes.count)
        guard end >= 4 else { return nil }
        var i = end - 4
        while i >= 0 {
            if bytes[i] == 0x50, bytes[i + 1] == 0x4B, bytes[i + 2] == 0x05, bytes[i + 3] == 0x06 { return i }
            i -= 1
        }
        return nil
    }

    /// The first ZIP record signature in `bytes`, as text (`PK\1\2`), or nil.
    static func recordSignature(in bytes: ArraySlice<UInt8>) -> String? {
        guard bytes.count >= 4 else { return nil }
        var i = bytes.startIndex
        while i + 3 < bytes.endIndex {
            if bytes[i] == 0x50, bytes[i + 1] == 0x4B,
                recordSignatureTails.contains(where: { $0.0 == bytes[i + 2] && $0.1 == bytes[i + 3] })
            {
                return "PK\\\(bytes[i + 2])\\\(bytes[i + 3])"
            }
            i += 1
        }
        return nil
    }
}
