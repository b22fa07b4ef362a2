import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// An ASiC-E container (ETSI EN 319 162-1): a ZIP with `mimetype` first, data files,
/// `META-INF/manifest.xml` and one `META-INF/signaturesN.xml` per signature; or, read-only,
/// an ASiC-S container (`kind == .asics`): one data object signed by an RFC 3161 token
/// `META-INF/timestamp.tst` or by XAdES in `META-INF/signatures.xml` (see `SimpleLayout`).
///
/// Opening checks the structure strictly (unsafe names, duplicates, mimetype, manifest ⇄ ZIP)
/// and throws `ContainerError`; signatures are judged later by `validate`, which returns a
/// report instead of throwing. Data files are streamed, never held in memory. Every change is
/// written with `save()`, atomically: the original file stays byte-for-byte intact on failure.
public final class Container: @unchecked Sendable {  // unchecked: used from one task at a time, like a file handle
    public static let mimetype = "application/vnd.etsi.asic-e+zip"
    static let manifestPath = "META-INF/manifest.xml"
    /// Limits for entries read into memory: manifest and signature XML.
    static let xmlEntryLimit: UInt64 = 16 << 20
    /// Limits on signature files, which are held in memory: count and total size.
    static let maximumSignatureFiles = 1_000
    /// Signatures verified per container (each file may hold up to 16).
    static let maximumSignatures = 1_000
    static let signatureBytesLimit = 64 << 20

    /// Where the container lives (or will be written by `save()`).
    public let path: String
    /// ASiC-E or ASiC-S: decided at open by the first `mimetype` entry, else by the file name.
    public private(set) var kind: Kind
    public private(set) var dataFiles: [DataFile]
    public private(set) var signatures: [SignatureFile]
    /// Deviations from EN 319 162-1 that the reference tolerates (reported by `verify`).
    public private(set) var structureWarnings: [String]
    /// Receives progress of long work (hashing, writing); called on the working thread.
    public var progress: ProgressHandler?
    /// How data files added from disk are compressed.
    public var compression: CompressionPolicy = .automatic
    /// Hashes computed while data files are written (so signing needs no second read).
    var digestsWhileWriting: Set<DigestAlgorithm> = [.sha256]

    var reader: ZipReader?
    /// A DigiDoc file's parts (`kind == .ddoc`).
    private(set) var ddoc: DigiDocDocument?
    /// ASiC-S: `META-INF/timestamp.tst`, the token that signs the data object.
    private(set) var timeStampEntry: ZipEntry?
    /// ASiC-S: `META-INF/ASiCArchiveManifest.xml`, the newest layer of time-stamp renewal.
    private(set) var archiveManifestEntry: ZipEntry?
    private var otherMetaEntries: [ZipEntry]
    private var digestCache: [String: Digest] = [:]
    /// Whether the data files are known by their digests only (`init(detachedSignature:…)`):
    /// nothing can be read or saved, and there is no manifest.
    public private(set) var isDetached = false
    var pending: PendingSignature?
    var signingClock = PhaseClock()
    /// Phase durations of the last `sign(with:)` or `addSignature`.
    public internal(set) var lastSigningPhases: SigningPhases?

    /// A new, empty container that `save()` will write at `path`.
    public init(creatingAt path: String) {
        self.path = path
        kind = .asice
        dataFiles = []
        signatures = []
        structureWarnings = []
        otherMetaEntries = []
    }

    /// A detached signature with its data files known by digest (`init(detachedSignature:…)`).
    init(detachedPath path: String, dataFiles: [DataFile], signature: SignatureFile) {
        self.path = path
        kind = .asice
        self.dataFiles = dataFiles
        signatures = [signature]
        structureWarnings = []
        otherMetaEntries = []
        isDetached = true
    }

    /// The names of a ZIP's entries, each safe (`validateArchivePath`) and unique, also when
    /// case and Unicode form are ignored; returns them.
    static func checkEntryNames(_ entries: [ZipEntry]) throws -> Set<String> {
        var seen = Set<String>()
        var caseInsensitive: [String: String] = [:]
        for entry in entries {
            try Container.validateArchivePath(
                entry.name, isDirectory: entry.name.hasSuffix("/") && entry.uncompressedSize == 0)
            guard seen.insert(entry.name).inserted else { throw ContainerError.duplicateEntry(entry.name) }
            if let other = caseInsensitive.updateValue(entry.name, forKey: entry.name.caseInsensitiveKey) {
                throw ContainerError.ambiguousZip(
                    "\"\(other)\" and \"\(entry.name)\" differ only in case, which Windows and macOS ignore: extracted there, one would be written over the other (SiVa refuses such names too)"
                )
            }
        }
        return seen
    }

