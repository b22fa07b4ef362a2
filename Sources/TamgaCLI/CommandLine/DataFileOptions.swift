import ASiC

/// `--media-type` and `--compression`, shared by the commands that put files into a container.
struct DataFileOptions {
    static let options: Set<String> = ["--media-type", "--compression"]
    static let help = """
          --media-type TYPE    media type for every file given (default: guessed from the extension,
                               application/octet-stream otherwise)
          --compression MODE   auto (default): store already-compressed data (by extension, or when a
                               trial deflate of the first 256 KiB saves under 3 %), deflate the rest;
                               store: never compress; deflate: always compress (as DigiDoc does)
        """

    let mediaType: String?
    let compression: CompressionPolicy

    init(_ arguments: ParsedArguments) throws {
        mediaType = arguments.value("--media-type")
        guard let policy = CompressionPolicy(rawValue: arguments.value("--compression") ?? "auto") else {
            throw UsageError("--compression takes auto, store or deflate")
        }
        compression = policy
    }

    /// Adds `files` to `container` with these options (written on save).
    func add(_ files: [String], to container: Container) throws {
        container.compression = compression
        // A file named in bytes that are not UTF-8 is read through a descriptor path; its data
        // file name is its own name (RawArguments), not the descriptor's number.
        for file in files {
            try container.addDataFile(path: file, name: RawArguments.fileName(for: file), mediaType: mediaType)
        }
    }
}
