import FoundationEssentials
import Glibc

/// Reads a ZIP archive strictly: the central directory is authoritative, every local header
/// must agree with it, entries may not overlap, and nothing is decompressed until asked.
/// Entry data is streamed, so the archive's size does not matter.
final class ZipReader: @unchecked Sendable {  // unchecked: immutable after init; InputFile reads with pread
    let file: InputFile
    /// Entries in central-directory order.
    let entries: [ZipEntry]
    /// Offset of the central directory: everything before it is entry data.
    let centralDirectoryOffset: UInt64

    static let maxEntries = 100_000

    init(path: String) throws {
        file = try InputFile(path: path)
        (entries, centralDirectoryOffset) = try ZipReader.readDirectory(file)
    }

    private static func readDirectory(_ file: InputFile) throws -> ([ZipEntry], UInt64) {
        let end = try ZipEndRecord.read(from: file)
        let entryCount = end.entryCount, cdSize = end.centralDirectorySize, cdOffset = end.centralDirectoryOffset
        guard entryCount <= UInt64(maxEntries) else {
            throw ContainerError.unsupportedZip("more than \(maxEntries) entries")
        }
        guard cdSize <= 64 << 20 else { throw ContainerError.unsupportedZip("a central directory over 64 MB") }
        let directory = try file.read(count: Int(cdSize), at: cdOffset)
        var d = LittleEndianReader(directory)
        var entries: [ZipEntry] = []
        entries.reserveCapacity(Int(entryCount))
        for _ in 0..<entryCount {
            guard try d.u32() == 0x0201_4B50 else { throw ContainerError.malformedZip("corrupt central directory") }
            let madeBy = try d.u16()
            _ = try d.u16()
            let flags = try d.u16(), methodRaw = try d.u16()
            let time = try d.u16(), date = try d.u16()
            let crc = try d.u32()
            var csize = UInt64(try d.u32()), usize = UInt64(try d.u32())
            let nameLength = Int(try d.u16()), extraLength = Int(try d.u16()), commentLength = Int(try d.u16())
            let diskStart = try d.u16()
            _ = try d.u16()
            let externalAttributes = try d.u32()
            var offset = UInt64(try d.u32())
            let nameBytes = try d.take(nameLength)
            let extra = try d.take(extraLength)
            _ = try d.take(commentLength)
            guard let name = String(validating: nameBytes, as: UTF8.self) else {
                throw ContainerError.unsafeEntryName(String(decoding: nameBytes, as: UTF8.self))
            }
            try Self.checkNameEncoding(nameBytes, name: name, flags: flags)
            try Self.checkFileType(name: name, madeBy: madeBy, externalAttributes: externalAttributes)
            try Self.checkExtraField(extra, nameBytes: nameBytes, name: name, header: "central")
            if let widened = try Self.zip64Fields(in: extra, uncompressed: usize, compressed: csize, offset: offset) {
                (usize, csize, offset) = widened
            }
            guard flags & 0x0001 == 0 else { throw ContainerError.unsupportedZip("\(name) is encrypted") }
            guard diskStart == 0 || diskStart == 0xFFFF else {
                throw ContainerError.unsupportedZip("multi-disk archives")
            }
            guard let method = ZipEntry.Method(rawValue: methodRaw) else {
                throw ContainerError.unsupportedZip(
                    "\(name) uses compression method \(methodRaw); only stored and deflate are read")
            }
            if method == .stored, csize != usize {
                throw ContainerError.malformedZip("\(name) is stored but its sizes differ")
            }
            // The local header must name the same entry; its extra field length may differ.
            guard offset <= cdOffset, cdOffset - offset >= 30 else {
                throw ContainerError.malformedZip("\(name): local header outside the archive data")
            }
            var local = LittleEndianReader(try file.read(count: 30, at: offset))
            guard try local.u32() == 0x0403_4B50 else { throw ContainerError.malformedZip("\(name): bad local header") }
            local.index = 6
            let localFlags = try local.u16()
            let localMethod = try local.u16()
            local.index = 14
            let localCRC = try local.u32(), localCompressed = try local.u32(), localUncompressed = try local.u32()
            let localNameLength = Int(try local.u16()), localExtraLength = Int(try local.u16())
            let localName = try file.read(count: localNameLength, at: offset + 30)
            guard localName == nameBytes else {
                throw ContainerError.malformedZip("\(name): the local header names a different entry")
            }
            // A reader that walks local headers (unzip's streaming mode, many libraries) must see
            // exactly what the central directory says, or the two could disagree on content.
            guard localMethod == methodRaw else {
                throw ContainerError.malformedZip("\(name): local and central compression methods differ")
            }
            // Bits 1 and 2 only record how hard the writer compressed; every other bit changes
            // how the entry is read (encryption, data descriptor, name encoding, masked headers).
            guard localFlags & ~0x0006 == flags & ~0x0006 else {
                throw ContainerError.ambiguousZip(
                    "\(name): the local header's flags (\(Self.hex16(localFlags))) differ from the central directory's (\(Self.hex16(flags))): readers that stream local headers would read the entry differently"
                )
            }
            let localExtra = try file.read(count: localExtraLength, at: offset + 30 + UInt64(localNameLength))
            try Self.checkExtraField(localExtra, nameBytes: nameBytes, name: name, header: "local")
            let localZIP64 = try Self.extraField(0x0001, in: localExtra) != nil
            if flags & 0x0008 != 0 {
                // The sizes and CRC follow the data; here they are zero, or (as some writers do)
                // the real values, which must then be the central directory's. Placeholders
                // (0xFFFFFFFF) only beside a ZIP64 field: without one, libarchive takes them for sizes.
                let placeholders = localCompressed == 0xFFFF_FFFF || localUncompressed == 0xFFFF_FFFF
                guard localCRC == 0 || localCRC == crc, !placeholders || localZIP64,
                    placeholders || localCompressed == 0 || UInt64(localCompressed) == csize,
                    placeholders || localUncompressed == 0 || UInt64(localUncompressed) == usize
                else {
                    throw ContainerError.dataDescriptorMismatch(
                        "\(name): the local header's CRC or sizes differ from the central directory")
                }
            } else {
                var sizes = (UInt64(localCompressed), UInt64(localUncompressed))
                if localCompressed == 0xFFFF_FFFF || localUncompressed == 0xFFFF_FFFF {
                    guard let widened = try Self.zip64Fields(in: localExtra, uncompressed: sizes.1, compressed: sizes.0)
                    else {
                        throw ContainerError.malformedZip("\(name): a ZIP64 local header without its sizes")
                    }
                    sizes = (widened.1, widened.0)
                }
                guard localCRC == crc, sizes.0 == csize, sizes.1 == usize else {
                    throw ContainerError.malformedZip(
                        "\(name): the local header's CRC or sizes differ from the central directory")
                }
            }
            let dataOffset = offset + 30 + UInt64(localNameLength) + UInt64(localExtraLength)
            guard dataOffset <= cdOffset, csize <= cdOffset - dataOffset else {
                throw ContainerError.malformedZip("\(name): data runs into the central directory")
            }
            var entry = ZipEntry(
                name: name, method: method, flags: flags, crc32: crc, compressedSize: csize,
                uncompressedSize: usize, localHeaderOffset: offset, dataOffset: dataOffset,
                localExtraLength: localExtraLength, dosTime: time, dosDate: date)
            entry.localHeaderHasZIP64 = localZIP64
            entries.append(entry)
        }
        guard d.index == directory.count else {
            throw ContainerError.malformedZip("the central directory holds more records than its end record counts")
        }
        // Entries must tile the archive: the first at byte 0, each starting where the previous one
        // ends (after its data descriptor, if any), the last ending at the central directory.
        // Gaps could hide entries that other readers see; overlaps are how ZIP bombs and quines work.
        let byOffset = entries.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
        var expected: UInt64 = 0
        for entry in byOffset {
            guard entry.localHeaderOffset == expected else {
                throw ContainerError.malformedZip(
                    entry.localHeaderOffset < expected
                        ? "entry \(entry.name) overlaps the one before it"
                        : "there are unlisted bytes before entry \(entry.name)")
            }
            expected = entry.dataOffset + entry.compressedSize
            if entry.flags & 0x0008 != 0 {
                expected += try descriptorLength(of: entry, in: file, at: expected, limit: cdOffset)
            }
        }
        guard expected == cdOffset else {
            throw ContainerError.malformedZip("there are unlisted bytes before the central directory")
        }
        return (entries, cdOffset)
    }

