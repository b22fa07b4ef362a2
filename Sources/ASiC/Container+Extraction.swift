import FoundationEssentials
import Glibc

#if canImport(Glibc)
import Glibc
#endif

extension Container {
    /// Writes data files into `folder`. Names were checked at open (no `..`, absolute paths or
    /// backslashes); here each path segment is also made safe for the file system.
    ///
    /// All or nothing: every check (existing files, two entries mapped to one file, a symlink
    /// leading out of the folder) is made before anything is written; then every file is
    /// written to a temporary file beside its target and checked (size and CRC-32) while it
    /// is read; only when all of them are complete are they renamed into place. A failure
    /// removes the temporary files, the files it had already renamed into place that did not
    /// exist before, and the folders it created, so the target is left as it was. (Only a
    /// rename failing half-way through an extraction with `overwrite` cannot bring back the
    /// files it had already replaced; nothing read from the container can cause that.)
    /// - Parameters:
    ///   - names: the data files to extract; empty means all.
    ///   - overwrite: replace existing files (`--force`); otherwise any existing target is an
    ///     error raised before anything is written.
    /// - Returns: the paths written.
    @discardableResult
    public func extract(_ names: [String] = [], to folder: String, overwrite: Bool = false) throws -> [String] {
        var chosen: [DataFile] =
            try names.isEmpty
            ? dataFiles
            : names.map { name in
                // Byte for byte first (NFC and NFD are two names on Linux); a name typed in the other
                // normalisation form still finds the file when it is the only one it could mean.
                if let exact = dataFiles.first(where: { $0.name.utf8.elementsEqual(name.utf8) }) { return exact }
                let equivalent = dataFiles.filter { $0.name == name }
                guard equivalent.count == 1, let file = equivalent.first else {
                    throw ContainerError.dataFileNotFound(name)
                }
                return file
            }
        // The same data file named twice on the command line is written once.
        var seenNames = Set<[UInt8]>()
        chosen = chosen.filter { seenNames.insert(Array($0.name.utf8)).inserted }

        let base = URL(fileURLWithPath: folder).standardizedFileURL
        let basePrefix = base.path.hasSuffix("/") ? base.path : base.path + "/"
        var plan: [(file: DataFile, target: String, segments: [String], existed: Bool)] = []
        for file in chosen {
            // Split on the scalar: "/" followed by a combining mark is one Character, and a
            // Character split would keep it inside a segment.
            let segments = file.name.unicodeScalars.split(separator: "/").map {
                Self.safeFileName(String(String.UnicodeScalarView($0)))
            }
            let target = segments.reduce(base) { $0.appendingPathComponent($1) }.standardizedFileURL
            guard target.path.hasPrefix(basePrefix) else { throw ContainerError.unsafeEntryName(file.name) }
            var info = stat()
            plan.append((file, target.path, segments, lstat(target.path, &info) == 0))
        }
        try Self.refuseCollisions(plan.map { ($0.file.name, $0.segments) }, in: base.path)
        for item in plan where item.existed {
            var info = stat()
            if lstat(item.target, &info) == 0 {
                guard overwrite else { throw ContainerError.wouldOverwrite(item.target) }
                guard (info.st_mode & S_IFMT) == S_IFREG else {
                    throw ContainerError.ioFailure(
                        path: item.target, reason: "exists and is not a regular file; not replaced")
                }
            }
        }

        var transaction = ExtractionTransaction()
        var outputs: [AtomicOutputFile] = []
        do {
            var staged: [(AtomicOutputFile, String, Bool)] = []  // output, path, existed before
            for item in plan {
                let parent = URL(fileURLWithPath: item.target).deletingLastPathComponent().path
                try transaction.makeFolders(upTo: parent, inside: base.path, entry: item.file.name)
                let output = try AtomicOutputFile(replacing: item.target)
                outputs.append(output)
                var done: UInt64 = 0
                try read(item.file) { chunk in
                    try output.write(chunk)
                    done += UInt64(chunk.count)
                    progress?(
                        ProgressEvent(phase: .extracting, item: item.file.name, completed: done, total: item.file.size))
                }
                try output.finishWriting()
                staged.append((output, item.target, item.existed))
            }
            for (output, path, existed) in staged {
                try output.commit()
                if !existed { transaction.createdFiles.append(path) }
            }
            return staged.map { $0.1 }
        } catch {
            // Temporary files first: a folder is only removed when it is empty.
            for output in outputs { output.abandon() }
            transaction.rollBack()
            throw error
        }
    }

