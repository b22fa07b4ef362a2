import FoundationEssentials
import Glibc

/// Writes a ZIP archive front to back into an `AtomicOutputFile`, without data descriptors:
/// each local header is patched with the CRC and sizes once the entry's data is written, as
/// the reference does. ZIP64 records are written only where a size or offset needs them.
final class ZipWriter {
    private let output: AtomicOutputFile
    private var central: [(entry: ZipEntry, nameBytes: [UInt8])] = []

    /// Entries at least this large get ZIP64 local headers up front: deflate can grow
    /// incompressible data slightly, and the header size cannot change after the data is written.
    static let zip64Threshold: UInt64 = 0xFFFF_0000

    init(output: AtomicOutputFile) { self.output = output }

    /// Writes an entry from bytes in memory.
    func add(name: String, data: Data, method: ZipEntry.Method, modified: Date) throws {
        try data.withUnsafeBytes { raw in
            try add(name: name, method: method, modified: modified, expectedSize: UInt64(raw.count)) { feed in
                try feed(raw)
            }
        }
    }

    /// Writes an entry whose uncompressed bytes `produce` passes to `feed` piece by piece.
    /// - Parameter expectedSize: the uncompressed size if known (decides the ZIP64 header).
    /// - Parameter alongside: also given every piece (say, a digest); for a deflated entry it
    ///   runs at the same time as the compression, on the other core.
    func add(
        name: String, method: ZipEntry.Method, modified: Date, expectedSize: UInt64,
        alongside: ((UnsafeRawBufferPointer) -> Void)? = nil,
        produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        let nameBytes = Array(name.utf8)
        let headerOffset = output.position
        let zip64 = expectedSize >= Self.zip64Threshold
        let dos = DOSDateTime.encode(modified)
        try output.write(
            localHeader(nameBytes: nameBytes, method: method, dos: dos, crc: 0, csize: 0, usize: 0, zip64: zip64))
        let dataOffset = output.position
        var crc: UInt32 = 0
        var usize: UInt64 = 0
        switch method {
        case .stored:
            try produce { chunk in
                alongside?(chunk)
                crc = crc32Update(crc, chunk)
                usize += UInt64(chunk.count)
                try output.write(chunk)
            }
        case .deflated:
            // Z_DEFAULT_COMPRESSION (6), as the reference; the pieces of each chunk on both
            // cores, the CRC-32 (and `alongside`) beside them.
            let deflater = try ParallelDeflater(level: -1)
            try produce { chunk in
                usize += UInt64(chunk.count)
                try deflater.compress(
                    chunk,
                    alongside: {
                        crc = crc32Update(crc, chunk)
                        alongside?(chunk)
                    }
                ) { try output.write($0) }
            }
            try deflater.finish { try output.write($0) }
        }
        let csize = output.position - dataOffset
        if !zip64 && (usize >= 0xFFFF_FFFF || csize >= 0xFFFF_FFFF) {
            throw ContainerError.ioFailure(
                path: output.targetPath, reason: "\(name) grew past 4 GiB while being written")
        }
        try output.patch(
            localHeader(
                nameBytes: nameBytes, method: method, dos: dos, crc: crc, csize: csize, usize: usize, zip64: zip64),
            at: headerOffset)
        record(
            ZipEntry(
                name: name, method: method, flags: 0x0800, crc32: crc, compressedSize: csize, uncompressedSize: usize,
                localHeaderOffset: headerOffset, dataOffset: dataOffset, localExtraLength: zip64 ? 20 : 0,
                dosTime: dos.time, dosDate: dos.date), nameBytes: nameBytes)
    }

    /// Copies an entry from another archive as it is, without recompressing: the CRC and the
    /// compressed bytes stay identical, so a signed data file cannot change in the copy.
    func copy(_ entry: ZipEntry, from reader: ZipReader) throws {
        let nameBytes = Array(entry.name.utf8)
        let headerOffset = output.position
        let zip64 = entry.uncompressedSize >= 0xFFFF_FFFF || entry.compressedSize >= 0xFFFF_FFFF
        let dos = (time: entry.dosTime, date: entry.dosDate)
        try output.write(
            localHeader(
                nameBytes: nameBytes, method: entry.method, dos: dos, crc: entry.crc32,
                csize: entry.compressedSize, usize: entry.uncompressedSize, zip64: zip64))
        let dataOffset = output.position
        try output.append(from: reader.file, offset: entry.dataOffset, length: entry.compressedSize)
        record(
            ZipEntry(
                name: entry.name, method: entry.method, flags: 0x0800, crc32: entry.crc32,
                compressedSize: entry.compressedSize, uncompressedSize: entry.uncompressedSize,
                localHeaderOffset: headerOffset, dataOffset: dataOffset, localExtraLength: zip64 ? 20 : 0,
                dosTime: dos.time, dosDate: dos.date), nameBytes: nameBytes)
    }