    /// The length of `entry`'s data descriptor at `offset`: 12 or 20 bytes (32- or 64-bit
    /// sizes), plus 4 with its optional signature. The layout is the one that ends where the
    /// next entry (or the central directory) starts; its CRC-32 and sizes must be the central
    /// directory's, which the data itself is checked against when it is read. A reader that
    /// streams local headers believes the descriptor, so a disagreeing one is refused. The sizes
    /// are 64-bit exactly when the local header holds a ZIP64 field (APPNOTE 4.3.9.2: that is how
    /// a streaming reader knows), and a stored entry's descriptor has its signature: without one
    /// a streaming reader cannot find where the entry ends.
    private static func descriptorLength(
        of entry: ZipEntry, in file: InputFile, at offset: UInt64, limit: UInt64
    ) throws -> UInt64 {
        guard offset <= limit, limit - offset >= 12 else {
            throw ContainerError.malformedZip("\(entry.name): a data descriptor is missing")
        }
        let remaining = limit - offset
        let bytes = try file.read(count: Int(min(remaining, 24)), at: offset)
        let hasSignature = bytes.starts(with: descriptorSignature)
        guard hasSignature || entry.method != .stored else {
            throw ContainerError.ambiguousZip(
                "\(entry.name) is stored with a data descriptor that has no signature (PK\\7\\8): a streaming reader cannot tell where it ends"
            )
        }
        var misfit: String? = nil
        let wide = entry.localHeaderHasZIP64
        // With the signature first: a CRC-32 could equal the signature's bytes, so both are tried.
        let layouts: [(signature: Bool, wide: Bool)] = (hasSignature ? [(true, wide), (false, wide)] : [(false, wide)])
            .filter { entry.method != .stored || $0.signature }
        for layout in layouts {
            let length = UInt64((layout.signature ? 4 : 0) + (layout.wide ? 20 : 12))
            guard length <= remaining else { continue }
            let endsRight =
                try length == remaining || file.read(count: 4, at: offset + length) == [0x50, 0x4B, 0x03, 0x04]
            guard endsRight else { continue }
            var r = LittleEndianReader(bytes, at: layout.signature ? 4 : 0)
            let crc = try r.u32()
            let compressed = layout.wide ? try r.u64() : UInt64(try r.u32())
            let uncompressed = layout.wide ? try r.u64() : UInt64(try r.u32())
            if crc == entry.crc32, compressed == entry.compressedSize, uncompressed == entry.uncompressedSize {
                return length
            }
            misfit =
                misfit
                ?? "\(entry.name): the data descriptor gives CRC-32 \(hex(crc)), \(compressed) bytes compressed, \(uncompressed) bytes; "
                + "the central directory gives CRC-32 \(hex(entry.crc32)), \(entry.compressedSize) and \(entry.uncompressedSize)"
        }
        if let misfit { throw ContainerError.dataDescriptorMismatch(misfit) }
        throw ContainerError.malformedZip("\(entry.name): an unreadable data descriptor")
    }

