import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// Builds one `META-INF/signaturesN.xml` in the exact shape the reference writes
/// (`docs/design/asice.md` §1.3): one line after the XML declaration, `asic`, `ds` and `xades` declared on
/// the root, C14N 1.1 inclusive for SignedInfo and the SignedProperties reference.
///
/// The digests are taken by canonicalizing elements *of the final document text*, parsed
/// back, so the inherited namespace context is exactly what a verifier sees.
struct SignatureBuilder {
    struct DataReference {
        let name: String
        let mediaType: String
        let digest: Digest
    }

    let id: String
    let certificate: Certificate
    let algorithm: SignatureAlgorithm
    let references: [DataReference]
    let options: SignatureOptions
    let signingTime: Date

    private var referenceDigest: DigestAlgorithm { options.referenceDigest.algorithm }

    /// The document with an empty SignatureValue, and the digest of canonical SignedInfo to sign.
    func prepare() throws -> (template: String, digest: Digest) {
        let signedProperties = signedPropertiesXML()
        // Pass 1: canonicalize SignedProperties inside the document (SignedInfo does not affect it).
        let draft = document(
            signedInfo: signedInfoXML(signedPropertiesDigest: nil), signatureValue: "",
            signedProperties: signedProperties)
        let draftDoc = try XMLDocument(data: Data(draft.utf8), name: "signature")
        guard let spElement = draftDoc.elements(withID: "\(id)-SignedProperties").first else {
            throw ContainerError.malformedXML(
                file: "signature", reason: "SignedProperties not found in the built document")
        }
        let spDigest = Digest.compute(referenceDigest, over: try draftDoc.canonicalize(spElement, .c14n11))
        // Pass 2: the final SignedInfo, canonicalized in the final document.
        let template = document(
            signedInfo: signedInfoXML(signedPropertiesDigest: spDigest), signatureValue: "",
            signedProperties: signedProperties)
        let doc = try XMLDocument(data: Data(template.utf8), name: "signature")
        guard let signature = doc.root?.child("Signature", in: XMLNamespace.ds),
            let signedInfo = signature.child("SignedInfo", in: XMLNamespace.ds)
        else {
            throw ContainerError.malformedXML(file: "signature", reason: "SignedInfo not found in the built document")
        }
        let digest = Digest.compute(algorithm.digest, over: try doc.canonicalize(signedInfo, .c14n11))
        return (template, digest)
    }

    /// Inserts the signature value into the template.
    static func finish(template: String, signatureValue: Data) -> Data {
        let marker = "-SIG\"></ds:SignatureValue>"
        let filled = template.replacingAll(
            marker, with: "-SIG\">\(signatureValue.base64EncodedString())</ds:SignatureValue>")
        return Data(filled.utf8)
    }

    private func document(signedInfo: String, signatureValue: String, signedProperties: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            + "<asic:XAdESSignatures xmlns:asic=\"\(XMLNamespace.asic)\" xmlns:ds=\"\(XMLNamespace.ds)\" xmlns:xades=\"\(XMLNamespace.xades)\">"
            + "<ds:Signature Id=\"\(id)\">"
            + signedInfo
            + "<ds:SignatureValue Id=\"\(id)-SIG\">\(signatureValue)</ds:SignatureValue>"
            + "<ds:KeyInfo><ds:X509Data><ds:X509Certificate>\(certificate.der.base64EncodedString())</ds:X509Certificate></ds:X509Data></ds:KeyInfo>"
            + "<ds:Object><xades:QualifyingProperties Target=\"#\(id)\">"
            + signedProperties
            + "</xades:QualifyingProperties></ds:Object>"
            + "</ds:Signature></asic:XAdESSignatures>"
    }