    /// Refuses two data files that would be written to one path, or one written where another
    /// needs a folder (`-a` → `_-a` and `_-a/b`). Paths are compared byte for byte, as Linux
    /// compares file names: the NFC and NFD spellings of a name are two files there, so they
    /// are not a collision. (Case is not folded either: on Linux `A` and `a` are two files.)
    static func refuseCollisions(_ items: [(name: String, segments: [String])], in base: String) throws {
        var files: [[UInt8]: String] = [:]
        var folders: [[UInt8]: String] = [:]
        func key(_ segments: ArraySlice<String>) -> [UInt8] { Array(segments.joined(separator: "/").utf8) }
        let joined = { (segments: [String]) in ([base] + segments).joined(separator: "/") }
        for item in items {
            let fileKey = key(item.segments[...])
            if let other = files[fileKey] ?? folders[fileKey] {
                throw ContainerError.extractionCollision(first: other, second: item.name, path: joined(item.segments))
            }
            for depth in 1..<max(item.segments.count, 1) {
                let folderKey = key(item.segments[..<depth])
                if let other = files[folderKey] {
                    throw ContainerError.extractionCollision(
                        first: other, second: item.name, path: joined(Array(item.segments[..<depth])))
                }
                if folders[folderKey] == nil { folders[folderKey] = item.name }
            }
            files[fileKey] = item.name
        }
    }

    /// A file-system-safe version of one path segment: control characters become `_`, and a
    /// name that would be hidden or special (`.`, `..`, leading `-`) is prefixed with `_`.
    /// Not one-to-one (`-x` and `_-x` both give `_-x`): `refuseCollisions` catches that.
    static func safeFileName(_ segment: String) -> String {
        var out = String(
            String.UnicodeScalarView(
                segment.unicodeScalars.map {
                    $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" ? "_" : $0
                }))
        if out.isEmpty || out == "." || out == ".." || out.hasPrefix("-") { out = "_" + out }
        return out
    }
}

/// What one extraction created, so that a failure can remove exactly that: files that did not
/// exist before and folders it made (removed deepest first, and only when empty, so nothing
/// that was there before is ever removed).
private struct ExtractionTransaction {
    var createdFiles: [String] = []
    var createdFolders: [String] = []

    /// Creates the missing folders from `base` down to `folder`, one at a time, refusing an
    /// existing one that is not a folder or that leads (through a symlink) out of `base`.
    mutating func makeFolders(upTo folder: String, inside base: String, entry: String) throws {
        var chain: [String] = []
        var path = folder
        // Walk up to the deepest folder that exists (the base itself, at the latest).
        while true {
            var info = stat()
            if lstat(path, &info) == 0 { break }
            guard errno == ENOENT else {
                let why =
                    errno == ENOTDIR
                    ? "a file stands where a folder is needed for \(entry)"
                    : "cannot inspect the folder: \(String(cString: strerror(errno)))"
                throw ContainerError.ioFailure(path: path, reason: why)
            }
            chain.append(path)
            let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
            guard parent != path else { break }
            path = parent
        }
        // The existing part must be a folder inside the base once symlinks are resolved: a
        // symlink planted in the path could redirect the write outside the folder.
        do {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                throw ContainerError.ioFailure(
                    path: path, reason: "exists and is not a folder; \(entry) cannot be written under it")
            }
            if path.hasPrefix(base.hasSuffix("/") ? base : base + "/") {
                let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
                let resolvedBase = URL(fileURLWithPath: base).resolvingSymlinksInPath().path
                guard
                    resolved == resolvedBase
                        || resolved.hasPrefix(resolvedBase.hasSuffix("/") ? resolvedBase : resolvedBase + "/")
                else {
                    throw ContainerError.unsafeEntryName(entry)
                }
            }
        }
        for missing in chain.reversed() {
            guard mkdir(missing, 0o777) == 0 else {  // the umask applies
                throw ContainerError.ioFailure(
                    path: missing, reason: "cannot create the folder: \(String(cString: strerror(errno)))")
            }
            createdFolders.append(missing)
        }
    }

    func rollBack() {
        for file in createdFiles.reversed() { unlink(file) }
        for folder in createdFolders.reversed() { rmdir(folder) }
    }
}
