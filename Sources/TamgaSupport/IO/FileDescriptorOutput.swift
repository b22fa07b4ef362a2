import Glibc

/// Writes to a file descriptor until every byte is out (or the descriptor fails): what
/// `FileHandle.standardError.write` did, without Foundation. A pipe whose reader has gone is
/// not an error here; the program's SIGPIPE handling decides.
public enum FileDescriptorOutput {
    public static let standardOutput: Int32 = 1
    public static let standardError: Int32 = 2

    /// Writes `bytes` to `descriptor`; false when it could not write them all.
    @discardableResult
    public static func write<Bytes: Collection>(_ bytes: Bytes, to descriptor: Int32) -> Bool
    where Bytes.Element == UInt8 {
        let array = Array(bytes)
        return array.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    @discardableResult
    public static func write(_ text: String, to descriptor: Int32) -> Bool { write(Array(text.utf8), to: descriptor) }

    /// Reads at most `limit` bytes from `descriptor` (a file, a pipe, /dev/fd/N) until its end;
    /// nil when reading fails. One byte more than the caller's own limit tells it the input
    /// was too long.
    public static func read(_ descriptor: Int32, limit: Int) -> [UInt8]? {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while result.count < limit {
            let wanted = min(chunk.count, limit - result.count)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            result.append(contentsOf: chunk[0..<count])
        }
        return result
    }
}
