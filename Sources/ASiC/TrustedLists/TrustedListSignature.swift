import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// Checks the enveloped XML-DSig signature of a trusted list before anything in it is read:
/// the KeyInfo certificate must be one of the pinned signers, its key must verify the
/// SignatureValue over the canonical SignedInfo, and SignedInfo must hold a reference over
/// the whole list (`""` or `#` + root Id) with the enveloped-signature transform, whose digest
/// matches; any other reference (SignedProperties) must match as well.
enum TrustedListSignature {
    static let enveloped = "http://www.w3.org/2000/09/xmldsig#enveloped-signature"

    static func verify(root: XMLElement, document: XMLDocument, signers: [Certificate]) throws {
        let signatures = root.children("Signature", in: XMLNamespace.ds)
        guard signatures.count == 1, let signature = signatures.first,
            let signedInfo = signature.child("SignedInfo", in: XMLNamespace.ds),
            let valueText = signature.child("SignatureValue", in: XMLNamespace.ds)?.text,
            let value = XMLBase64.decode(valueText)
        else {
            throw TrustedListError.signatureInvalid("it has no single, complete ds:Signature")
        }
        guard
            let keyInfoText = signature.child("KeyInfo", in: XMLNamespace.ds)?.child("X509Data", in: XMLNamespace.ds)?
                .child("X509Certificate", in: XMLNamespace.ds)?.text,
            let signer = XMLBase64.decode(keyInfoText).flatMap({ try? Certificate(der: $0) })
        else {
            throw TrustedListError.signatureInvalid("no signer certificate in KeyInfo")
        }
        guard signers.contains(signer) else { throw TrustedListError.untrustedSigner }

        guard
            let c14n = signedInfo.child("CanonicalizationMethod", in: XMLNamespace.ds)?.attribute("Algorithm")
                .flatMap(Canonicalization.init(rawValue:))
        else {
            throw TrustedListError.signatureInvalid("unknown canonicalization")
        }
        var curve: SignatureAlgorithm.Curve? = nil
        if case .ec(let c) = signer.publicKey.type { curve = c }
        guard
            let algorithm = signedInfo.child("SignatureMethod", in: XMLNamespace.ds)?.attribute("Algorithm")
                .flatMap({ SignatureAlgorithm(xmlURI: $0, curve: curve) })
        else {
            throw TrustedListError.signatureInvalid("unsupported signature method")
        }
        let digest = Digest.compute(algorithm.digest, over: try document.canonicalize(signedInfo, c14n))
        guard signer.publicKey.verify(signature: value, digest: digest, algorithm: algorithm) else {
            throw TrustedListError.signatureInvalid("the SignatureValue does not verify with the signer's key")
        }

        var coversList = false
        for reference in signedInfo.children("Reference", in: XMLNamespace.ds) {
            let uri = reference.attribute("URI") ?? ""
            let transforms =
                reference.child("Transforms", in: XMLNamespace.ds)?.children("Transform", in: XMLNamespace.ds)
                .compactMap { $0.attribute("Algorithm") } ?? []
            guard
                let method = reference.child("DigestMethod", in: XMLNamespace.ds)?.attribute("Algorithm").flatMap(
                    DigestAlgorithm.init(xmlURI:)),
                let expected = reference.child("DigestValue", in: XMLNamespace.ds).flatMap({ XMLBase64.decode($0.text) }
                )
            else {
                throw TrustedListError.signatureInvalid("a reference without a usable digest")
            }
            let target: XMLElement
            if uri.isEmpty || uri == "#\(root.attribute("Id") ?? "\u{0}")" {
                target = root
            } else if uri.hasPrefix("#"), case let found = document.elements(withID: String(uri.dropFirst())),
                found.count == 1,
                let element = found.first
            {
                target = element
            } else {
                throw TrustedListError.signatureInvalid("reference \(uri) points at nothing")
            }
            let isEnveloped = transforms.contains(enveloped)
            let canonical =
                transforms.filter { $0 != enveloped }.compactMap(Canonicalization.init(rawValue:)).last ?? .c14n10
            guard transforms.allSatisfy({ $0 == enveloped || Canonicalization(rawValue: $0) != nil }) else {
                throw TrustedListError.signatureInvalid("unsupported transform in reference \(uri)")
            }
            let bytes = try document.canonicalize(target, canonical, excluding: isEnveloped ? signature : nil)
            guard ConstantTime.equal(Digest.compute(method, over: bytes).bytes, expected) else {
                throw TrustedListError.signatureInvalid(
                    "the digest of reference \(uri.isEmpty ? "(the list)" : uri) does not match: the list was changed")
            }
            if target == root && isEnveloped { coversList = true }
        }
        guard coversList else { throw TrustedListError.signatureInvalid("no reference covers the whole list") }
    }
}
