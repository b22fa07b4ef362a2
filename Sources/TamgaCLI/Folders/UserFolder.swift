import FoundationEssentials
import Glibc

#if canImport(Glibc)
import Glibc
#endif

/// The per-user folders tamga keeps files in (XDG base directories): split-key shares under
/// `$XDG_DATA_HOME`, the trust cache under `$XDG_CACHE_HOME`, the configuration under
/// `$XDG_CONFIG_HOME`; each falls back to its folder under `$HOME`. Creating them goes through
/// here, so that a read-only or missing home gives a message naming the folder and the
/// variable to set, not Foundation's error dump.
enum UserFolder {
    case data, cache, config

    var variable: String {
        switch self {
        case .data: "XDG_DATA_HOME"
        case .cache: "XDG_CACHE_HOME"
        case .config: "XDG_CONFIG_HOME"
        }
    }

    private var underHome: String {
        switch self {
        case .data: ".local/share"
        case .cache: ".cache"
        case .config: ".config"
        }
    }

    /// `$XDG_…/tamga/<sub>`, else `$HOME/<fallback>/tamga/<sub>`; the XDG specification ignores
    /// a relative value. Nil when neither is set.
    func path(_ sub: String, environment: [String: String]) -> URL? {
        if let xdg = environment[variable], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("tamga").appendingPathComponent(sub)
        }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(underHome).appendingPathComponent("tamga")
            .appendingPathComponent(sub)
    }

    /// The folder `path(sub)`, created (mode `mode`) when missing; what it `holds` goes into the error.
    func create(_ sub: String, holds: String, environment: [String: String], mode: mode_t = 0o700) throws -> URL {
        guard let folder = path(sub, environment: environment) else {
            throw CommandLineError.folderNotWritable(
                path: "$\(variable)/tamga/\(sub)", holds: holds, reason: "neither HOME nor \(variable) is set",
                remedy: "Set \(variable) (or HOME) to a folder you can write.")
        }
        try Self.create(folder, holds: holds, mode: mode, remedy: "Set \(variable) to a folder you can write.")
        return folder
    }

    /// `mkdir -p folder` with a plain error: which folder, the system's reason, and `remedy`.
    static func create(_ folder: URL, holds: String, mode: mode_t = 0o700, remedy: String) throws {
        var path = ""
        for component in folder.standardizedFileURL.path.split(separator: "/") {
            path += "/" + component
            if mkdir(path, mode) != 0 && errno != EEXIST {
                throw CommandLineError.folderNotWritable(
                    path: path, holds: holds, reason: String(cString: strerror(errno)), remedy: remedy)
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw CommandLineError.folderNotWritable(path: path, holds: holds, reason: "not a folder", remedy: remedy)
        }
        // A folder that exists may still be read-only (a read-only mount, another owner).
        guard access(path, W_OK | X_OK) == 0 else {
            throw CommandLineError.folderNotWritable(
                path: path, holds: holds, reason: String(cString: strerror(errno)), remedy: remedy)
        }
    }
}