    /// A name that is not ASCII must say it is UTF-8 (flag bit 11): without it Python's zipfile
    /// decodes the bytes as code page 437 (and so finds no manifest entry of that name), where
    /// minizip, Java and tamga take them as UTF-8.
    private static func checkNameEncoding(_ bytes: [UInt8], name: String, flags: UInt16) throws {
        guard flags & 0x0800 == 0, bytes.contains(where: { $0 >= 0x80 }) else { return }
        throw ContainerError.ambiguousZip(
            "\(name): a name that is not ASCII without the UTF-8 flag (bit 11), which readers decode in different character sets"
        )
    }

    /// An entry must be what its name says: a file, or a folder when the name ends in `/`.
    /// Extractors create what the external attributes say: libarchive and unzip make a symbolic
    /// link, a device, a socket or a FIFO from a Unix mode (the high 16 bits) of that type, and a
    /// folder from the MS-DOS folder bit (0x10), so the file's bytes are not what they write.
    private static func checkFileType(name: String, madeBy: UInt16, externalAttributes: UInt32) throws {
        let isFolder = name.hasSuffix("/")
        let type = (externalAttributes >> 16) & 0o170000
        let regular: UInt32 = 0o100000, folder: UInt32 = 0o040000
        let typeFits = type == 0 || type == (isFolder ? folder : regular)
        let dosFolderBit = externalAttributes & 0x10 != 0
        guard typeFits, isFolder || !dosFolderBit else {
            let what: String
            switch type {
            case 0o120000: what = "a symbolic link"
            case 0o060000, 0o020000: what = "a device"
            case 0o140000: what = "a socket"
            case 0o010000: what = "a FIFO"
            case folder: what = "a folder"
            case regular: what = "a file"
            case 0: what = "a folder (MS-DOS folder attribute)"
            default: what = "a file of unknown type (mode \(String(externalAttributes >> 16, radix: 8)))"
            }
            throw ContainerError.ambiguousZip(
                "\(name): its attributes (made by host \(madeBy >> 8)) declare \(what), which extractors create instead of \(isFolder ? "a folder" : "a file with its bytes")"
            )
        }
    }

