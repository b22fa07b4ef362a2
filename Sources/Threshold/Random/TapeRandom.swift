import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// Randomness for golden vectors. Recording: bytes from a seeded, deterministic stream
/// (RFC 9380 XMD over the seed and a counter), each draw written to the tape with its label.
/// Replaying: the tape's entries in order; a draw whose label or size differs from the tape's
/// next entry fails at once, naming the step, so a change in draw order cannot pass unnoticed.
public final class TapeRandom: RandomSource, @unchecked Sendable {  // unchecked: `lock` guards the tape and the cursor
    public struct Entry: Codable, Equatable, Sendable {
        public let label: String
        public let hex: String
    }

    public enum Mode { case record(seed: String), replay([Entry]) }

    private let lock = Lock()
    private let mode: Mode
    private var entries: [Entry] = []
    private var cursor = 0

    public init(_ mode: Mode) {
        self.mode = mode
        if case .replay(let tape) = mode { entries = tape }
    }

    /// The tape so far (recording) or as given (replaying).
    public var tape: [Entry] { lock.withLock { entries } }
    /// Replaying: true when every entry was drawn.
    public var isExhausted: Bool { lock.withLock { cursor == entries.count } }

    public func bytes(_ count: Int, label: String) throws -> [UInt8] {
        try lock.withLock {
            switch mode {
            case .record(let seed):
                let bytes = Transcript.expandMessageXMD(
                    Array("\(seed)/\(entries.count)/\(label)".utf8), domain: Array("tamga/golden-tape".utf8),
                    length: count)
                entries.append(Entry(label: label, hex: Hex.encode(bytes)))
                return bytes
            case .replay:
                guard cursor < entries.count else {
                    throw ThresholdError.unexpectedMessage("the tape ended before draw \(cursor) (\(label))")
                }
                let entry = entries[cursor]
                guard entry.label == label, entry.hex.count == count * 2, let value = BigInt(hex: entry.hex) else {
                    throw ThresholdError.unexpectedMessage(
                        "draw \(cursor): the code asked for \(label) (\(count) bytes), the tape has \(entry.label) (\(entry.hex.count / 2) bytes)"
                    )
                }
                cursor += 1
                return value.bytes(width: count) ?? []
            }
        }
    }
}
