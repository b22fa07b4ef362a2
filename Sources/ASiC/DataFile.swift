import FoundationEssentials
import Glibc
import TamgaCore

/// A document inside a container: its name (the ZIP entry and manifest path), its media type,
/// and where its bytes come from (the archive, or a file on disk not yet written into it).
public struct DataFile: Sendable, Equatable {
    enum Source: Sendable, Equatable {
        case archive(ZipEntry)
        case file(path: String)
        /// A DDOC's DataFile element (base64 or inline XML content, or hashcode).
        case ddoc(DigiDocDataFile)
        /// Known only by its digest, given beside a detached signature (hashcode validation):
        /// the algorithm as named by whoever gave it (nil when tamga has no such algorithm).
        case digest(name: String, algorithm: DigestAlgorithm?, value: Data)
    }

    public let name: String
    public let mediaType: String
    /// Uncompressed size in bytes.
    public let size: UInt64
    let source: Source

    /// True when the data is stored uncompressed in the archive.
    public var isStored: Bool {
        if case .archive(let entry) = source { return entry.method == .stored }
        return false
    }

    /// Compressed size in the archive, when the file is in one.
    public var compressedSize: UInt64? {
        if case .archive(let entry) = source { return entry.compressedSize }
        return nil
    }
}

/// A signature file (`META-INF/signaturesN.xml`) exactly as read or written: never re-serialised.
public struct SignatureFile: Sendable, Equatable {
    public let name: String
    public let data: Data
    let entry: ZipEntry?
}