    /// The body of the first extra field `id` in `extra`, or nil.
    static func extraField(_ id: UInt16, in extra: [UInt8]) throws -> [UInt8]? {
        var reader = LittleEndianReader(extra)
        while reader.index + 4 <= extra.count {
            let fieldID = try reader.u16(), length = Int(try reader.u16())
            let body = try reader.take(length)
            if fieldID == id { return body }
        }
        return nil
    }

    /// The extra fields a reader acts on must leave one reading: one ZIP64 field (a second one
    /// is used by some readers, skipped by others), and an Info-ZIP Unicode Path field (0x7075,
    /// which unzip shows instead of the header's name) only when it names the entry the header names.
    private static func checkExtraField(_ extra: [UInt8], nameBytes: [UInt8], name: String, header: String) throws {
        var reader = LittleEndianReader(extra)
        var seen: Set<UInt16> = []
        while reader.index + 4 <= extra.count {
            let id = try reader.u16(), length = Int(try reader.u16())
            let body = try reader.take(length)
            guard id == 0x0001 || id == 0x7075 else { continue }
            guard seen.insert(id).inserted else {
                throw ContainerError.ambiguousZip(
                    "\(name): the \(header) header holds two \(id == 0x0001 ? "ZIP64" : "Unicode Path") extra fields, which readers pick between differently"
                )
            }
            if id == 0x7075, Array(body.dropFirst(5)) != nameBytes {
                throw ContainerError.ambiguousZip(
                    "\(name): the \(header) header's Unicode Path extra field names another entry (\(String(decoding: body.dropFirst(5), as: UTF8.self))), which Info-ZIP unzip shows instead of the name"
                )
            }
        }
    }

    private static func hex16(_ value: UInt16) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// Applies a ZIP64 extended-information extra field (id 0x0001): it holds 64-bit values only
    /// for the fields whose 32-bit value is 0xFFFFFFFF, in the order uncompressed size,
    /// compressed size, offset. Nil when there is no such field.
    private static func zip64Fields(
        in extra: [UInt8], uncompressed: UInt64, compressed: UInt64,
        offset: UInt64 = 0
    ) throws -> (UInt64, UInt64, UInt64)? {
        var reader = LittleEndianReader(extra)
        while reader.index + 4 <= extra.count {
            let id = try reader.u16(), length = Int(try reader.u16())
            let body = try reader.take(length)
            guard id == 0x0001 else { continue }
            var z = LittleEndianReader(body)
            let u = uncompressed == 0xFFFF_FFFF ? try z.u64() : uncompressed
            let c = compressed == 0xFFFF_FFFF ? try z.u64() : compressed
            let o = offset == 0xFFFF_FFFF ? try z.u64() : offset
            return (u, c, o)
        }
        return nil
    }