    /// Whether the file is DigiDoc XML (a `SignedDoc` root in its first kilobytes).
    static func isDigiDoc(_ path: String) -> Bool {
        guard let head = FileBytes.read(path, limit: 4096) else { return false }
        return DigiDocDocument.looksLikeDDOC(Array(head))
    }

    /// Opens and checks an existing container: ASiC-E or ASiC-S (a ZIP), or DigiDoc XML (DDOC,
    /// read-only: `kind == .ddoc`).
    public init(openingAt path: String) throws {
        self.path = path
        let reader: ZipReader
        do {
            reader = try ZipReader(path: path)
        } catch ContainerError.malformedZip(let why) {
            // Not a ZIP: DigiDoc XML is read on its own terms.
            guard Container.isDigiDoc(path) else { throw ContainerError.malformedZip(why) }
            let document = try DigiDocDocument(path: path)
            kind = .ddoc
            ddoc = document
            dataFiles = try Container.dataFiles(of: document)
            signatures = document.signatures.map { SignatureFile(name: "S\($0.index)", data: $0.bytes, entry: nil) }
            structureWarnings = []
            otherMetaEntries = []
            return
        }
        self.reader = reader
        var warnings: [String] = []

        let seen = try Container.checkEntryNames(reader.entries)
        let firstMimetype: String? = try reader.entries.first.flatMap { first in
            first.name == "mimetype" ? try Container.mimetypeValue(first, in: reader) : nil
        }
        if try SimpleLayout.isSimple(path: path, firstMimetype: firstMimetype) {
            let layout = try SimpleLayout(reader: reader)
            kind = .asics
            dataFiles = [layout.dataFile]
            signatures = layout.signatures
            timeStampEntry = layout.timeStamp
            archiveManifestEntry = layout.archiveManifest
            structureWarnings = layout.warnings
            otherMetaEntries = layout.otherMeta
            return
        }
        kind = .asice
        guard let first = reader.entries.first, let mimetype = firstMimetype else {
            throw seen.contains("mimetype") ? ContainerError.mimetypeNotFirst : ContainerError.mimetypeMissing
        }
        guard mimetype == Container.mimetype else { throw ContainerError.mimetypeWrong(mimetype) }
        if first.method != .stored { warnings.append("mimetype is compressed; EN 319 162-1 requires it stored") }
        if first.localExtraLength != 0 { warnings.append("mimetype has an extra field; EN 319 162-1 forbids it") }

        guard let manifestEntry = reader.entries.first(where: { $0.name == Container.manifestPath }) else {
            throw ContainerError.manifestMissing
        }
        let manifest = try Manifest(
            data: reader.read(manifestEntry, limit: Container.xmlEntryLimit), mimetype: mimetype)

        var byName: [ExactName: ZipEntry] = [:]
        var signatures: [SignatureFile] = []
        var signatureBytes = 0
        var otherMeta: [ZipEntry] = []
        for entry in reader.entries.dropFirst() where !entry.name.hasSuffix("/") {
            if entry.name.hasPrefix("META-INF/") {
                if entry.name == Container.manifestPath { continue }
                let file = String(entry.name.dropFirst("META-INF/".count))
                if file.contains("signatures") && file.hasSuffix(".xml") {
                    guard signatures.count < Container.maximumSignatureFiles,
                        signatureBytes + Int(clamping: entry.uncompressedSize) <= Container.signatureBytesLimit
                    else {
                        throw ContainerError.entryTooLarge(
                            name: "META-INF signature files", limit: Container.signatureBytesLimit)
                    }
                    let data = try reader.read(entry, limit: Container.xmlEntryLimit)
                    signatureBytes += data.count
                    _ = try XMLDocument(data: data, name: entry.name)  // refuse unparsable or DTD-bearing files now
                    signatures.append(SignatureFile(name: entry.name, data: data, entry: entry))
                } else {
                    otherMeta.append(entry)
                }
            } else {
                byName[entry.name.exact] = entry
            }
        }
        var files: [DataFile] = []
        for item in manifest.entries {
            try Container.validateArchivePath(item.path, isDirectory: false)
            guard let entry = byName.removeValue(forKey: item.path.exact) else {
                throw ContainerError.manifestMismatch("the manifest lists \(item.path), which is not in the container")
            }
            files.append(
                DataFile(
                    name: item.path, mediaType: item.mediaType, size: entry.uncompressedSize, source: .archive(entry)))
        }
        if let unlisted = byName.values.map(\.name).sorted().first {
            throw ContainerError.manifestMismatch("\(unlisted) is in the container but not in the manifest")
        }
        // "a" and "a/b" cannot both be extracted: one would have to be a file and a folder.
        let names = Set(files.map(\.name))
        for file in files {
            var folder = Substring(file.name)
            while let slash = folder.lastIndex(of: "/") {
                folder = folder[..<slash]
                if names.contains(String(folder)) {
                    throw ContainerError.unsafeEntryName("\(file.name) (its folder \(folder) is also a data file)")
                }
            }
        }
        dataFiles = files
        self.signatures = signatures.sorted { NaturalOrder.precedes($0.name, $1.name) }
        structureWarnings = warnings
        otherMetaEntries = otherMeta
    }

