internal import CPosix
import FoundationEssentials
import Glibc

#if canImport(Glibc)
import Glibc
#endif

/// A new file written beside its final path and moved into place only when complete:
/// write to a temporary file in the same folder, fsync it, rename it over the target, fsync
/// the folder. Until `commit()` the target is untouched; `abandon()` (or deinit) removes the
/// temporary file, so an error or a crash at any point leaves the original byte-for-byte intact.
final class AtomicOutputFile {
    let targetPath: String
    private(set) var temporaryPath: String
    private var descriptor: Int32
    private var committed = false
    /// Bytes written so far (the current end of the file).
    private(set) var position: UInt64 = 0
    /// Where write-back was last started (`startWriteback`).
    private var writebackStarted: UInt64 = 0
    /// Write-back is started behind the writes every this many bytes.
    static let writebackStep: UInt64 = 8 << 20

    /// `.NAME.tamga-` with NAME cut (at a character boundary) so that the whole name stays well
    /// below NAME_MAX.
    static func temporaryPrefix(for name: String) -> String {
        var stem = ""
        for character in name {
            guard stem.utf8.count + String(character).utf8.count <= 200 else { break }
            stem.append(character)
        }
        return ".\(stem).tamga-"
    }

    /// Removes what killed runs left for this target: `PREFIX` plus mkstemp's six characters,
    /// a regular file, untouched for a minute, and not locked by a live writer.
    static func removeStaleTemporaries(prefix: String, in folder: String, olderThan age: TimeInterval = 60) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let now = Date().timeIntervalSince1970
        for name in names where name.hasPrefix(prefix) {
            let suffix = name.utf8.dropFirst(prefix.utf8.count)
            guard suffix.count == 6,
                suffix.allSatisfy({
                    ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A)
                })
            else { continue }
            let path = folder + "/" + name
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, now - Double(info.st_mtim.tv_sec) > age,
                flock(fd, LOCK_EX | LOCK_NB) == 0
            else { continue }
            unlink(path)
        }
    }

    init(replacing requestedPath: String) throws {
        // Writing through a symlink replaces the file it points at, not the link.
        var existing = stat()
        let exists = stat(requestedPath, &existing) == 0
        var resolved = requestedPath
        if exists, let real = realpath(requestedPath, nil) {
            // A real path that is not UTF-8 cannot be a String: keep the requested one (the CLI
            // reaches such files through /proc/self/fd/N/NAME, which writes beside work in).
            if let text = String(validatingCString: real) { resolved = text }
            free(real)
        }
        self.targetPath = resolved
        let folder = URL(fileURLWithPath: resolved).deletingLastPathComponent().path
        // Named after the target (".NAME.tamga-XXXXXX"), so a person can tell what it was, and
        // so the next write of the same target can find what a killed run left behind.
        let prefix = Self.temporaryPrefix(for: URL(fileURLWithPath: resolved).lastPathComponent)
        Self.removeStaleTemporaries(prefix: prefix, in: folder)
        var template = Array("\(folder)/\(prefix)XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else {
            throw ContainerError.ioFailure(
                path: targetPath,
                reason: "cannot create a temporary file in \(folder): \(String(cString: strerror(errno)))")
        }
        // Held until the file is renamed or removed (the kernel drops it if the process dies):
        // a temporary file nobody holds is a leftover.
        _ = flock(fd, LOCK_EX | LOCK_NB)
        descriptor = fd
        temporaryPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        TemporaryFiles.register(temporaryPath)
        if exists {
            // Keep the original's permissions and owner: signing a private document must not
            // make it readable by others.
            fchmod(fd, existing.st_mode & 0o7777)
            _ = fchown(fd, existing.st_uid, existing.st_gid)
        } else {
            // mkstemp creates 0600; a new container is a document: 0666 minus the umask.
            let mask = umask(0)
            umask(mask)
            fchmod(fd, 0o666 & ~mask)
        }
    }

    deinit { if !committed { abandon() } }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw ContainerError.ioFailure(
                    path: targetPath, reason: "write failed: \(String(cString: strerror(errno)))")
            }
            done += n
        }
        position += UInt64(bytes.count)
        if position - writebackStarted >= Self.writebackStep { startWriteback() }
    }

    /// Starts the disk writes of what was written since the last call, without waiting: the
    /// fsync in `commit()` then waits for the last few megabytes only, not for the whole file
    /// (200 MB: 80 ms of waiting at the end without it). A file system without
    /// sync_file_range just leaves it all to the fsync.
    private func startWriteback() {
        _ = cposix_start_writeback(descriptor, Int64(writebackStarted), Int64(position - writebackStarted))
        writebackStarted = position
    }

    func write(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try write($0) } }
    func write(_ data: Data) throws { try data.withUnsafeBytes { try write($0) } }

    /// Appends `length` bytes of `input` from `offset`, in the kernel where it can
    /// (`copy_file_range`: no copy through user space, a reflink on file systems that share
    /// extents), falling back to read and write.
    func append(from input: InputFile, offset: UInt64, length: UInt64) throws {
        var sourceOffset = Int64(offset)
        var remaining = length
        while remaining > 0 {
            let n = cposix_copy_file_range(
                input.descriptor, &sourceOffset, descriptor, nil, Int(min(remaining, 1 << 30)))
            if n > 0 {
                remaining -= UInt64(n)
                position += UInt64(n)
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n == 0 { throw ContainerError.malformedZip("unexpected end of file while copying an entry") }
            // EXDEV, ENOSYS, EINVAL…: the kernel cannot do it here; copy through a buffer.
            try input.stream(from: UInt64(sourceOffset), length: remaining) { try write($0) }
            return
        }
    }

    /// Overwrites bytes already written (used to patch a local header once sizes are known).
    func patch(_ bytes: [UInt8], at offset: UInt64) throws {
        guard !bytes.isEmpty else { return }
        let n = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
        guard n == bytes.count else {
            throw ContainerError.ioFailure(
                path: targetPath, reason: "write failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Makes the written bytes durable and closes the file, leaving the rename to `commit()`:
    /// extraction stages every file this way first, so that a failure while reading any of
    /// them replaces nothing, without holding a descriptor per file.
    func finishWriting() throws {
        guard descriptor >= 0 else { return }
        guard fsync(descriptor) == 0 else {
            throw ContainerError.ioFailure(
                path: targetPath, reason: "fsync failed: \(String(cString: strerror(errno)))")
        }
        Glibc.close(descriptor)
        descriptor = -1
    }

    /// Makes the new file durable and moves it over the target.
    func commit() throws {
        try finishWriting()
        guard rename(temporaryPath, targetPath) == 0 else {
            let reason = String(cString: strerror(errno))
            abandon()
            throw ContainerError.ioFailure(path: targetPath, reason: "rename failed: \(reason)")
        }
        committed = true
        TemporaryFiles.unregister(temporaryPath)
        syncFolder(of: targetPath)
    }

    /// Removes the temporary file; the target is left as it was.
    func abandon() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
        if !committed { unlink(temporaryPath) }
        TemporaryFiles.unregister(temporaryPath)
        committed = true
    }
}

/// fsyncs the folder holding `path`, so that a rename or unlink survives a crash.
func syncFolder(of path: String) {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd >= 0 {
        fsync(fd)
        close(fd)
    }
}

/// A whole small file written the way containers are (`AtomicOutputFile`): beside its path,
/// fsynced and renamed into place, so a reader sees the old file or the new one and a failure
/// leaves neither half a file nor a temporary one (`tamga compare --report`).
public enum AtomicFile {
    public static func write(_ bytes: [UInt8], to path: String) throws {
        let file = try AtomicOutputFile(replacing: path)
        do {
            try file.write(bytes)
            try file.commit()
        } catch {
            file.abandon()
            throw error
        }
    }
}
