#if canImport(Glibc)
import Glibc
#endif
import Foundation
internal import CPosix

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

    init(replacing requestedPath: String) throws {
        // Writing through a symlink replaces the file it points at, not the link.
        var existing = stat()
        let exists = stat(requestedPath, &existing) == 0
        var resolved = requestedPath
        if exists, let real = realpath(requestedPath, nil) {
            resolved = String(cString: real)
            free(real)
        }
        self.targetPath = resolved
        let folder = URL(fileURLWithPath: resolved).deletingLastPathComponent().path
        // A short name: a long target name plus a suffix could exceed NAME_MAX.
        var template = Array("\(folder)/.tamga-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw ContainerError.ioFailure(path: targetPath, reason: "cannot create a temporary file in \(folder): \(String(cString: strerror(errno)))")
        }
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
            let mask = umask(0); umask(mask)
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
                throw ContainerError.ioFailure(path: targetPath, reason: "write failed: \(String(cString: strerror(errno)))")
            }
            done += n
        }
        position += UInt64(bytes.count)
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
            let n = cposix_copy_file_range(input.descriptor, &sourceOffset, descriptor, nil, Int(min(remaining, 1 << 30)))
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
            throw ContainerError.ioFailure(path: targetPath, reason: "write failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Makes the written bytes durable and closes the file, leaving the rename to `commit()`:
    /// extraction stages every file this way first, so that a failure while reading any of
    /// them replaces nothing, without holding a descriptor per file.
    func finishWriting() throws {
        guard descriptor >= 0 else { return }
        guard fsync(descriptor) == 0 else {
            throw ContainerError.ioFailure(path: targetPath, reason: "fsync failed: \(String(cString: strerror(errno)))")
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
        if descriptor >= 0 { Glibc.close(descriptor); descriptor = -1 }
        if !committed { unlink(temporaryPath) }
        TemporaryFiles.unregister(temporaryPath)
        committed = true
    }
}

/// fsyncs the folder holding `path`, so that a rename or unlink survives a crash.
func syncFolder(of path: String) {
    let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
    let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if fd >= 0 { fsync(fd); close(fd) }
}