    private func record(_ entry: ZipEntry, nameBytes: [UInt8]) {
        central.append((entry, nameBytes))
    }

    private func localHeader(
        nameBytes: [UInt8], method: ZipEntry.Method, dos: (time: UInt16, date: UInt16),
        crc: UInt32, csize: UInt64, usize: UInt64, zip64: Bool
    ) -> [UInt8] {
        var w = LittleEndianWriter()
        w.u32(0x0403_4B50)
        w.u16(zip64 ? 45 : 20)  // version needed: 2.0, or 4.5 for ZIP64
        w.u16(0x0800)  // names are UTF-8
        w.u16(method.rawValue)
        w.u16(dos.time)
        w.u16(dos.date)
        w.u32(crc)
        w.u32(zip64 ? 0xFFFF_FFFF : UInt32(csize))
        w.u32(zip64 ? 0xFFFF_FFFF : UInt32(usize))
        w.u16(UInt16(nameBytes.count))
        w.u16(zip64 ? 20 : 0)
        w.append(nameBytes)
        if zip64 {
            w.u16(0x0001)
            w.u16(16)
            w.u64(usize)
            w.u64(csize)
        }
        return w.bytes
    }

    /// Writes the central directory and the end records. The archive is complete afterwards.
    func finish() throws {
        let cdOffset = output.position
        for (entry, nameBytes) in central {
            var extra = LittleEndianWriter()
            let bigU = entry.uncompressedSize >= 0xFFFF_FFFF, bigC = entry.compressedSize >= 0xFFFF_FFFF
            let bigO = entry.localHeaderOffset >= 0xFFFF_FFFF
            if bigU || bigC || bigO {
                var body = LittleEndianWriter()
                if bigU { body.u64(entry.uncompressedSize) }
                if bigC { body.u64(entry.compressedSize) }
                if bigO { body.u64(entry.localHeaderOffset) }
                extra.u16(0x0001)
                extra.u16(UInt16(body.bytes.count))
                extra.append(body.bytes)
            }
            let needs64 = !extra.bytes.isEmpty || entry.localExtraLength == 20
            var w = LittleEndianWriter()
            w.u32(0x0201_4B50)
            w.u16(3 << 8 | 45)  // made by: UNIX, 4.5
            w.u16(needs64 ? 45 : 20)
            w.u16(entry.flags)
            w.u16(entry.method.rawValue)
            w.u16(entry.dosTime)
            w.u16(entry.dosDate)
            w.u32(entry.crc32)
            w.u32(bigC ? 0xFFFF_FFFF : UInt32(entry.compressedSize))
            w.u32(bigU ? 0xFFFF_FFFF : UInt32(entry.uncompressedSize))
            w.u16(UInt16(nameBytes.count))
            w.u16(UInt16(extra.bytes.count))
            w.u16(0)  // no comment
            w.u16(0)  // disk
            w.u16(0)  // internal attributes
            w.u32(UInt32(0o100644) << 16)  // regular file, rw-r--r--
            w.u32(bigO ? 0xFFFF_FFFF : UInt32(entry.localHeaderOffset))
            w.append(nameBytes)
            w.append(extra.bytes)
            try output.write(w.bytes)
        }
        let cdSize = output.position - cdOffset
        let count = UInt64(central.count)
        if count >= 0xFFFF || cdSize >= 0xFFFF_FFFF || cdOffset >= 0xFFFF_FFFF {
            let zip64EndOffset = output.position
            var z = LittleEndianWriter()
            z.u32(0x0606_4B50)
            z.u64(44)
            z.u16(3 << 8 | 45)
            z.u16(45)
            z.u32(0)
            z.u32(0)
            z.u64(count)
            z.u64(count)
            z.u64(cdSize)
            z.u64(cdOffset)
            z.u32(0x0706_4B50)
            z.u32(0)
            z.u64(zip64EndOffset)
            z.u32(1)
            try output.write(z.bytes)
        }
        var e = LittleEndianWriter()
        e.u32(0x0605_4B50)
        e.u16(0)
        e.u16(0)
        e.u16(UInt16(min(count, 0xFFFF)))
        e.u16(UInt16(min(count, 0xFFFF)))
        e.u32(UInt32(min(cdSize, 0xFFFF_FFFF)))
        e.u32(UInt32(min(cdOffset, 0xFFFF_FFFF)))
        e.u16(0)
        try output.write(e.bytes)
    }
}
