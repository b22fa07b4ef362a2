import FoundationEssentials
import Glibc
import TamgaCore

/// The imprint of a XAdES 1.4.1 `ArchiveTimeStamp` as the reference computes it
/// (docs/design/asice.md §1.5): one hash over, in order, each `ds:Reference` target in SignedInfo order
/// (the canonical SignedProperties, or a data file's raw bytes, streamed), then the canonical
/// SignedInfo, SignatureValue and KeyInfo, then every UnsignedSignatureProperties child that
/// comes before the archive time-stamp being made or checked. Each element is canonicalized on
/// its own with the archive time-stamp's method.
///
/// Every archive time-stamp of a signature covers the same prefix (the data files above all)
/// plus the unsigned properties before it, so the inputs of a signature's archive time-stamps
/// are one growing stream: `Progress` keeps the hasher of the longest prefix seen, per
/// canonicalization and hash, and the next time-stamp only adds what lies between. The data
/// files are read once per (method, hash) for a whole chain, not once per time-stamp (2,000
/// time-stamps over a 1 MB container took an hour and a half the other way).
enum ArchiveTimeStampInput {
    /// The hasher after the unsigned properties before child `processed`, for one signature,
    /// one canonicalization and one hash.
    final class Progress {
        let signature: XMLElement
        let method: Canonicalization
        let hasher: StreamingDigest
        var processed: Int
        init(signature: XMLElement, method: Canonicalization, hasher: StreamingDigest, processed: Int) {
            self.signature = signature
            self.method = method
            self.hasher = hasher
            self.processed = processed
        }
    }

    /// The same as `digest`, continuing from `cache`'s progress for this signature, method and
    /// hash when the stop lies at or after it (time-stamps are checked in document order).
    static func digest(
        signature: XMLElement, in document: XMLDocument, container: Container, method: Canonicalization,
        algorithm: DigestAlgorithm, before stop: XMLElement?, cache: inout [Progress]
    ) throws -> Digest {
        guard
            let unsigned = signature.child("Object", in: XMLNamespace.ds)?.child(
                "QualifyingProperties", in: XMLNamespace.xades)?
                .child("UnsignedProperties", in: XMLNamespace.xades)?.child(
                    "UnsignedSignatureProperties", in: XMLNamespace.xades)
        else {
            return try digest(
                signature: signature, in: document, container: container, method: method, algorithm: algorithm,
                before: stop)
        }
        let children = unsigned.children
        let end = stop.flatMap { stop in children.firstIndex(where: { $0 == stop }) } ?? children.count
        let progress: Progress
        if let found = cache.first(where: {
            $0.signature == signature && $0.method == method && $0.hasher.algorithm == algorithm && $0.processed <= end
        }) {
            progress = found
        } else {
            progress = Progress(
                signature: signature, method: method,
                hasher: try prefix(
                    signature: signature, in: document, container: container,
                    method: method, algorithm: algorithm), processed: 0)
            cache.append(progress)
        }
        for child in children[progress.processed..<end] {
            progress.hasher.update(try document.canonicalize(child, method))
        }
        progress.processed = end
        guard let ending = progress.hasher.copy() else {
            throw ContainerError.malformedXML(
                file: document.name, reason: "out of memory while hashing an archive time-stamp's input")
        }
        return ending.finish()
    }

    static func digest(
        signature: XMLElement, in document: XMLDocument, container: Container,
        method: Canonicalization, algorithm: DigestAlgorithm, before stop: XMLElement?
    ) throws -> Digest {
        guard
            let unsigned = signature.child("Object", in: XMLNamespace.ds)?.child(
                "QualifyingProperties", in: XMLNamespace.xades)?
                .child("UnsignedProperties", in: XMLNamespace.xades)?.child(
                    "UnsignedSignatureProperties", in: XMLNamespace.xades)
        else {
            throw ContainerError.malformedXML(
                file: document.name, reason: "the signature lacks the parts an archive time-stamp covers")
        }
        let hasher = try prefix(
            signature: signature, in: document, container: container, method: method, algorithm: algorithm)
        for child in unsigned.children {
            if let stop, child == stop { break }
            hasher.update(try document.canonicalize(child, method))
        }
        return hasher.finish()
    }

