import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// What an ASiC-S container holds (ETSI EN 319 162-1 §4.3), read as the reference reads it
/// (docs/design/asics-tm-names.md §1.1): one data object in the root folder, and one signature, either the
/// RFC 3161 token `META-INF/timestamp.tst` (with its archive-manifest renewals) or XAdES in
/// `META-INF/signatures.xml`. Other `META-INF/` files, `manifest.xml` included, are ignored.
///
/// Structure is refused here (thrown); whether the signature holds is `validate`'s question.
/// A container without any signature still opens, as an ASiC-E does, so that its data can be
/// listed and extracted; `verify` calls it INVALID.
struct SimpleLayout {
    static let mimetype = "application/vnd.etsi.asic-s+zip"
    static let timeStampPath = "META-INF/timestamp.tst"
    static let signaturesPath = "META-INF/signatures.xml"
    static let archiveManifestPath = "META-INF/ASiCArchiveManifest.xml"
    static let cadesPath = "META-INF/signature.p7s"
    /// Names that make a file without a leading `mimetype` an ASiC-S.
    static let fileExtensions: Set<String> = ["asics", "scs"]
    /// Names that are never ASiC-S, whatever their `mimetype` says (as the reference's opener
    /// skips them): such a file is read as ASiC-E, and an ASiC-S mimetype is refused there.
    static let extendedFileExtensions: Set<String> = ["asice", "sce", "bdoc"]

    let dataFile: DataFile
    let signatures: [SignatureFile]
    let timeStamp: ZipEntry?
    let archiveManifest: ZipEntry?
    let otherMeta: [ZipEntry]
    let warnings: [String]

    /// True when the file is to be read as ASiC-S: its first entry `mimetype` says so, or it
    /// has none first and is named `.asics`/`.scs`; never when named `.asice`/`.sce`/`.bdoc`.
    /// A first `mimetype` of another type in an `.asics` file is refused, except ASiC-E's
    /// (read as ASiC-E, as the reference falls back to its ASiC-E opener).
    static func isSimple(path: String, firstMimetype: String?) throws -> Bool {
        let fileExtension = path.fileExtension.lowercased()
        if extendedFileExtensions.contains(fileExtension) { return false }
        let named = fileExtensions.contains(fileExtension)
        guard let firstMimetype else { return named }
        if firstMimetype == mimetype { return true }
        if named && firstMimetype != Container.mimetype { throw ContainerError.asicsMimetypeWrong(firstMimetype) }
        return false
    }

    /// Sorts the entries (already checked for unsafe names and duplicates by the caller).
    init(reader: ZipReader) throws {
        var warnings: [String] = []
        let entries = reader.entries
        if let first = entries.first, first.name == "mimetype" {
            if first.method != .stored { warnings.append("mimetype is compressed; EN 319 162-1 requires it stored") }
            if first.localExtraLength != 0 { warnings.append("mimetype has an extra field; EN 319 162-1 forbids it") }
        } else if entries.contains(where: { $0.name == "mimetype" }) {
            warnings.append(
                "mimetype is not the first entry and was ignored (EN 319 162-1 requires it first); read as ASiC-S by the file name"
            )
        } else {
            warnings.append("the container has no mimetype entry; read as ASiC-S by the file name")
        }

        var data: [ZipEntry] = []
        var signatures: [SignatureFile] = []
        var timeStamp: ZipEntry? = nil
        var archiveManifest: ZipEntry? = nil
        var cades: ZipEntry? = nil
        var otherMeta: [ZipEntry] = []
        for entry in entries where !entry.name.hasSuffix("/") && entry.name != "mimetype" {
            guard entry.name.hasPrefix("META-INF/") else {
                data.append(entry)
                continue
            }
            switch entry.name {
            case Self.timeStampPath: timeStamp = entry
            case Self.archiveManifestPath: archiveManifest = entry
            case Self.cadesPath: cades = entry
            case Self.signaturesPath:
                let bytes = try reader.read(entry, limit: Container.xmlEntryLimit)
                _ = try XMLDocument(data: bytes, name: entry.name)  // refuse unparsable or DTD-bearing files now
                signatures.append(SignatureFile(name: entry.name, data: bytes, entry: entry))
            default: otherMeta.append(entry)  // older archive manifests and tokens are read through the chain
            }
        }

        // "./a.txt" never gets here: the caller refuses `.` segments as unsafe names.
        if let nested = data.first(where: { $0.name.contains("/") }) {
            throw ContainerError.asicsDataObjectInFolder(nested.name)
        }
        guard data.count == 1, let object = data.first else {
            throw ContainerError.asicsDataObjectCount(data.map(\.name))
        }
        let tokenSignature = timeStamp != nil || archiveManifest != nil
        if tokenSignature && !signatures.isEmpty {
            throw ContainerError.asicsSignatureConflict(
                "an RFC 3161 time-stamp token (\(Self.timeStampPath)) and XAdES (\(Self.signaturesPath))")
        }
        if let cades {
            guard !tokenSignature && signatures.isEmpty else {
                throw ContainerError.asicsSignatureConflict(
                    "CAdES (\(Self.cadesPath)) and \(tokenSignature ? Self.timeStampPath : Self.signaturesPath)")
            }
            throw ContainerError.unsupportedSignatureFormat(cades.name)
        }
        dataFile = DataFile(
            name: object.name, mediaType: MediaType.guess(forFileName: object.name),
            size: object.uncompressedSize, source: .archive(object))
        self.signatures = signatures
        self.timeStamp = timeStamp
        self.archiveManifest = archiveManifest
        self.otherMeta = otherMeta
        self.warnings = warnings
    }
}
