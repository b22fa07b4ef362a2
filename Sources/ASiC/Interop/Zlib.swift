internal import CZlib
import FoundationEssentials
import Glibc

/// CRC-32 as ZIP uses it (zlib's `crc32_z`), continued over pieces.
func crc32Update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
    return UInt32(crc32_z(UInt(crc), base.assumingMemoryBound(to: UInt8.self), bytes.count))
}

/// Raw deflate (no zlib header), as ZIP method 8 stores it. Owns one `z_stream`.
final class Deflater {
    private var stream = z_stream()
    private var output = [UInt8](repeating: 0, count: 1 << 18)

    init(level: Int32) {
        precondition(czlib_deflate_init_raw(&stream, level) == Z_OK, "deflateInit2 failed")
    }
    deinit { deflateEnd(&stream) }

    /// Compresses `input`; `finish` flushes the end of the stream. Output goes to `sink`.
    func compress(_ input: UnsafeRawBufferPointer, finish: Bool, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = UInt32(input.count)
        let flush = finish ? Z_FINISH : Z_NO_FLUSH
        while true {
            let (status, produced) = output.withUnsafeMutableBytes { out -> (Int32, Int) in
                stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = UInt32(out.count)
                let status = deflate(&stream, flush)
                return (status, out.count - Int(stream.avail_out))
            }
            if produced > 0 {
                try output.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
            }
            if status == Z_STREAM_END { return }
            guard status == Z_OK || status == Z_BUF_ERROR else {
                throw ContainerError.ioFailure(path: "deflate", reason: "zlib error \(status)")
            }
            if !finish && stream.avail_in == 0 { return }
        }
    }
}

/// Raw inflate for ZIP method 8. Owns one `z_stream`.
final class Inflater {
    private var stream = z_stream()
    private var output = [UInt8](repeating: 0, count: 1 << 18)
    private(set) var finished = false

    init() {
        precondition(czlib_inflate_init_raw(&stream) == Z_OK, "inflateInit2 failed")
    }
    deinit { inflateEnd(&stream) }

    /// Inflates `input`, passing output to `sink`. Throws on corrupt data, and on bytes after the
    /// end of the deflate stream: the entry's compressed size must end where the stream ends, or
    /// a reader that follows the stream (streaming readers, which then look for the next header
    /// or the data descriptor) and one that follows the size would part ways.
    func decompress(
        _ input: UnsafeRawBufferPointer, entry: String, sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard !finished || input.isEmpty else { throw Self.trailing(entry) }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = UInt32(input.count)
        defer {
            stream.next_in = nil
            stream.avail_in = 0
        }
        while !finished {
            let (status, produced) = output.withUnsafeMutableBytes { out -> (Int32, Int) in
                stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = UInt32(out.count)
                let status = inflate(&stream, Z_NO_FLUSH)
                return (status, out.count - Int(stream.avail_out))
            }
            if produced > 0 {
                try output.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
            }
            switch status {
            case Z_STREAM_END:
                finished = true
                guard stream.avail_in == 0 else { throw Self.trailing(entry) }
            case Z_OK: if stream.avail_in == 0 && produced == 0 { return }
            case Z_BUF_ERROR: return  // needs more input
            default: throw ContainerError.corruptEntry("\(entry): deflate data is corrupt (zlib \(status))")
            }
            if stream.avail_in == 0 && stream.avail_out != 0 { return }
        }
    }

    private static func trailing(_ entry: String) -> ContainerError {
        .ambiguousZip(
            "\(entry): its compressed data goes on after the end of the deflate stream, so readers that follow the stream and readers that follow the compressed size find the next record in different places"
        )
    }
}
