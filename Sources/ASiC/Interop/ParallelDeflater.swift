internal import CZlib
import Dispatch
import FoundationEssentials
import Glibc

/// Raw deflate on two cores, as pigz does it: each piece of the input is compressed on its own
/// `z_stream`, primed with the 32 KiB of input before it (so matches reach back as far as in
/// one stream), and ended with a sync flush (an empty stored block), which leaves it on a byte
/// boundary; the pieces joined in order, then one empty final block, are one valid deflate
/// stream. The size stays within a few bytes per piece of a single stream's; the time halves
/// (create of deflated data then takes under half the time of `zip -6`).
final class ParallelDeflater {
    /// The deflate window: what a piece's dictionary holds.
    static let window = 32 * 1024
    /// Input below this goes out as one piece, on the calling thread.
    static let splitThreshold = 4 * window

    private let pieces: [DeflatePiece]
    /// The last `window` bytes of input so far: the next call's first dictionary.
    private var history: [UInt8] = []

    init(level: Int32, pieces count: Int = 2) throws {
        pieces = try (0..<max(1, count)).map { _ in try DeflatePiece(level: level) }
    }

    /// Compresses `input`, running `alongside` (say, the CRC-32 of the same bytes) at the same
    /// time as the pieces; the compressed bytes go to `sink` in order.
    func compress(
        _ input: UnsafeRawBufferPointer, alongside: (() -> Void)? = nil,
        sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard input.count > 0 else {
            alongside?()
            return
        }
        let count = input.count >= Self.splitThreshold ? pieces.count : 1
        let size = (input.count + count - 1) / count
        history.withUnsafeBytes { history in
            for index in 0..<count {
                let start = index * size
                pieces[index].input = UnsafeRawBufferPointer(rebasing: input[start..<min(input.count, start + size)])
                // Piece 0 is primed with the previous call's tail, each later one with the end
                // of the piece before it (at least a window long: pieces are split only then).
                pieces[index].dictionary =
                    index == 0
                    ? history
                    : UnsafeRawBufferPointer(rebasing: input[(start - min(start, Self.window))..<start])
            }
            if count == 1 && alongside == nil {
                pieces[0].run()
            } else {
                let step = ParallelDeflateStep(pieces: Array(pieces[0..<count]), alongside: alongside)
                DispatchQueue.concurrentPerform(iterations: count + (alongside == nil ? 0 : 1)) { step.run($0) }
            }
        }
        for piece in pieces[0..<count] {
            if let error = piece.error { throw error }
            try piece.output.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<piece.produced])) }
        }
        // The next call's first dictionary: the last window of everything so far.
        let keep = min(Self.window, input.count)
        if keep == Self.window {
            history = Array(input[(input.count - keep)...])
        } else {
            history = Array((history + input[(input.count - keep)...]).suffix(Self.window))
        }
    }

    /// Ends the stream: one empty final block.
    func finish(sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        try pieces[0].finish()
        try pieces[0].output.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<pieces[0].produced])) }
    }
}

/// One piece's `z_stream` and output buffer. Unchecked Sendable: during a step each piece is
/// used by one worker only, and the owner reads it after concurrentPerform returns.
private final class DeflatePiece: @unchecked Sendable {
    private var stream = z_stream()
    var input = UnsafeRawBufferPointer(start: nil, count: 0)
    var dictionary = UnsafeRawBufferPointer(start: nil, count: 0)
    private(set) var output: [UInt8] = []
    private(set) var produced = 0
    private(set) var error: Error?

    init(level: Int32) throws {
        guard czlib_deflate_init_raw(&stream, level) == Z_OK else {
            throw ContainerError.ioFailure(
                path: "deflate", reason: "zlib could not start a compressor (out of memory?)")
        }
    }
    deinit { deflateEnd(&stream) }

    /// Compresses `input` primed with `dictionary`, ending with a sync flush.
    func run() {
        error = nil
        produced = 0
        guard deflateReset(&stream) == Z_OK else {
            error = failure("deflateReset")
            return
        }
        if let base = dictionary.baseAddress, dictionary.count > 0 {
            guard
                deflateSetDictionary(&stream, base.assumingMemoryBound(to: Bytef.self), UInt32(dictionary.count))
                    == Z_OK
            else {
                error = failure("deflateSetDictionary")
                return
            }
        }
        deflateAll(flush: Z_SYNC_FLUSH)
    }

    /// An empty final block.
    func finish() throws {
        input = UnsafeRawBufferPointer(start: nil, count: 0)
        produced = 0
        guard deflateReset(&stream) == Z_OK else { throw failure("deflateReset") }
        deflateAll(flush: Z_FINISH)
        if let error { throw error }
    }

    private func deflateAll(flush: Int32) {
        // deflateBound: enough room for the whole piece in one call, whatever the data.
        let bound = Int(deflateBound(&stream, UInt(input.count))) + 64
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = UInt32(input.count)
        let status = output.withUnsafeMutableBytes { out -> Int32 in
            stream.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = UInt32(out.count)
            let status = deflate(&stream, flush)
            produced = out.count - Int(stream.avail_out)
            return status
        }
        let done =
            flush == Z_FINISH
            ? status == Z_STREAM_END : (status == Z_OK && stream.avail_in == 0 && stream.avail_out > 0)
        if !done { error = failure("deflate returned \(status)") }
    }

    private func failure(_ what: String) -> Error { ContainerError.ioFailure(path: "deflate", reason: "zlib: \(what)") }
}

/// One call's work for `ParallelDeflater.compress`: iteration k < pieces.count compresses piece
/// k, the last (if any) runs `alongside`. Unchecked Sendable: each iteration touches only its
/// own piece.
private final class ParallelDeflateStep: @unchecked Sendable {
    let pieces: [DeflatePiece]
    let alongside: (() -> Void)?
    init(pieces: [DeflatePiece], alongside: (() -> Void)?) {
        self.pieces = pieces
        self.alongside = alongside
    }
    func run(_ iteration: Int) {
        if iteration < pieces.count { pieces[iteration].run() } else { alongside?() }
    }
}