    /// Streams an entry's uncompressed bytes, checking its size and CRC-32 at the end.
    /// - Parameter limit: refuse (as a ZIP bomb) an entry declaring or inflating to more bytes.
    func stream(_ entry: ZipEntry, limit: UInt64 = .max, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard entry.uncompressedSize <= limit else {
            throw ContainerError.entryTooLarge(name: entry.name, limit: Int(clamping: limit))
        }
        var produced: UInt64 = 0
        var crc: UInt32 = 0
        try withoutActuallyEscaping(body) { body in
            let deliver: (UnsafeRawBufferPointer) throws -> Void = { chunk in
                produced += UInt64(chunk.count)
                guard produced <= entry.uncompressedSize else {
                    throw ContainerError.corruptEntry("\(entry.name) inflates to more bytes than its header declares")
                }
                crc = crc32Update(crc, chunk)
                try body(chunk)
            }
            switch entry.method {
            case .stored:
                // The reader's body (a digest, an extraction) on one core, the size and CRC-32
                // checks on the other. A stored entry's two sizes are the same; checked first, so
                // that the body never sees a byte past the declared size.
                guard entry.compressedSize <= entry.uncompressedSize else {
                    throw ContainerError.corruptEntry("\(entry.name) inflates to more bytes than its header declares")
                }
                // A stored entry with a data descriptor has no length a streaming reader can know:
                // libarchive ends it at the first `PK\7\8` whose CRC-32 fits the bytes before it,
                // so one inside the data would end the entry early there (Java's ZipInputStream
                // refuses such entries outright).
                var descriptorScan = entry.flags & 0x0008 != 0 ? SignatureScan(ZipReader.descriptorSignature) : nil
                try file.streamOnTwoCores(
                    from: entry.dataOffset, length: entry.compressedSize, first: body,
                    second: { chunk in
                        produced += UInt64(chunk.count)
                        guard produced <= entry.uncompressedSize else {
                            throw ContainerError.corruptEntry(
                                "\(entry.name) inflates to more bytes than its header declares")
                        }
                        crc = crc32Update(crc, chunk)
                        if descriptorScan?.finds(in: chunk) == true {
                            throw ContainerError.ambiguousZip(
                                "\(entry.name) is stored with a data descriptor and its data holds a data descriptor signature (PK\\7\\8), where streaming readers would end it"
                            )
                        }
                    })
            case .deflated:
                let inflater = Inflater()
                try file.stream(from: entry.dataOffset, length: entry.compressedSize) { raw in
                    try inflater.decompress(raw, entry: entry.name, sink: deliver)
                }
                guard inflater.finished else {
                    throw ContainerError.corruptEntry("\(entry.name): deflate data ends early")
                }
            }
        }
        guard produced == entry.uncompressedSize else {
            throw ContainerError.corruptEntry(
                "\(entry.name) holds \(produced) bytes, its header says \(entry.uncompressedSize)")
        }
        guard crc == entry.crc32 else { throw ContainerError.corruptEntry("\(entry.name) fails its CRC-32 check") }
    }

    static let descriptorSignature: [UInt8] = [0x50, 0x4B, 0x07, 0x08]

    /// Finds a 4-byte signature in data that arrives in pieces (it may straddle two).
    struct SignatureScan {
        let signature: [UInt8]
        /// The last three bytes seen, for a signature that straddles two pieces.
        private var carry: [UInt8] = []
        init(_ signature: [UInt8]) { self.signature = signature }

        mutating func finds(in chunk: UnsafeRawBufferPointer) -> Bool {
            let joined = carry + chunk.prefix(3)
            if joined.count >= 4,
                (0...(joined.count - 4)).contains(where: { joined[$0..<$0 + 4].elementsEqual(signature) })
            {
                return true
            }
            if chunk.count >= 4 {
                var i = 0
                while i + 4 <= chunk.count {
                    if chunk[i] == signature[0], chunk[i + 1] == signature[1], chunk[i + 2] == signature[2],
                        chunk[i + 3] == signature[3]
                    {
                        return true
                    }
                    i += 1
                }
            }
            carry = Array((carry + chunk.suffix(3)).suffix(3))
            return false
        }
    }

    /// Reads a small entry whole (manifest, signatures, mimetype).
    func read(_ entry: ZipEntry, limit: UInt64) throws -> Data {
        var data = Data()
        data.reserveCapacity(Int(min(entry.uncompressedSize, limit)))
        try stream(entry, limit: limit) { data.append(contentsOf: $0) }
        return data
    }
}
