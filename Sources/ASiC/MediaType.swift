import FoundationEssentials
import Glibc
import TamgaSupport

/// Media types for data files, and whether deflate is worth running on them.
enum MediaType {
    private static let byExtension: [String: String] = [
        "txt": "text/plain", "csv": "text/csv", "html": "text/html", "htm": "text/html", "xml": "application/xml",
        "json": "application/json", "pdf": "application/pdf", "rtf": "application/rtf",
        "doc": "application/msword", "xls": "application/vnd.ms-excel",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text", "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "tif": "image/tiff",
        "tiff": "image/tiff", "webp": "image/webp", "svg": "image/svg+xml",
        "zip": "application/zip", "gz": "application/gzip", "xz": "application/x-xz", "zst": "application/zstd",
        "7z": "application/x-7z-compressed", "bz2": "application/x-bzip2",
        "asice": "application/vnd.etsi.asic-e+zip", "sce": "application/vnd.etsi.asic-e+zip",
        "bdoc": "application/vnd.etsi.asic-e+zip", "asics": "application/vnd.etsi.asic-s+zip",
        "ddoc": "application/x-ddoc",
        "mp3": "audio/mpeg", "mp4": "video/mp4", "mov": "video/quicktime", "mkv": "video/x-matroska",
    ]

    /// Extensions whose content is already compressed: deflate would only cost time (and
    /// usually make the entry slightly larger), so these are stored.
    private static let compressedExtensions: Set<String> = [
        "zip", "gz", "tgz", "xz", "zst", "7z", "bz2", "rar", "lz4", "asice", "sce", "bdoc", "asics", "ddoc",
        "docx", "xlsx", "pptx", "odt", "ods", "odp", "epub", "jar", "apk",
        "png", "jpg", "jpeg", "gif", "webp", "heic", "avif", "jp2",
        "mp3", "mp4", "m4a", "mov", "mkv", "webm", "ogg", "opus", "flac", "aac",
    ]

    static func guess(forFileName name: String) -> String {
        let ext = name.fileExtension.lowercased()
        return byExtension[ext] ?? "application/octet-stream"
    }

    static func isAlreadyCompressed(fileName name: String) -> Bool {
        compressedExtensions.contains(name.fileExtension.lowercased())
    }
}
