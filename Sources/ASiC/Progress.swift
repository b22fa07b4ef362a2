import FoundationEssentials
import Glibc

/// One step of long work, for a progress bar on a terminal.
public struct ProgressEvent: Sendable {
    public enum Phase: String, Sendable { case hashing, writing, verifying, extracting }
    public let phase: Phase
    /// The data file being processed.
    public let item: String
    public let completed: UInt64
    public let total: UInt64
}

public typealias ProgressHandler = (ProgressEvent) -> Void

/// How data files added from disk are compressed.
public enum CompressionPolicy: String, Sendable, CaseIterable {
    /// Store already-compressed formats (by extension, or when a trial deflate of the first
    /// 256 KiB saves less than 3 %); deflate everything else at the default level.
    case automatic = "auto"
    /// Always store (fastest; largest containers).
    case store
    /// Always deflate, as the reference does.
    case deflate

    func method(for input: InputFile, name: String) throws -> ZipEntry.Method {
        switch self {
        case .store: return .stored
        case .deflate: return .deflated
        case .automatic:
            if MediaType.isAlreadyCompressed(fileName: name) { return .stored }
            let sampleLength = Int(min(input.size, 256 << 10))
            guard sampleLength >= 4096 else { return .deflated }
            let sample = try input.read(count: sampleLength, at: 0)
            var compressed = 0
            let deflater = Deflater(level: 1)
            try sample.withUnsafeBytes { raw in
                try deflater.compress(raw, finish: true) { compressed += $0.count }
            }
            return Double(compressed) > Double(sampleLength) * 0.97 ? .stored : .deflated
        }
    }
}