    public var isSigned: Bool { !signatures.isEmpty || timeStampEntry != nil || archiveManifestEntry != nil }

    /// The value of a `mimetype` entry: a leading UTF-8 BOM and surrounding white space removed,
    /// as the reference reads it; UTF-16 is refused.
    static func mimetypeValue(_ entry: ZipEntry, in reader: ZipReader) throws -> String {
        var bytes = [UInt8](try reader.read(entry, limit: 256))
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            throw ContainerError.mimetypeWrong("UTF-16 text")
        }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        return String(decoding: bytes, as: UTF8.self).trimmed()
    }

    // MARK: - Data files

    /// Adds files from disk (written on `save()`). Refused once the container is signed.
    /// - Parameter mediaType: nil guesses from the extension (`application/octet-stream` otherwise).
    public func addDataFile(path filePath: String, name: String? = nil, mediaType: String? = nil) throws {
        guard kind == .asice else { throw kind == .ddoc ? ContainerError.ddocReadOnly : ContainerError.asicsReadOnly }
        guard !isSigned else { throw ContainerError.containerSigned }
        let name = name ?? URL(fileURLWithPath: filePath).lastPathComponent
        try Container.validateNewDataFileName(name)
        if let existing = dataFiles.first(where: { $0.name.caseInsensitiveKey == name.caseInsensitiveKey }) {
            throw ContainerError.dataFileExists(existing.name)
        }
        if let mediaType { try Container.validateMediaType(mediaType) }
        let input = try InputFile(path: filePath)
        guard input.size > 0 else { throw ContainerError.emptyDataFile(filePath) }
        dataFiles.append(
            DataFile(
                name: name, mediaType: mediaType ?? MediaType.guess(forFileName: name), size: input.size,
                source: .file(path: filePath)))
        forgetDigests(of: name)
    }

    /// Removes a data file (on `save()`). Refused once the container is signed.
    public func removeDataFile(named name: String) throws {
        guard kind == .asice else { throw kind == .ddoc ? ContainerError.ddocReadOnly : ContainerError.asicsReadOnly }
        guard !isSigned else { throw ContainerError.containerSigned }
        guard let index = dataFiles.firstIndex(where: { $0.name == name }) else {
            throw ContainerError.dataFileNotFound(name)
        }
        dataFiles.remove(at: index)
        forgetDigests(of: name)
    }

    private func forgetDigests(of name: String) {
        for algorithm in DigestAlgorithm.allCases { digestCache["\(algorithm.rawValue):\(name)"] = nil }
        dataRunCache = [:]
    }

    /// Which data files, in which order, under which hash: a key of `dataRunCache`.
    private struct DataRun: Hashable {
        let algorithm: DigestAlgorithm
        let names: [String]
    }
    /// The hasher's state after a run of whole data files from the start of an archive
    /// time-stamp's input. Every canonicalization and every signature that signs the same
    /// files in the same order starts with the same bytes, so they share one read of them.
    private var dataRunCache: [DataRun: StreamingDigest] = [:]

    /// A hasher that has taken `files`' bytes in order (from the cache when it was done before).
    func hasherAfterDataFiles(_ files: [DataFile], _ algorithm: DigestAlgorithm) throws -> StreamingDigest {
        let key = DataRun(algorithm: algorithm, names: files.map(\.name))
        if let cached = dataRunCache[key], let copy = cached.copy() { return copy }
        let hasher = StreamingDigest(algorithm)
        for file in files { try read(file) { hasher.update($0) } }
        if !files.isEmpty, let kept = hasher.copy() { dataRunCache[key] = kept }
        return hasher
    }

    /// A digest remembered from writing or an earlier hash, if any (tests use it).
    func cachedDigest(named name: String, _ algorithm: DigestAlgorithm) -> Digest? {
        digestCache["\(algorithm.rawValue):\(name)"]
    }

    /// How many times a data file was read whole (tests check that hostile signatures cannot
    /// make the verifier read the data again and again).
    private(set) var dataFileReads = 0

    /// Streams a data file's bytes.
    public func read(_ file: DataFile, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        dataFileReads += 1
        switch file.source {
        case .ddoc(let dataFile):
            try readDigiDocContent(dataFile, body)
        case .archive(let entry):
            guard let reader else { throw ContainerError.dataFileNotFound(file.name) }
            try reader.stream(entry, body)
        case .file(let path):
            let input = try InputFile(path: path)
            try input.stream(from: 0, length: input.size, body)
        case .digest:
            throw ContainerError.contentNotGiven(file.name)
        }
    }

    /// The digest of a data file's bytes, streamed (and remembered for this container object).
    public func digest(of file: DataFile, _ algorithm: DigestAlgorithm) throws -> Digest {
        let key = "\(algorithm.rawValue):\(file.name)"
        if let cached = digestCache[key] { return cached }
        if case .digest(let named, let given, let value) = file.source {
            // Hashcode validation: the given digest is all there is, and only in its algorithm.
            guard given == algorithm else {
                throw ContainerError.digestAlgorithmNotGiven(
                    file: file.name, given: named, needed: algorithm.rawValue.uppercased())
            }
            return try Digest(algorithm: algorithm, bytes: value)
        }
        let hasher = StreamingDigest(algorithm)
        var done: UInt64 = 0
        try read(file) { chunk in
            hasher.update(chunk)
            done += UInt64(chunk.count)
            progress?(ProgressEvent(phase: .hashing, item: file.name, completed: done, total: file.size))
        }
        let digest = hasher.finish()
        digestCache[key] = digest
        return digest
    }

    // MARK: - Saving

    /// The outcome of `save()`.
    public enum SaveOutcome: Equatable, Sendable {
        case written
        /// The last data file of an unsigned container was removed, so the container was deleted.
        case deleted
    }

    /// Writes the container atomically to `path`. An unsigned container without data files is
    /// deleted instead (the behaviour DigiDoc users know); a new one without files is an error.
    @discardableResult
    public func save() throws -> SaveOutcome {
        guard kind == .asice else { throw kind == .ddoc ? ContainerError.ddocReadOnly : ContainerError.asicsReadOnly }
        if dataFiles.isEmpty {
            guard reader != nil, !isSigned else { throw ContainerError.noDataFiles }
            guard unlink(path) == 0 else {
                throw ContainerError.ioFailure(path: path, reason: String(cString: strerror(errno)))
            }
            syncFolder(of: path)
            reader = nil
            return .deleted
        }
        let output = try AtomicOutputFile(replacing: path)
        let writer = ZipWriter(output: output)
        let now = Date()
        try writeMimetypeAndDataFiles(writer, now: now)
        try writeManifestAndSignatures(writer, now: now)
        try output.commit()
        try reopen()
        return .written
    }

    /// The first part of the archive: `mimetype`, then the data files (copied as they are from
    /// the old archive, or read from disk, hashed and compressed on the way).
    func writeMimetypeAndDataFiles(_ writer: ZipWriter, now: Date) throws {
        try writer.add(name: "mimetype", data: Data(Container.mimetype.utf8), method: .stored, modified: now)
        for file in dataFiles {
            switch file.source {
            case .archive(let entry):
                guard let reader else { throw ContainerError.dataFileNotFound(file.name) }
                try writer.copy(entry, from: reader)
            case .file(let filePath):
                try writeFromDisk(file, path: filePath, writer: writer)
            case .ddoc:
                throw ContainerError.ddocReadOnly
            case .digest:
                throw ContainerError.contentNotGiven(file.name)
            }
        }
    }

    /// The rest: manifest, other META-INF files, signatures, central directory.
    func writeManifestAndSignatures(_ writer: ZipWriter, now: Date) throws {
        let manifest = Manifest(entries: dataFiles.map { Manifest.Entry(path: $0.name, mediaType: $0.mediaType) })
        let manifestData = manifest.serialized(mimetype: Container.mimetype)
        // Never commit a container tamga itself could not reopen.
        guard (try? Manifest(data: manifestData, mimetype: Container.mimetype)) == manifest else {
            throw ContainerError.malformedManifest(
                "the manifest being written would not read back; nothing was written")
        }
        try writer.add(name: Container.manifestPath, data: manifestData, method: .deflated, modified: now)
        for entry in otherMetaEntries {
            guard let reader else { break }
            try writer.copy(entry, from: reader)
        }
        for signature in signatures {
            if let entry = signature.entry, let reader {
                try writer.copy(entry, from: reader)
            } else {
                try writer.add(name: signature.name, data: signature.data, method: .deflated, modified: now)
            }
        }
        try writer.finish()
    }

    /// True when some data file is still only on disk (a new or changed container).
    var hasUnwrittenDataFiles: Bool {
        dataFiles.contains { if case .file = $0.source { return true } else { return false } }
    }

    private func writeFromDisk(_ file: DataFile, path filePath: String, writer: ZipWriter) throws {
        let input = try InputFile(path: filePath)
        guard input.size == file.size else {
            throw ContainerError.ioFailure(
                path: filePath, reason: "the file changed size while the container was being written")
        }
        let method = try compression.method(for: input, name: file.name)
        // Hash while writing: signing right after creation then needs no second pass, and the
        // digests are of exactly the bytes that went into the container.
        let hashers = digestsWhileWriting.map { StreamingDigest($0) }
        var done: UInt64 = 0
        let hash: (UnsafeRawBufferPointer) -> Void = { chunk in for hasher in hashers { hasher.update(chunk) } }
        let report: (UnsafeRawBufferPointer) -> Void = { chunk in
            done += UInt64(chunk.count)
            self.progress?(ProgressEvent(phase: .writing, item: file.name, completed: done, total: input.size))
        }
        if method == .deflated {
            // Compression takes both cores (ParallelDeflater); the digests run beside it.
            try writer.add(
                name: file.name, method: method, modified: input.modified, expectedSize: input.size, alongside: hash
            ) { feed in
                try input.stream(from: 0, length: input.size) { chunk in
                    try feed(chunk)
                    report(chunk)
                }
            }
        } else {
            // The digests on one core, the CRC-32 and write on the other.
            try writer.add(name: file.name, method: method, modified: input.modified, expectedSize: input.size) {
                feed in
                try input.streamOnTwoCores(
                    from: 0, length: input.size, first: hash,
                    second: { chunk in
                        try feed(chunk)
                        report(chunk)
                    })
            }
        }
        for hasher in hashers { digestCache["\(hasher.algorithm.rawValue):\(file.name)"] = hasher.finish() }
    }

    /// Re-reads the file just written so that entries point into it.
    func reopen() throws {
        let fresh = try Container(openingAt: path)
        kind = fresh.kind
        timeStampEntry = fresh.timeStampEntry
        archiveManifestEntry = fresh.archiveManifestEntry
        reader = fresh.reader
        dataFiles = fresh.dataFiles
        signatures = fresh.signatures
        otherMetaEntries = fresh.otherMetaEntries
        structureWarnings = fresh.structureWarnings
    }

    func appendSignature(_ file: SignatureFile) { signatures.append(file) }
    func removeSignature(named name: String) { signatures.removeAll { $0.name == name } }
    func replaceSignatures(_ files: [SignatureFile]) { signatures = files }
}