    /// The hasher over the references' targets, SignedInfo, SignatureValue and KeyInfo.
    private static func prefix(
        signature: XMLElement, in document: XMLDocument, container: Container,
        method: Canonicalization, algorithm: DigestAlgorithm
    ) throws -> StreamingDigest {
        guard let signedInfo = signature.child("SignedInfo", in: XMLNamespace.ds),
            let signatureValue = signature.child("SignatureValue", in: XMLNamespace.ds),
            let keyInfo = signature.child("KeyInfo", in: XMLNamespace.ds),
            let qualifying = signature.child("Object", in: XMLNamespace.ds)?.child(
                "QualifyingProperties", in: XMLNamespace.xades),
            qualifying.child("UnsignedProperties", in: XMLNamespace.xades)?.child(
                "UnsignedSignatureProperties", in: XMLNamespace.xades) != nil
        else {
            throw ContainerError.malformedXML(
                file: document.name, reason: "the signature lacks the parts an archive time-stamp covers")
        }
        let references = signedInfo.children("Reference", in: XMLNamespace.ds)
        // The same bound as the reference check: past it the signature is refused anyway, and
        // each reference here costs a data file's bytes or a canonicalization.
        let bound = SignatureValidator.referenceBound(dataFiles: container.dataFiles.count)
        guard references.count <= bound else {
            throw ContainerError.malformedXML(
                file: document.name, reason: "\(references.count) references (at most \(bound) are read)")
        }
        let files = Dictionary(container.dataFiles.map { ($0.name.exact, $0) }, uniquingKeysWith: { first, _ in first })
        // Resolve every target first, so that a data file named twice is refused before any
        // byte is read: N references to one large (well compressed) file would otherwise cost
        // N reads of it. A signature that names a file twice is invalid anyway (duplicate-reference).
        enum Target { case file(DataFile), element(String) }
        var targets: [Target] = []
        var named: Set<ExactName> = []
        for reference in references {
            let uri = reference.attribute("URI") ?? ""
            if uri.hasPrefix("#") {
                targets.append(.element(String(uri.dropFirst())))
            } else {
                guard let name = URIPath.decode(uri), let file = files[name.exact] else {
                    throw ContainerError.dataFileNotFound(uri)
                }
                guard named.insert(name.exact).inserted else {
                    throw ContainerError.malformedXML(
                        file: document.name, reason: "\(name) is referenced more than once")
                }
                targets.append(.file(file))
            }
        }
        // The leading run of data files hashes the same for every canonicalization and every
        // signature that signs the same files in the same order (the usual case), so the
        // container keeps the hasher's state after it: each data file is read once per hash.
        let run = targets.prefix { if case .file = $0 { true } else { false } }.compactMap { target -> DataFile? in
            if case .file(let file) = target { file } else { nil }
        }
        let hasher = try container.hasherAfterDataFiles(run, algorithm)
        // The elements referenced, found in one walk of the document (a walk per reference
        // would cost references × elements), first match per Id as before.
        var wanted: Set<String> = []
        for target in targets { if case .element(let id) = target { wanted.insert(id) } }
        var byID: [String: XMLElement] = [:]
        if !wanted.isEmpty {
            document.root?.walk { element in
                if let id = element.attribute("Id"), wanted.contains(id), byID[id] == nil { byID[id] = element }
            }
        }
        // Each distinct element is canonicalized once, however often it is referenced.
        var canonical: [String: Data] = [:]
        for target in targets.dropFirst(run.count) {
            switch target {
            case .file(let file):
                try container.read(file) { hasher.update($0) }
            case .element(let id):
                if let known = canonical[id] {
                    hasher.update(known)
                    continue
                }
                guard let element = byID[id] else {
                    throw ContainerError.malformedXML(file: document.name, reason: "reference #\(id) points at nothing")
                }
                let bytes = try document.canonicalize(element, method)
                canonical[id] = bytes
                hasher.update(bytes)
            }
        }
        for element in [signedInfo, signatureValue, keyInfo] {
            hasher.update(try document.canonicalize(element, method))
        }
        return hasher
    }
}