    private func signedInfoXML(signedPropertiesDigest: Digest?) -> String {
        var xml =
            "<ds:SignedInfo>"
            + "<ds:CanonicalizationMethod Algorithm=\"\(Canonicalization.c14n11.rawValue)\"></ds:CanonicalizationMethod>"
            + "<ds:SignatureMethod Algorithm=\"\(algorithm.xmlURI)\"></ds:SignatureMethod>"
        for (index, reference) in references.enumerated() {
            xml +=
                "<ds:Reference Id=\"\(id)-RefId\(index)\" URI=\"\(URIPath.encode(reference.name))\">"
                + digestElements(reference.digest) + "</ds:Reference>"
        }
        xml +=
            "<ds:Reference Id=\"\(id)-RefId\(references.count)\" Type=\"http://uri.etsi.org/01903#SignedProperties\" URI=\"#\(id)-SignedProperties\">"
            + "<ds:Transforms><ds:Transform Algorithm=\"\(Canonicalization.c14n11.rawValue)\"></ds:Transform></ds:Transforms>"
            + digestElements(signedPropertiesDigest ?? Digest.compute(referenceDigest, over: Data()))
            + "</ds:Reference></ds:SignedInfo>"
        return xml
    }

    private func digestElements(_ digest: Digest) -> String {
        "<ds:DigestMethod Algorithm=\"\(digest.algorithm.xmlURI)\"></ds:DigestMethod>"
            + "<ds:DigestValue>\(digest.bytes.base64EncodedString())</ds:DigestValue>"
    }

    private func signedPropertiesXML() -> String {
        let v2 = options.certificateReference == .v2
        let certDigest = certificate.fingerprint(referenceDigest)
        var xml =
            "<xades:SignedProperties Id=\"\(id)-SignedProperties\"><xades:SignedSignatureProperties>"
            + "<xades:SigningTime>\(XAdESTime.format(signingTime))</xades:SigningTime>"
        if v2 {
            xml +=
                "<xades:SigningCertificateV2><xades:Cert><xades:CertDigest>" + digestElements(certDigest)
                + "</xades:CertDigest><xades:IssuerSerialV2>\(certificate.issuerSerialDER.base64EncodedString())</xades:IssuerSerialV2>"
                + "</xades:Cert></xades:SigningCertificateV2>"
        } else {
            xml +=
                "<xades:SigningCertificate><xades:Cert><xades:CertDigest>" + digestElements(certDigest)
                + "</xades:CertDigest><xades:IssuerSerial><ds:X509IssuerName>\(XMLText.content(certificate.issuer))</ds:X509IssuerName>"
                + "<ds:X509SerialNumber>\(certificate.serialNumber)</ds:X509SerialNumber></xades:IssuerSerial>"
                + "</xades:Cert></xades:SigningCertificate>"
        }
        if let place = options.productionPlace, !place.isEmpty {
            let element = v2 ? "SignatureProductionPlaceV2" : "SignatureProductionPlace"
            xml += "<xades:\(element)>"
            func part(_ name: String, _ value: String?) {
                if let value, !value.isEmpty { xml += "<xades:\(name)>\(XMLText.content(value))</xades:\(name)>" }
            }
            part("City", place.city)
            if v2 { part("StreetAddress", place.streetAddress) }
            part("StateOrProvince", place.stateOrProvince)
            part("PostalCode", place.postalCode)
            part("CountryName", place.countryName)
            xml += "</xades:\(element)>"
        }
        let roles = options.roles.filter { !$0.isEmpty }
        if !roles.isEmpty {
            let element = v2 ? "SignerRoleV2" : "SignerRole"
            xml +=
                "<xades:\(element)><xades:ClaimedRoles>"
                + roles.map { "<xades:ClaimedRole>\(XMLText.content($0))</xades:ClaimedRole>" }.joined()
                + "</xades:ClaimedRoles></xades:\(element)>"
        }
        xml += "</xades:SignedSignatureProperties><xades:SignedDataObjectProperties>"
        for (index, reference) in references.enumerated() {
            xml +=
                "<xades:DataObjectFormat ObjectReference=\"#\(id)-RefId\(index)\"><xades:MimeType>\(XMLText.content(reference.mediaType))</xades:MimeType></xades:DataObjectFormat>"
        }
        xml += "</xades:SignedDataObjectProperties></xades:SignedProperties>"
        return xml
    }
}
