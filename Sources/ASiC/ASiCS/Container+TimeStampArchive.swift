import FoundationEssentials
import Glibc
import TamgaCore

extension Container {
    /// Makes the time-stamped archive of a whole container, as the reference writes it when a
    /// signature cannot be extended in place (EN 319 162-1 §4.3/§4.4; docs/design/asics-tm-names.md §1.4):
    /// an ASiC-S with `mimetype` stored first, the original container's bytes as its only data
    /// object (named like the original), and `META-INF/timestamp.tst`, a token over the SHA-256
    /// of those bytes. No manifest.
    ///
    /// The input is only read. The output is written beside its final path, checked by opening
    /// it again, fsynced and renamed into place: any failure (TSA, disk, a changed input) leaves
    /// no partial output and an existing output as it was.
    /// - Parameters:
    ///   - inputPath: a container tamga can open (ASiC-E or ASiC-S); its signatures are not judged.
    ///   - outputPath: the new `.asics`; refused if it exists unless `overwrite`.
    ///   - progress: hashing/writing progress of the data object.
    /// - Returns: the new container, opened.
    public static func timeStampArchive(
        of inputPath: String, to outputPath: String, timeStamping client: TimeStampClient,
        overwrite: Bool = false, progress: ProgressHandler? = nil
    ) async throws -> Container {
        _ = try Container(openingAt: inputPath)  // refuse what is not a readable container before asking a TSA
        let input = try InputFile(path: inputPath)
        let name = URL(fileURLWithPath: inputPath).lastPathComponent
        try validateNewDataFileName(name)
        if let inputReal = realpath(inputPath, nil) {
            defer { free(inputReal) }
            if let outputReal = realpath(outputPath, nil) {
                defer { free(outputReal) }
                if strcmp(inputReal, outputReal) == 0 {
                    throw ContainerError.ioFailure(
                        path: outputPath, reason: "is the input container; give another output path")
                }
            }
        }
        if !overwrite && FileManager.default.fileExists(atPath: outputPath) {
            throw ContainerError.alreadyExists(outputPath)
        }

        let output = try AtomicOutputFile(replacing: outputPath)
        let writer = ZipWriter(output: output)
        try writer.add(name: "mimetype", data: Data(SimpleLayout.mimetype.utf8), method: .stored, modified: Date())
        // Hashed while it is copied: the token then covers exactly the bytes in the archive.
        let hasher = StreamingDigest(.sha256)
        var done: UInt64 = 0
        let method = try CompressionPolicy.automatic.method(for: input, name: name)
        try writer.add(name: name, method: method, modified: input.modified, expectedSize: input.size) { feed in
            try input.stream(from: 0, length: input.size) { chunk in
                hasher.update(chunk)
                try feed(chunk)
                done += UInt64(chunk.count)
                progress?(ProgressEvent(phase: .writing, item: name, completed: done, total: input.size))
            }
        }
        let now = try InputFile(path: inputPath)
        guard done == input.size, now.size == input.size, now.modified == input.modified else {
            throw ContainerError.ioFailure(
                path: inputPath, reason: "the file changed while it was being time-stamped; nothing was written")
        }
        let token = try await client.timeStamp(imprint: hasher.finish())
        try writer.add(name: SimpleLayout.timeStampPath, data: token.der, method: .stored, modified: token.genTime)
        try writer.finish()
        // Never commit a container tamga itself could not reopen as ASiC-S.
        let written = try Container(openingAt: output.temporaryPath)
        guard written.kind == .asics, written.timeStampEntry != nil, written.dataFiles.map(\.name) == [name] else {
            throw ContainerError.ioFailure(
                path: outputPath, reason: "the archive being written would not read back as ASiC-S; nothing was written"
            )
        }
        try output.commit()
        return try Container(openingAt: outputPath)
    }
}
