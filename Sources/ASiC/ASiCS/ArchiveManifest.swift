import FoundationEssentials
import Glibc
import TamgaCore

/// One `META-INF/ASiCArchiveManifest*.xml` of an ASiC-S time-stamp renewal (EN 319 162-1
/// §4.4.3, docs/design/asics-tm-names.md §1.3), kept with the exact bytes its time-stamp covers: the
/// `SigReference` names the token over those bytes, and each `DataObjectReference` a file
/// (the data object, older tokens, the previous manifest with `Rootfile="true"`) and its digest.
struct ArchiveManifest {
    static let tokenMediaType = "application/vnd.etsi.timestamp-token"
    /// References read per manifest; a renewal lists the data and a few chain files.
    static let maximumReferences = 1_000

    struct Reference {
        /// The ZIP entry name (the URI, percent-decoded).
        let name: String
        let isRootfile: Bool
        /// nil when the DigestMethod is missing or unknown.
        let digestAlgorithm: DigestAlgorithm?
        let digest: Data?
    }

    let name: String
    let data: Data
    /// The token's entry name and the MimeType it is declared with; nil when absent.
    let sigReference: (name: String, mediaType: String?)?
    let references: [Reference]

    /// The previous manifest: the last reference marked as root file, as the reference reads it.
    var previousManifest: String? { references.last(where: \.isRootfile)?.name }

    /// Parses the manifest; a finding-worthy reason is thrown as a `ContainerError`.
    init(name: String, data: Data) throws {
        let document = try XMLDocument(data: data, name: name)
        guard let root = document.root, root.is("ASiCManifest", in: XMLNamespace.asic) else {
            throw ContainerError.malformedXML(file: name, reason: "the root element is not asic:ASiCManifest")
        }
        let sigReferences = root.children("SigReference", in: XMLNamespace.asic)
        guard sigReferences.count <= 1 else {
            throw ContainerError.malformedXML(file: name, reason: "more than one SigReference")
        }
        sigReference = try sigReferences.first.map { element in
            guard let uri = element.attribute("URI"), let decoded = URIPath.decode(uri) else {
                throw ContainerError.malformedXML(file: name, reason: "SigReference has no readable URI")
            }
            return (decoded, element.attribute("MimeType"))
        }
        let elements = root.children("DataObjectReference", in: XMLNamespace.asic)
        guard elements.count <= Self.maximumReferences else {
            throw ContainerError.malformedXML(
                file: name, reason: "\(elements.count) references (at most \(Self.maximumReferences) are read)")
        }
        references = try elements.map { element in
            guard let uri = element.attribute("URI"), let decoded = URIPath.decode(uri) else {
                throw ContainerError.malformedXML(file: name, reason: "a DataObjectReference has no readable URI")
            }
            let rootfile = element.attribute("Rootfile").map { $0 == "true" || $0 == "1" } ?? false
            let algorithm = element.child("DigestMethod", in: XMLNamespace.ds)?.attribute("Algorithm").flatMap(
                DigestAlgorithm.init(xmlURI:))
            let digest = element.child("DigestValue", in: XMLNamespace.ds).flatMap { XMLBase64.decode($0.text) }
            return Reference(name: decoded, isRootfile: rootfile, digestAlgorithm: algorithm, digest: digest)
        }
        self.name = name
        self.data = data
    }
}
