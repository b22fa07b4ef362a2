import Foundation
import TamgaCore

/// The imprint of a XAdES 1.4.1 `ArchiveTimeStamp` as the reference computes it
/// (asice.md §1.5): one hash over, in order, each `ds:Reference` target in SignedInfo order
/// (the canonical SignedProperties, or a data file's raw bytes, streamed), then the canonical
/// SignedInfo, SignatureValue and KeyInfo, then every UnsignedSignatureProperties child that
/// comes before the archive time-stamp being made or checked. Each element is canonicalized on
/// its own with the archive time-stamp's method.
enum ArchiveTimeStampInput {
    static func digest(signature: XMLElement, in document: XMLDocument, container: Container,
                       method: Canonicalization, algorithm: DigestAlgorithm, before stop: XMLElement?) throws -> Digest {
        guard let signedInfo = signature.child("SignedInfo", in: XMLNamespace.ds),
              let signatureValue = signature.child("SignatureValue", in: XMLNamespace.ds),
              let keyInfo = signature.child("KeyInfo", in: XMLNamespace.ds),
              let qualifying = signature.child("Object", in: XMLNamespace.ds)?.child("QualifyingProperties", in: XMLNamespace.xades),
              let unsigned = qualifying.child("UnsignedProperties", in: XMLNamespace.xades)?
                .child("UnsignedSignatureProperties", in: XMLNamespace.xades) else {
            throw ContainerError.malformedXML(file: document.name, reason: "the signature lacks the parts an archive time-stamp covers")
        }
        let hasher = StreamingDigest(algorithm)
        for reference in signedInfo.children("Reference", in: XMLNamespace.ds) {
            let uri = reference.attribute("URI") ?? ""
            if uri.hasPrefix("#") {
                let id = String(uri.dropFirst())
                guard let target = document.elements(withID: id).first else {
                    throw ContainerError.malformedXML(file: document.name, reason: "reference \(uri) points at nothing")
                }
                hasher.update(try document.canonicalize(target, method))
            } else {
                guard let name = URIPath.decode(uri), let file = container.dataFiles.first(where: { $0.name == name }) else {
                    throw ContainerError.dataFileNotFound(uri)
                }
                try container.read(file) { hasher.update($0) }
            }
        }
        for element in [signedInfo, signatureValue, keyInfo] { hasher.update(try document.canonicalize(element, method)) }
        for child in unsigned.children {
            if let stop, child == stop { break }
            hasher.update(try document.canonicalize(child, method))
        }
        return hasher.finish()
    }
}
