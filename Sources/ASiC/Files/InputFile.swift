import Dispatch
import FoundationEssentials
import Glibc

#if canImport(Glibc)
import Glibc
#endif

/// A file opened for positioned reads (`pread`), so that several readers can share it.
final class InputFile: @unchecked Sendable {  // unchecked: the descriptor is only read with pread
    let path: String
    let size: UInt64
    let modified: Date
    let descriptor: Int32

    init(path: String) throws {
        // A FIFO, a socket or a device is refused before it is opened where we can tell: opening
        // a FIFO for reading waits for a writer, reading it would wait for ever, and opening
        // some devices has side effects. (A symlink to a regular file is fine: stat follows it.)
        var before = stat()
        if stat(path, &before) == 0, let why = Self.refusal(mode: before.st_mode) {
            throw ContainerError.unreadableInput(path: path, reason: why)
        }
        // O_NONBLOCK: if the path is swapped for a FIFO after that check, the open itself still
        // cannot block; fstat on the descriptor then decides what was really opened.
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT { throw ContainerError.fileNotFound(path) }
            throw ContainerError.unreadableInput(path: path, reason: String(cString: strerror(e)))
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            Glibc.close(fd)
            throw ContainerError.unreadableInput(path: path, reason: "cannot stat")
        }
        if let why = Self.refusal(mode: info.st_mode) {
            Glibc.close(fd)
            throw ContainerError.unreadableInput(path: path, reason: why)
        }
        // A regular file: reads never block, but clear the flag so it means nothing later.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        self.path = path
        self.descriptor = fd
        self.size = UInt64(info.st_size)
        self.modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))
        // Tell the kernel we read front to back: it reads ahead further.
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
    }
    deinit { Glibc.close(descriptor) }

    /// Why a file of this type is not read, or nil for a regular file.
    static func refusal(mode: mode_t) -> String? {
        let kind: String
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFIFO: kind = "a named pipe (FIFO)"
        case S_IFSOCK: kind = "a socket"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFDIR: kind = "a folder"
        default: kind = "a special file"
        }
        return "it is \(kind), and tamga reads only regular files; save the data to a file and give that file's path"
    }

    /// Reads exactly `buffer.count` bytes at `offset`, or throws (a short file is a truncated file).
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws {
        var done = 0
        while done < buffer.count {
            let n = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw ContainerError.unreadableInput(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { throw ContainerError.malformedZip("unexpected end of file at byte \(offset + UInt64(done))") }
            done += n
        }
    }

    func read(count: Int, at offset: UInt64) throws -> [UInt8] {
        guard offset <= size, UInt64(count) <= size - offset else {
            throw ContainerError.malformedZip("a record at byte \(offset) runs past the end of the file")
        }
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withUnsafeMutableBytes { try read(into: $0, at: offset) }
        return bytes
    }

    /// Streams `length` bytes from `offset` as `stream` does, with two workers on each chunk at
    /// the same time (the machine's two cores): `first` (say, the SHA-256) and `second` (the
    /// CRC-32 and the write), and after `second` the next chunk is read into a second buffer
    /// while `first` may still run. Hashing, CRC and copying then overlap instead of adding up
    /// (so create + sign of stored data runs near `openssl dgst`'s time). Each worker sees
    /// every chunk in order, one chunk at a time; the first error thrown ends the stream.
    /// Data no larger than one chunk is handled on this thread alone.
    func streamOnTwoCores(
        from offset: UInt64, length: UInt64, chunkSize: Int = 1 << 20,
        first: (UnsafeRawBufferPointer) throws -> Void,
        second: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard length > UInt64(chunkSize) else {
            try stream(from: offset, length: length, chunkSize: chunkSize) { chunk in
                try first(chunk)
                try second(chunk)
            }
            return
        }
        guard offset <= size, length <= size - offset else {
            throw ContainerError.malformedZip("entry data runs past the end of the file")
        }
        let buffers = [
            UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16),
            UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16),
        ]
        defer { buffers.forEach { $0.deallocate() } }
        var position = offset
        var remaining = length
        var count = Int(min(UInt64(chunkSize), remaining))
        try read(into: UnsafeMutableRawBufferPointer(rebasing: buffers[0][0..<count]), at: position)
        var index = 0
        try withoutActuallyEscaping(first) { first in
            try withoutActuallyEscaping(second) { second in
                let step = TwoCoreStep(file: self, first: first, second: second)
                while count > 0 {
                    let nextPosition = position + UInt64(count)
                    let nextRemaining = remaining - UInt64(count)
                    let nextCount = Int(min(UInt64(chunkSize), nextRemaining))
                    step.chunk = UnsafeRawBufferPointer(rebasing: buffers[index][0..<count])
                    step.next = (
                        UnsafeMutableRawBufferPointer(rebasing: buffers[1 - index][0..<nextCount]), nextPosition
                    )
                    // Two iterations: one on this thread, one on a dispatch worker; both end
                    // before concurrentPerform returns, so no buffer is touched after the step.
                    DispatchQueue.concurrentPerform(iterations: 2) { step.run(worker: $0) }
                    if let error = step.firstError ?? step.secondError { throw error }
                    position = nextPosition
                    remaining = nextRemaining
                    count = nextCount
                    index = 1 - index
                }
            }
        }
    }

    /// Streams `length` bytes from `offset` in chunks of up to `chunkSize`.
    func stream(
        from offset: UInt64, length: UInt64, chunkSize: Int = 1 << 20,
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard offset <= size, length <= size - offset else {
            throw ContainerError.malformedZip("entry data runs past the end of the file")
        }
        // No bigger than what is read: a short entry or a DDOC tag costs no 1 MB allocation (an
        // mmap and its page faults, under ASan a secondary-allocator round trip each time).
        let buffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: Int(min(UInt64(chunkSize), max(length, 1))), alignment: 16)
        defer { buffer.deallocate() }
        var position = offset
        var remaining = length
        while remaining > 0 {
            let n = Int(min(UInt64(chunkSize), remaining))
            let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<n])
            try read(into: slice, at: position)
            try body(UnsafeRawBufferPointer(slice))
            position += UInt64(n)
            remaining -= UInt64(n)
        }
    }
}

/// One chunk's work for `InputFile.streamOnTwoCores`, shared by its two workers. Unchecked
/// Sendable: worker 0 writes only `firstError`, worker 1 only `secondError` (two properties, not
/// one array: two writers of one property would be simultaneous accesses), both only read the
/// rest, and the caller changes the fields only between two concurrentPerform calls, which
/// order every access.
private final class TwoCoreStep: @unchecked Sendable {
    let file: InputFile
    let first: (UnsafeRawBufferPointer) throws -> Void
    let second: (UnsafeRawBufferPointer) throws -> Void
    var chunk = UnsafeRawBufferPointer(start: nil, count: 0)
    var next: (buffer: UnsafeMutableRawBufferPointer, position: UInt64) = (
        UnsafeMutableRawBufferPointer(start: nil, count: 0), 0
    )
    var firstError: Error? = nil
    var secondError: Error? = nil

    init(
        file: InputFile, first: @escaping (UnsafeRawBufferPointer) throws -> Void,
        second: @escaping (UnsafeRawBufferPointer) throws -> Void
    ) {
        self.file = file
        self.first = first
        self.second = second
    }

    func run(worker: Int) {
        do {
            if worker == 0 {
                try first(chunk)
            } else {
                try second(chunk)
                if next.buffer.count > 0 { try file.read(into: next.buffer, at: next.position) }
            }
        } catch {
            if worker == 0 { firstError = error } else { secondError = error }
        }
    }
}
