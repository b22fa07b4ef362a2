import Glibc

/// The first bytes of a regular file, read with the C library: what
/// `FileHandle(forReadingAtPath:)` and `read(upToCount:)` did, without Foundation.
public enum FileBytes {
    /// At most `limit` bytes from the start of the regular file at `path`; nil when it cannot
    /// be opened, is not a regular file (a folder, a FIFO that would block), or reading fails.
    public static func read(_ path: String, limit: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return FileDescriptorOutput.read(descriptor, limit: limit)
    }

    /// Whether `path` names a regular file (symbolic links followed).
    public static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
