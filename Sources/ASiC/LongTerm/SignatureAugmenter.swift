import FoundationEssentials
import Glibc
import TamgaCore

/// Raises a signature to T, LT or LTA by adding unsigned properties to its XML document:
/// a time-stamp over the canonical SignatureValue, then the issuer certificate and a fresh
/// OCSP response (asked *after* the time-stamp, so producedAt is not before genTime), then
/// an archive time-stamp. Signed parts are never changed. Any service failure throws and
/// nothing is returned, so the caller writes nothing.
struct SignatureAugmenter {
    let container: Container
    let services: LongTermServices
    var clock = PhaseClock()

    /// - Returns: the new document, or nil when every signature in it already reaches `profile`.
    func augment(_ data: Data, fileName: String, to profile: SignatureProfile) async throws -> Data? {
        guard profile > .B else { return nil }
        let document = try XMLDocument(data: data, name: fileName)
        guard let root = document.root else {
            throw ContainerError.malformedXML(file: fileName, reason: "empty document")
        }
        var changed = false
        for signature in root.children("Signature", in: XMLNamespace.ds) {
            if try await augment(signature, in: document, to: profile) { changed = true }
        }
        return changed ? document.serialized() : nil
    }

    /// - Returns: true when something was added.
    private func augment(
        _ signature: XMLElement, in document: XMLDocument, to profile: SignatureProfile
    ) async throws -> Bool {
        let name = document.name
        guard let signedInfo = signature.child("SignedInfo", in: XMLNamespace.ds),
            let signatureValue = signature.child("SignatureValue", in: XMLNamespace.ds),
            let qualifying = signature.child("Object", in: XMLNamespace.ds)?.child(
                "QualifyingProperties", in: XMLNamespace.xades),
            let certificateText = signature.child("KeyInfo", in: XMLNamespace.ds)?.child(
                "X509Data", in: XMLNamespace.ds)?
                .child("X509Certificate", in: XMLNamespace.ds)?.text,
            let certificate = XMLBase64.decode(certificateText).flatMap({ try? Certificate(der: $0) })
        else {
            throw ContainerError.malformedXML(file: name, reason: "not a XAdES signature tamga can extend")
        }
        let id = signature.attribute("Id") ?? "S"
        // Already there — except that asking for LTA again adds another archive time-stamp
        // (the renewal that keeps an archive verifiable as algorithms age).
        let current = SignatureProfile.detect(qualifying)
        // OCSP without a time-stamp is a BDOC 2.1 time-mark (validated only, never made or changed).
        let unsigned = qualifying.child("UnsignedProperties", in: XMLNamespace.xades)?
            .child("UnsignedSignatureProperties", in: XMLNamespace.xades)
        if current == .B, unsigned?.child("RevocationValues", in: XMLNamespace.xades) != nil {
            throw ContainerError.timeMarkNotExtensible(name)
        }
        if current >= profile && !(profile == .LTA && current == .LTA) { return false }
        let method =
            signedInfo.child("CanonicalizationMethod", in: XMLNamespace.ds)?.attribute("Algorithm")
            .flatMap(Canonicalization.init(rawValue:)) ?? .c14n10
        let unsignedProperties =
            qualifying.child("UnsignedProperties", in: XMLNamespace.xades)
            ?? document.appendElement(
                to: qualifying, namespace: XMLNamespace.xades, prefix: "xades", localName: "UnsignedProperties")
        let properties =
            unsignedProperties.child("UnsignedSignatureProperties", in: XMLNamespace.xades)
            ?? document.appendElement(
                to: unsignedProperties, namespace: XMLNamespace.xades, prefix: "xades",
                localName: "UnsignedSignatureProperties")
        let present = Set(properties.children.map(\.localName))

        // T: the signature time-stamp.
        var genTime: Date? = nil
        if let existing = properties.child("SignatureTimeStamp", in: XMLNamespace.xades)?
            .child("EncapsulatedTimeStamp", in: XMLNamespace.xades).flatMap({ XMLBase64.decode($0.text) })
        {
            genTime = (try? TimeStampToken(der: existing))?.genTime
        } else {
            let stamped = try document.canonicalize(signatureValue, method)
            let tsa = try requireTSA()
            let token = try await clock.measure(\.timeStamp) { try await tsa.timeStamp(stamped) }
            genTime = token.genTime
            let element = document.appendElement(
                to: properties, namespace: XMLNamespace.xades, prefix: "xades",
                localName: "SignatureTimeStamp", attributes: [("Id", "\(id)-T0")])
            document.appendElement(
                to: element, namespace: XMLNamespace.ds, prefix: "ds", localName: "CanonicalizationMethod",
                attributes: [("Algorithm", method.rawValue)])
            document.appendElement(
                to: element, namespace: XMLNamespace.xades, prefix: "xades", localName: "EncapsulatedTimeStamp",
                text: token.der.base64EncodedString())
        }
        guard profile >= .LT else { return true }

        // LT: issuer certificate and OCSP, unless the signature carries them already.
        if !present.contains("RevocationValues") {
            let (issuer, response) = try await clock.measure(\.ocsp) {
                let issuer = try await services.issuer(of: certificate)
                return (issuer, try await services.ocsp.check(certificate, issuer: issuer, url: services.ocspURL))
            }
            if let genTime, let producedAt = response.producedAt, producedAt < genTime {
                throw CoreError.serviceResponseRejected(
                    service: "OCSP responder", url: services.ocspURL?.absoluteString ?? "AIA",
                    reason:
                        "producedAt \(XSDDateTime.format(producedAt)) is before the time-stamp (\(XSDDateTime.format(genTime)))"
                )
            }
            if !present.contains("CertificateValues") {
                let values = document.appendElement(
                    to: properties, namespace: XMLNamespace.xades, prefix: "xades", localName: "CertificateValues")
                document.appendElement(
                    to: values, namespace: XMLNamespace.xades, prefix: "xades",
                    localName: "EncapsulatedX509Certificate",
                    attributes: [("Id", "\(id)-CA-CERT")], text: issuer.der.base64EncodedString())
            }
            let revocation = document.appendElement(
                to: properties, namespace: XMLNamespace.xades, prefix: "xades", localName: "RevocationValues")
            let ocspValues = document.appendElement(
                to: revocation, namespace: XMLNamespace.xades, prefix: "xades", localName: "OCSPValues")
            document.appendElement(
                to: ocspValues, namespace: XMLNamespace.xades, prefix: "xades", localName: "EncapsulatedOCSPValue",
                attributes: [("Id", "N0")], text: response.der.base64EncodedString())
        }
        guard profile >= .LTA else { return true }

        // LTA: a new archive time-stamp over everything so far (another one on each extension).
        let existing = properties.children("ArchiveTimeStamp", in: XMLNamespace.xades141).count
        let imprint = try ArchiveTimeStampInput.digest(
            signature: signature, in: document, container: container,
            method: .c14n11, algorithm: .sha256, before: nil)
        let tsa = try requireTSA()
        let token = try await clock.measure(\.timeStamp) { try await tsa.timeStamp(imprint: imprint) }
        let archive = document.appendElement(
            to: properties, namespace: XMLNamespace.xades141, prefix: "xades141",
            localName: "ArchiveTimeStamp", attributes: [("Id", "\(id)-A\(existing)")])
        document.appendElement(
            to: archive, namespace: XMLNamespace.ds, prefix: "ds", localName: "CanonicalizationMethod",
            attributes: [("Algorithm", Canonicalization.c14n11.rawValue)])
        document.appendElement(
            to: archive, namespace: XMLNamespace.xades, prefix: "xades", localName: "EncapsulatedTimeStamp",
            text: token.der.base64EncodedString())
        return true
    }

    private func requireTSA() throws -> TimeStampClient {
        guard let tsa = services.timeStamping else {
            throw CoreError.serviceURLMissing(service: "time-stamping authority (--tsa URL)")
        }
        return tsa
    }
}
