import FoundationEssentials
import TamgaCore

/// A data file of a detached signature, known by its name and digest only (SiVa's hashcode
/// validation: the integrator keeps the files and sends their hashes).
public struct DetachedDataFile: Sendable, Equatable {
    public let name: String
    /// The algorithm as the request names it (`SHA256`, DSS's names), for messages.
    public let algorithmName: String
    /// The algorithm, when tamga has it (SHA-1 and SHA-2); a digest in another one cannot match
    /// any reference tamga checks.
    public let algorithm: DigestAlgorithm?
    public let digest: Data

    public init(name: String, algorithmName: String, algorithm: DigestAlgorithm?, digest: Data) {
        self.name = name
        self.algorithmName = algorithmName
        self.algorithm = algorithm
        self.digest = digest
    }
}

extension Container {
    /// An ASiC-E signature file (`asic:XAdESSignatures`, as `META-INF/signatures0.xml` holds it)
    /// without its container: the data files are `dataFiles`, known by their digests only, or,
    /// when nil, the files the signature's own references name, with the digests they state (so
    /// that the data-file check passes by construction and the one who keeps the files compares
    /// the digests the report lists: SiVa's second hashcode form).
    ///
    /// Validation then runs as for a container, with three differences: a data file's content
    /// cannot be read (an archive time-stamp, which covers the files' bytes, is reported as not
    /// checkable), a digest in another algorithm than the reference's is a finding, and the media
    /// types are not compared with a manifest (there is none). Nothing can be saved.
    ///
    /// - Throws: `ContainerError.malformedXML` when the bytes are not such a file (SiVa answers
    ///   400 "Signature file malformed").
    public convenience init(
        detachedSignature data: Data, named name: String, dataFiles given: [DetachedDataFile]?
    ) throws {
        guard data.count <= Int(Container.xmlEntryLimit) else {
            throw ContainerError.entryTooLarge(name: name, limit: Int(Container.xmlEntryLimit))
        }
        let document = try XMLDocument(data: data, name: name, limits: .signature)
        guard let root = document.root, root.is("XAdESSignatures", in: XMLNamespace.asic) else {
            throw ContainerError.malformedXML(file: name, reason: "the root element is not asic:XAdESSignatures")
        }
        let signatures = root.children("Signature", in: XMLNamespace.ds)
        guard !signatures.isEmpty, signatures.count == root.children.count else {
            throw ContainerError.malformedXML(
                file: name, reason: "asic:XAdESSignatures must hold ds:Signature elements only")
        }
        var files: [DataFile] = []
        if let given {
            for file in given {
                files.append(
                    DataFile(
                        name: file.name, mediaType: "application/octet-stream", size: 0,
                        source: .digest(name: file.algorithmName, algorithm: file.algorithm, value: file.digest)))
            }
        } else {
            // The signature's own data-file references, each once, in their order.
            var seen = Set<ExactName>()
            for signature in signatures {
                let references =
                    signature.child("SignedInfo", in: XMLNamespace.ds)?.children("Reference", in: XMLNamespace.ds) ?? []
                for reference in references.prefix(SignatureValidator.maximumReferences) {
                    let type = reference.attribute("Type")
                    guard type != SignatureValidator.signedPropertiesType,
                        type != SignatureValidator.signedPropertiesTypeV111,
                        let uri = reference.attribute("URI"), !uri.hasPrefix("#"), !uri.contains("://"),
                        let fileName = URIPath.decode(uri), seen.insert(fileName.exact).inserted,
                        let method = reference.child("DigestMethod", in: XMLNamespace.ds)?.attribute("Algorithm"),
                        let algorithm = DigestAlgorithm(xmlURI: method),
                        let value = reference.child("DigestValue", in: XMLNamespace.ds).flatMap({
                            XMLBase64.decode($0.text)
                        })
                    else { continue }
                    files.append(
                        DataFile(
                            name: fileName, mediaType: "application/octet-stream", size: 0,
                            source: .digest(name: algorithm.rawValue.uppercased(), algorithm: algorithm, value: value)))
                }
            }
        }
        self.init(detachedPath: name, dataFiles: files, signature: SignatureFile(name: name, data: data, entry: nil))
    }

    /// The digest a detached data file was given by, and its algorithm's name as given.
    public func givenDigest(of file: DataFile) -> (algorithm: String, digest: Data)? {
        if case .digest(let name, _, let value) = file.source { return (name, value) }
        return nil
    }
}
