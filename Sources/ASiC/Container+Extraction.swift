#if canImport(Glibc)
import Glibc
#endif
import Foundation

extension Container {
    /// Writes data files into `folder`. Names were checked at open (no `..`, absolute paths or
    /// backslashes); here each path segment is also made safe for the file system, and every
    /// file is written through a temporary file and renamed, so a failure leaves no half file.
    /// - Parameters:
    ///   - names: the data files to extract; empty means all.
    ///   - overwrite: replace existing files (`--force`); otherwise any existing target is an
    ///     error raised before anything is written.
    /// - Returns: the paths written.
    @discardableResult
    public func extract(_ names: [String] = [], to folder: String, overwrite: Bool = false) throws -> [String] {
        let chosen: [DataFile] = try names.isEmpty ? dataFiles : names.map { name in
            guard let file = dataFiles.first(where: { $0.name == name }) else { throw ContainerError.dataFileNotFound(name) }
            return file
        }
        let base = URL(fileURLWithPath: folder).standardizedFileURL
        let basePrefix = base.path.hasSuffix("/") ? base.path : base.path + "/"
        var plan: [(DataFile, URL)] = []
        for file in chosen {
            let segments = file.name.split(separator: "/").map { Self.safeFileName(String($0)) }
            let target = segments.reduce(base) { $0.appendingPathComponent($1) }.standardizedFileURL
            guard target.path.hasPrefix(basePrefix) else { throw ContainerError.unsafeEntryName(file.name) }
            var info = stat()
            if lstat(target.path, &info) == 0 {
                guard overwrite else { throw ContainerError.wouldOverwrite(target.path) }
                guard (info.st_mode & S_IFMT) == S_IFREG else {
                    throw ContainerError.ioFailure(path: target.path, reason: "exists and is not a regular file; not replaced")
                }
            }
            plan.append((file, target))
        }
        var written: [String] = []
        for (file, target) in plan {
            let parent = target.deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            } catch {
                throw ContainerError.ioFailure(path: parent.path, reason: "cannot create the folder (\((error as NSError).localizedDescription))")
            }
            // A symlink planted in the path could redirect the write outside the folder.
            let resolvedParent = parent.resolvingSymlinksInPath().path
            let resolvedBase = base.resolvingSymlinksInPath().path
            guard resolvedParent == resolvedBase || resolvedParent.hasPrefix(resolvedBase.hasSuffix("/") ? resolvedBase : resolvedBase + "/") else {
                throw ContainerError.unsafeEntryName(file.name)
            }
            let output = try AtomicOutputFile(replacing: target.path)
            var done: UInt64 = 0
            try read(file) { chunk in
                try output.write(chunk)
                done += UInt64(chunk.count)
                progress?(ProgressEvent(phase: .extracting, item: file.name, completed: done, total: file.size))
            }
            try output.commit()
            written.append(target.path)
        }
        return written
    }

    /// A file-system-safe version of one path segment: control characters become `_`, and a
    /// name that would be hidden or special (`.`, `..`, leading `-`) is prefixed with `_`.
    static func safeFileName(_ segment: String) -> String {
        var out = String(String.UnicodeScalarView(segment.unicodeScalars.map {
            $0.value < 0x20 || $0.value == 0x7F || $0 == "\\" ? "_" : $0
        }))
        if out.isEmpty || out == "." || out == ".." || out.hasPrefix("-") { out = "_" + out }
        return out
    }
}
