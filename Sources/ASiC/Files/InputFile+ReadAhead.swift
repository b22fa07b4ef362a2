import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

extension InputFile {
    /// Streams `length` bytes from `offset` in two stages on the machine's two cores: a reader
    /// thread reads each chunk and `inspect`s it, up to `depth` chunks ahead, while this thread
    /// `consume`s the inspected chunks in order, each with the note `inspect` returned for it.
    /// `inspect` says which chunk is the last: nothing after it is read, and the stream ends once
    /// it is consumed; the range's end ends it too. The first error thrown on either side ends the
    /// stream; the reader has stopped before this returns or throws, so no buffer outlives it.
    ///
    /// Why not `streamOnTwoCores` (both workers on one chunk, in lock step): there each worker had
    /// to scan the chunk for itself before its work (a DDOC's content ends at the first `<`, and
    /// its line ends are rewritten where a CR occurs), so the SHA-1 worker paid for the scans too,
    /// and every chunk ended with both workers meeting, the faster one waiting. Here the scans
    /// are the reader's, their result travels with the chunk, and the consumer only waits when
    /// the reader is behind: the SHA-1 runs from the first chunk to the last without a pause.
    /// Data no larger than one chunk is handled on this thread alone. `inspect` runs on the reader
    /// thread: it may share state with `consume` only through the note.
    func streamReadingAhead<Note>(
        from offset: UInt64, length: UInt64, chunkSize requested: Int = 256 << 10, depth: Int = 4,
        inspect: (UnsafeRawBufferPointer) throws -> (note: Note, last: Bool),
        consume: (UnsafeRawBufferPointer, Note) throws -> Void
    ) throws {
        let chunkSize = max(requested, 1)
        guard length > UInt64(chunkSize) else {
            // `stream` checks the range itself.
            try stream(from: offset, length: length, chunkSize: chunkSize) { chunk in
                try consume(chunk, try inspect(chunk).note)
            }
            return
        }
        guard offset <= size, length <= size - offset else {
            throw ContainerError.malformedZip("entry data runs past the end of the file")
        }
        // No more buffers than there are chunks.
        let chunks = (length + UInt64(chunkSize) - 1) / UInt64(chunkSize)
        try withoutActuallyEscaping(inspect) { inspect in
            let ring = ReadAheadRing<Note>(
                file: self, offset: offset, length: length, chunkSize: chunkSize,
                depth: Int(min(UInt64(max(depth, 2)), chunks)), inspect: inspect)
            defer { ring.stopAndWait() }
            ring.start()
            while let (chunk, note) = try ring.next() {
                try consume(chunk, note)
                ring.release()
            }
        }
    }
}

/// The buffers and hand-over of `InputFile.streamReadingAhead`. Unchecked Sendable: each slot
/// (a buffer and what was read into it) belongs to the reader from `free.wait()` until
/// `filled.signal()` and to the consumer from `filled.wait()` until `free.signal()`: the
/// semaphores order every access, and the slots are raw memory, not an Array whose one buffer
/// two threads would touch.
private final class ReadAheadRing<Note>: @unchecked Sendable {
    enum Slot {
        case empty
        case chunk(count: Int, note: Note)
        /// After the last chunk: how the reading ended (nil: at the end, or at the last chunk).
        case end(Error?)
    }

    let file: InputFile
    let offset: UInt64
    let length: UInt64
    let chunkSize: Int
    let depth: Int
    /// Set to nil once the reader has stopped: the closure is the caller's, lent for the stream
    /// alone (withoutActuallyEscaping), while the reader's dispatch block may hold this ring a
    /// moment longer.
    private var inspect: ((UnsafeRawBufferPointer) throws -> (note: Note, last: Bool))?
    let buffers: UnsafeMutableRawBufferPointer
    let slots: UnsafeMutablePointer<Slot>
    // Created at 0 and raised: libdispatch traps when a semaphore is released below its
    // initial value.
    let free = DispatchSemaphore(value: 0)
    let filled = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    let stopped = Atomic<Bool>(false)
    private var consumed = 0  // the consumer's alone
    private var started = false

    init(
        file: InputFile, offset: UInt64, length: UInt64, chunkSize: Int, depth: Int,
        inspect: @escaping (UnsafeRawBufferPointer) throws -> (note: Note, last: Bool)
    ) {
        self.file = file
        self.offset = offset
        self.length = length
        self.chunkSize = chunkSize
        self.depth = depth
        self.inspect = inspect
        buffers = .allocate(byteCount: chunkSize * depth, alignment: 64)
        slots = .allocate(capacity: depth)
        slots.initialize(repeating: .empty, count: depth)
        for _ in 0..<depth { free.signal() }
    }

    deinit {
        slots.deinitialize(count: depth)
        slots.deallocate()
        buffers.deallocate()
    }

    func start() {
        started = true
        // A queue of its own: it gets a thread even when the shared pool is busy.
        DispatchQueue(label: "tamga.read-ahead").async { self.readAll() }
    }

    private func buffer(_ slot: Int, count: Int) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: buffers[(slot * chunkSize)..<(slot * chunkSize + count)])
    }

    private func readAll() {
        defer { done.signal() }
        var position = offset
        var remaining = length
        var index = 0
        var failure: Error? = nil
        while remaining > 0 {
            free.wait()
            if stopped.load(ordering: .acquiring) { return }
            let count = Int(min(UInt64(chunkSize), remaining))
            let target = buffer(index % depth, count: count)
            do {
                try file.read(into: target, at: position)
                guard let inspect else { return }
                let (note, last) = try inspect(UnsafeRawBufferPointer(target))
                slots[index % depth] = .chunk(count: count, note: note)
                position += UInt64(count)
                remaining = last ? 0 : remaining - UInt64(count)
                index += 1
                filled.signal()
            } catch {
                // The slot taken for this chunk carries the error instead.
                failure = error
                break
            }
        }
        if failure == nil {
            free.wait()
            if stopped.load(ordering: .acquiring) { return }
        }
        slots[index % depth] = .end(failure)
        filled.signal()
    }

    /// The next chunk in order, nil after the last; throws what ended the reading.
    func next() throws -> (UnsafeRawBufferPointer, Note)? {
        filled.wait()
        let slot = consumed % depth
        switch slots[slot] {
        case .chunk(let count, let note): return (UnsafeRawBufferPointer(buffer(slot, count: count)), note)
        case .end(let failure?): throw failure
        case .end(nil), .empty: return nil
        }
    }

    /// The consumer is done with the chunk `next` gave.
    func release() {
        consumed += 1
        free.signal()
    }

    /// Ends the reading (at once if it is not finished) and waits for the reader to stop.
    func stopAndWait() {
        if started {
            stopped.store(true, ordering: .releasing)
            free.signal()
            done.wait()
        }
        inspect = nil
    }
}
