import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// Judges one signature of a DigiDoc file as the format defines it (docs/design/ddoc.md §4–6)
/// and as SiVa's DigiDoc4j judges it, with tamga's finding codes:
/// 1. structure: SignedInfo, SignatureValue, the KeyInfo certificate, SignedProperties;
///    C14N 1.0 and RSA-SHA1; no transforms (SK-XML 1.0 has its own);
/// 2. references: every DataFile exactly once (`#Dn`, over its canonical element: the alternate
///    digest of a 1.3 DataFile without its namespace is a warning, as in DigiDoc4j), the
///    SignedProperties once, SK-XML's MIME references;
/// 3. the SignatureValue over SignedInfo with the KeyInfo certificate's key;
/// 4. the signing certificate: CertDigest, IssuerSerial, nonRepudiation;
/// 5. the notary: one OCSP response, its digest in CompleteRevocationRefs (1.2, 1.3), its
///    ProducedAt, its nonce = SHA-1 of the SignatureValue (a time-mark, as BDOC TM's), the status
///    good, the responder trusted at producedAt (a responder pinned for the signer's CA, or one
///    the given trust or list authorises), the responder certificate that CompleteCertificateRefs names;
/// 6. the signer's chain at producedAt.
/// A signature without a notary is a B-level signature, INVALID: a DDOC is never completed now.
struct DDOCSignatureValidator {
    let document: DigiDocDocument
    let options: ValidationOptions
    let trust: DDOCTrust?

    static let rsaSHA1 = "http://www.w3.org/2000/09/xmldsig#rsa-sha1"
    static let sha1 = "http://www.w3.org/2000/09/xmldsig#sha1"

    private var version: DigiDocVersion { document.version }

    func validate(_ block: DigiDocSignatureBlock) -> ValidationReport.SignatureResult {
        var findings = FindingList()
        let label = "S\(block.index)"
        let xml: XMLDocument
        do {
            xml = try XMLDocument(data: block.bytes, name: "Signature \(label)", limits: .signature)
        } catch {
            return failure(label, nil, "signature-unreadable", "\(error)")
        }
        guard let signature = xml.root, signature.localName == "Signature" else {
            return failure(label, nil, "structure", "the element is not a Signature")
        }
        let id = signature.attribute("Id")
        guard let signedInfo = one(signature, "SignedInfo", &findings),
            let valueElement = one(signature, "SignatureValue", &findings)
        else {
            return result(label, id, nil, nil, nil, findings)
        }
        let qualifying = child(child(signature, "Object"), "QualifyingProperties")
        let signedProperties = child(qualifying, "SignedProperties")
        let ssp = child(signedProperties, "SignedSignatureProperties")
        if signedProperties == nil { findings.invalid("structure", "the signature has no SignedProperties") }
        let signingTime = child(ssp, "SigningTime").flatMap { version.parseTime($0.text) }

        // The signer's certificate (KeyInfo) and method.
        let certificate: Certificate? = {
            let elements = descendants(child(signature, "KeyInfo"), "X509Certificate")
            guard elements.count == 1, let der = XMLBase64.decode(elements[0].text),
                let certificate = try? Certificate(der: der)
            else {
                findings.invalid(
                    "keyinfo-certificate", "KeyInfo must hold exactly one readable X509Certificate, the signer's")
                return nil
            }
            return certificate
        }()
        let method = child(signedInfo, "SignatureMethod")?.attribute("Algorithm")
        if method != Self.rsaSHA1 {
            findings.invalid(
                "unsupported-signature-method",
                "SignatureMethod \(method ?? "(none)") is not rsa-sha1, the only one DigiDoc signs with")
        }
        if child(signedInfo, "CanonicalizationMethod")?.attribute("Algorithm") != Canonicalization.c14n10.rawValue {
            findings.invalid(
                "unsupported-canonicalization", "SignedInfo's CanonicalizationMethod is not C14N 1.0 (2001-03-15)")
        }

        checkReferences(
            signedInfo, signatureID: id, signedProperties: signedProperties, block: block, findings: &findings)
        let signatureValue = XMLBase64.decode(valueElement.text)
        if let certificate, method == Self.rsaSHA1 {
            checkSignatureValue(signatureValue, block: block, certificate: certificate, findings: &findings)
        }
        if let certificate {
            checkSigningCertificate(ssp, certificate: certificate, findings: &findings)
            if certificate.keyUsage.map({ !$0.contains(.nonRepudiation) }) ?? true {
                findings.invalid("no-non-repudiation", "the signer's certificate lacks the nonRepudiation key usage")
            }
        }

        let unsigned = child(child(qualifying, "UnsignedProperties"), "UnsignedSignatureProperties")
        var producedAt: Date? = nil
        let ocspValues = descendants(child(unsigned, "RevocationValues"), "EncapsulatedOCSPValue")
        var profile = "TM"
        if ocspValues.isEmpty {
            profile = "B"
            findings.invalid(
                "ocsp-missing",
                "the signature has no OCSP confirmation (a B-level DDOC signature): nothing shows the certificate was valid when it signed"
            )
        } else if ocspValues.count > 1 {
            findings.invalid("revocation-values", "\(ocspValues.count) OCSP confirmations; a DDOC signature has one")
        } else if let certificate {
            producedAt = checkNotary(
                ocspValues[0], unsigned: unsigned, certificate: certificate, signatureValue: signatureValue,
                findings: &findings)
        }
        if profile == "TM", options.minimumProfile == .LTA {
            findings.invalid("profile-too-low", "a DDOC time-mark counts as LT; at least LTA is required")
        }
        if let certificate {
            checkChain(
                certificate, at: producedAt ?? signingTime ?? certificate.notBefore, confirmed: producedAt != nil,
                findings: &findings)
        }
        var judged = result(label, id, certificate, signingTime, producedAt, findings, method: method, profile: profile)
        judged.claimedRoles =
            descendants(child(ssp, "SignerRole"), "ClaimedRole").map(\.text).filter { !$0.isEmpty }.nilIfEmpty
        return judged
    }

    // MARK: - References

    private func checkReferences(
        _ signedInfo: XMLElement, signatureID: String?, signedProperties: XMLElement?, block: DigiDocSignatureBlock,
        findings: inout FindingList
    ) {
        let references = signedInfo.children.filter { $0.localName == "Reference" }
        let bound = document.dataFiles.count * 2 + 16
        guard references.count <= bound else {
            findings.invalid(
                "too-many-references", "\(references.count) references for \(document.dataFiles.count) data files")
            return
        }
        var covered: [String: Int] = [:]
        var signedPropertiesReferences = 0
        let propertiesID = signedProperties?.attribute("Id")
        for reference in references {
            guard let uri = reference.attribute("URI"), uri.hasPrefix("#") else {
                findings.invalid("reference-uri", "a Reference has no same-document URI")
                continue
            }
            let target = String(uri.dropFirst())
            guard child(reference, "DigestMethod")?.attribute("Algorithm") == Self.sha1 else {
                findings.invalid(
                    "unsupported-digest", "Reference \(uri): the DigestMethod is not SHA-1, the only one DigiDoc uses")
                continue
            }
            guard let expected = child(reference, "DigestValue").flatMap({ XMLBase64.decode($0.text) }),
                expected.count == 20
            else {
                findings.invalid(
                    "reference-digest", "Reference \(uri): the DigestValue is missing or not 20 bytes of base64")
                continue
            }
            let transforms = descendants(reference, "Transform")
            if version != .skXML10, !transforms.isEmpty {
                findings.invalid(
                    "reference-transforms", "Reference \(uri) has transforms, which DIGIDOC-XML does not use")
                continue
            }
            // SK-XML 1.0: `#D0-MIME` signs the data file's MimeType.
            if version == .skXML10, let dash = target.firstIndex(of: "-"),
                target[target.index(after: dash)...] == "MIME"
            {
                let fileID = String(target[..<dash])
                guard let file = document.dataFiles.first(where: { $0.id == fileID }) else {
                    findings.invalid(
                        "reference-file-missing", "Reference \(uri) names a data file the document does not hold")
                    continue
                }
                if Digest.compute(.sha1, over: Data(file.mimeType.utf8)).bytes != expected {
                    findings.invalid(
                        "mime-type-mismatch", "\(file.fileName): its MimeType \(file.mimeType) is not the one signed")
                }
                continue
            }
            if target == propertiesID || target == "\(signatureID ?? "")-SignedProperties" {
                signedPropertiesReferences += 1
                checkSignedProperties(expected: expected, block: block, findings: &findings)
                continue
            }
            let files = document.dataFiles.filter { $0.id == target }
            guard let file = files.first else {
                findings.invalid(
                    "reference-file-missing", "Reference \(uri) names a data file the document does not hold")
                continue
            }
            covered[file.id, default: 0] += 1
            if file.digest == expected {
                continue
            } else if file.alternateDigest == expected {
                findings.warning(
                    "ddoc-alternate-digest",
                    "\(file.fileName) (\(file.id)) matches its signature only when its digest is taken without the DigiDoc 1.3 namespace, as some old writers took it (DigiDoc4j: \"alternate digest matches\")"
                )
            } else {
                findings.invalid(
                    "data-file-digest",
                    "\(file.fileName) (\(file.id)) has changed since it was signed (digest mismatch)")
            }
        }
        if signedPropertiesReferences != 1 {
            findings.invalid(
                "signed-properties-reference",
                "SignedInfo must reference SignedProperties exactly once, found \(signedPropertiesReferences)")
        }
        for file in document.dataFiles {
            switch covered[file.id] ?? 0 {
            case 1: continue
            case 0:
                findings.invalid(
                    "data-file-not-signed",
                    "\(file.fileName) (\(file.id)) is in the document but not covered by this signature")
            default:
                findings.invalid("duplicate-reference", "\(file.fileName) (\(file.id)) is referenced more than once")
            }
        }
    }

    /// The SignedProperties digest: its element taken alone, with the version's namespace.
    private func checkSignedProperties(expected: Data, block: DigiDocSignatureBlock, findings: inout FindingList) {
        do {
            guard let bytes = try Self.element("SignedProperties", in: block.bytes) else {
                findings.invalid(
                    "signed-properties-reference", "the SignedProperties element cannot be found once in the signature")
                return
            }
            let canonical = try canonical(bytes, name: "SignedProperties")
            if Digest.compute(.sha1, over: Data(canonical)).bytes != expected {
                findings.invalid(
                    "signed-properties-digest", "the signed properties were changed after signing (digest mismatch)")
            }
        } catch {
            findings.invalid("signed-properties-digest", "\(error)")
        }
    }

    private func checkSignatureValue(
        _ value: Data?, block: DigiDocSignatureBlock, certificate: Certificate, findings: inout FindingList
    ) {
        guard let value else {
            findings.invalid("signature-value", "SignatureValue is not base64")
            return
        }
        do {
            guard let bytes = try Self.element("SignedInfo", in: block.bytes) else {
                findings.invalid("structure", "the SignedInfo element cannot be found once in the signature")
                return
            }
            let digest = Digest.compute(.sha1, over: Data(try canonical(bytes, name: "SignedInfo")))
            if !certificate.publicKey.verify(signature: value, digest: digest, algorithm: .rsaPKCS1(.sha1)) {
                findings.invalid(
                    "signature-value",
                    "the SignatureValue does not verify with the key of the signing certificate (\(certificate.subject)): the signature was made with another key or has been changed"
                )
            }
        } catch {
            findings.invalid("signature-value", "\(error)")
        }
    }

    /// C14N 1.0 of a signed element taken alone, with the namespace the version injects when the
    /// element declares none (xmldsig in 1.1 and 1.2).
    private func canonical(_ element: [UInt8], name: String) throws -> [UInt8] {
        let declaresOwn = try DigiDocDocument.parseStartTag(Self.startTag(of: element), name: name).namespace != nil
        return try DigiDocDataFile.canonicalElement(
            element, injecting: declaresOwn ? nil : version.signedPartsNamespace)
    }

    // MARK: - Certificates

    private func checkSigningCertificate(_ ssp: XMLElement?, certificate: Certificate, findings: inout FindingList) {
        let certs = descendants(child(ssp, "SigningCertificate"), "Cert")
        guard certs.count == 1, let cert = certs.first else {
            findings.invalid("signing-certificate", "SigningCertificate must hold exactly one Cert")
            return
        }
        let digestValue = child(child(cert, "CertDigest"), "DigestValue").flatMap { XMLBase64.decode($0.text) }
        if digestValue != certificate.fingerprint(.sha1).bytes {
            findings.invalid(
                "signing-certificate-digest", "the signed CertDigest does not match the KeyInfo certificate")
        }
        guard let issuerSerial = child(cert, "IssuerSerial") else {
            findings.invalid(
                "signing-certificate-issuer-serial", "the signed certificate reference has no IssuerSerial")
            return
        }
        // 1.3: X509IssuerName and X509SerialNumber; 1.0–1.2: the serial as the element's text.
        let serialElement = child(issuerSerial, "X509SerialNumber")
        let serialText = (serialElement?.text ?? (issuerSerial.children.isEmpty ? issuerSerial.text : "")).trimmed()
        if Self.decimal(serialText) != Self.decimal(certificate.serialNumber) {
            findings.invalid(
                "signing-certificate-issuer-serial",
                "the signed serial number \(serialText.prefix(80)) is not the KeyInfo certificate's (\(certificate.serialNumber))"
            )
        }
        if let name = child(issuerSerial, "X509IssuerName")?.text,
            let mismatch = Self.issuerMismatch(name, certificate.issuer)
        {
            findings.invalid(
                "signing-certificate-issuer-serial",
                "the signed issuer name does not name the certificate's issuer: \(mismatch)")
        }
    }

    /// The parts CN, O, OU and C of a signed issuer name (OpenSSL's `/C=EE/O=…` or RFC 2253's
    /// `CN=…,C=EE`, the forms DDOC writers used) that differ from the certificate's issuer; nil
    /// when every one that is there agrees (compared without case, as DigiDoc4j compares them).
    static func issuerMismatch(_ signed: String, _ issuer: String) -> String? {
        func parts(_ text: String, separator: Character) -> [String: String] {
            var out: [String: String] = [:]
            for piece in text.split(separator: separator) {
                guard let equals = piece.firstIndex(of: "=") else { continue }
                let key = piece[..<equals].trimmed().uppercased()
                if ["CN", "O", "OU", "C"].contains(key), out[key] == nil {
                    out[key] = piece[piece.index(after: equals)...].trimmed()
                }
            }
            return out
        }
        let trimmed = signed.trimmed()
        let signedParts = parts(trimmed, separator: trimmed.hasPrefix("/") || !trimmed.contains(",") ? "/" : ",")
        let issuerParts = parts(issuer, separator: ",")
        for (key, value) in signedParts.sorted(by: { $0.key < $1.key }) {
            guard let actual = issuerParts[key] else { return "\(key)=\(value) is not in the issuer name" }
            if actual.lowercased() != value.lowercased() { return "\(key)=\(value), the issuer has \(key)=\(actual)" }
        }
        return nil
    }

    /// A decimal number without leading zeros, or the text itself when it is not one.
    static func decimal(_ text: String) -> String {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return text }
        let stripped = text.drop { $0 == "0" }
        return stripped.isEmpty ? "0" : String(stripped)
    }

    // MARK: - Notary

    /// Checks the OCSP confirmation; returns producedAt when the response is readable.
    private func checkNotary(
        _ value: XMLElement, unsigned: XMLElement?, certificate: Certificate, signatureValue: Data?,
        findings: inout FindingList
    ) -> Date? {
        // SK-XML 1.0's responder (2002) set a non-zero unused-bits count on its signature's BIT
        // STRING, which OpenSSL refuses; libdigidoc clears it before verifying, and so does tamga
        // (for 1.0 only: the digest in CompleteRevocationRefs is not checked there either).
        guard let der = XMLBase64.decode(value.text),
            let response = try? OCSPResponse(der: version == .skXML10 ? Self.clearingSignatureBitsLeft(der) : der),
            response.isSuccessful,
            let producedAt = response.producedAt
        else {
            findings.invalid(
                "ocsp-unreadable", "the OCSP confirmation is unreadable or not a successful basic response")
            return nil
        }
        let references = descendants(child(unsigned, "CompleteRevocationRefs"), "OCSPRef")
        if version.checksNotaryDigest {
            let stored = references.first.flatMap { child(child($0, "DigestAlgAndValue"), "DigestValue") }.flatMap {
                XMLBase64.decode($0.text)
            }
            if references.count != 1 || stored != Digest.compute(.sha1, over: der).bytes {
                findings.invalid(
                    "ocsp-digest",
                    "the OCSP confirmation's digest in CompleteRevocationRefs does not match the response (DigiDoc4j: \"Notarys digest doesn't match\")"
                )
            }
        }
        if version != .skXML10, let text = references.first.flatMap({ descendants($0, "ProducedAt").first?.text }),
            text.trimmed() != version.format(producedAt)
        {
            findings.invalid(
                "ocsp-produced-at",
                "CompleteRevocationRefs gives ProducedAt \(text.trimmed()), the OCSP response \(version.format(producedAt))"
            )
        }
        // The nonce: SHA-1 of the SignatureValue, raw (20 bytes) or in an OCTET STRING.
        if let signatureValue {
            let expected = Digest.compute(.sha1, over: signatureValue).bytes
            let nonce = response.nonceExtensionValue.map { raw -> Data in
                raw.count == 22 && raw.first == 0x04 && raw[raw.startIndex + 1] == 20
                    ? Data(raw.dropFirst(2)) : Data(raw)
            }
            if nonce != expected {
                findings.invalid(
                    "ocsp-nonce",
                    nonce == nil
                        ? "the OCSP confirmation has no nonce: nothing binds it to this signature"
                        : "the OCSP confirmation's nonce is not the SHA-1 of this SignatureValue: it confirms another signature"
                )
            }
        }
        let helpers = descendants(child(unsigned, "CertificateValues"), "EncapsulatedX509Certificate")
            .compactMap { XMLBase64.decode($0.text).flatMap { try? Certificate(der: $0) } }
        let issuers = helpers + (trust?.issuers(certificate) ?? []) + options.issuerCandidates
        guard let issuer = issuers.first(where: { $0.isIssuer(of: certificate) }) else {
            findings.add(
                "issuer-missing", .unknown,
                "the signer's issuing CA certificate is neither in the DDOC trust set, nor given (--trust, --certs), nor in the trusted list"
            )
            return producedAt
        }
        checkResponder(
            response, issuer: issuer, helpers: helpers + response.responderCertificates, at: producedAt,
            findings: &findings)
        checkResponderReference(response, unsigned: unsigned, helpers: helpers, findings: &findings)
        switch response.status(of: certificate, issuer: issuer)?.kind {
        case .good: break
        case .revoked:
            findings.invalid("certificate-revoked", "the OCSP confirmation says the signer's certificate was revoked")
        case .unknown:
            findings.invalid("ocsp-status-unknown", "the OCSP responder does not know the signer's certificate")
        case nil:
            findings.invalid(
                "ocsp-other-certificate", "the OCSP confirmation is about another certificate, not the signer's")
        }
        if !certificate.isValid(at: producedAt) {
            findings.invalid(
                "certificate-expired",
                "the signer's certificate was not valid at the confirmation's time \(XSDDateTime.format(producedAt))")
        }
        return producedAt
    }

    /// The responder must be one pinned for the signer's CA (the DDOC trust set), or one the
    /// given trust authorises (a `--trust` CA that certified it, a listed OCSP service).
    private func checkResponder(
        _ response: OCSPResponse, issuer: Certificate, helpers: [Certificate], at producedAt: Date,
        findings: inout FindingList
    ) {
        let pinned = trust?.responders(for: issuer) ?? []
        var reasons: [String] = []
        if !pinned.isEmpty {
            if let why = response.verifySignature(
                anchors: pinned, intermediates: helpers, at: producedAt, byListing: true)
            {
                reasons.append(why)
            } else {
                return
            }
        }
        let anchors = options.anchors(for: .ocsp, at: producedAt)
        if !anchors.isEmpty {
            if let why = response.verifySignature(
                anchors: anchors, intermediates: helpers + options.trust.intermediates, at: producedAt,
                byListing: options.responderTrustedByListing)
            {
                reasons.append(why)
            } else {
                return
            }
        }
        let why = reasons.joined(separator: "; ")
        let untrusted =
            reasons.isEmpty || why.contains("certificate verify error") || why.contains("unable to get")
            || why.contains("not trusted")
            || why.contains("signer certificate not found")
        if untrusted {
            findings.add(
                "ocsp-responder-untrusted", .unknown,
                "the OCSP responder is not trusted at \(XSDDateTime.format(producedAt))"
                    + (reasons.isEmpty
                        ? " (no responder is pinned for the signer's CA, and no trust was given)" : " (\(why))"))
        } else {
            findings.invalid("ocsp-signature", "the OCSP confirmation does not verify: \(why)")
        }
    }

    /// CompleteCertificateRefs names the responder's certificate by digest (SHA-1 of its DER).
    private func checkResponderReference(
        _ response: OCSPResponse, unsigned: XMLElement?, helpers: [Certificate], findings: inout FindingList
    ) {
        let references = descendants(child(unsigned, "CompleteCertificateRefs"), "Cert")
        guard let reference = references.first,
            let digest = child(child(reference, "CertDigest"), "DigestValue").flatMap({ XMLBase64.decode($0.text) })
        else { return }
        let responder = response.signerCertificate(among: helpers)
        if let responder, responder.fingerprint(.sha1).bytes != digest {
            findings.invalid(
                "ocsp-responder-certificate",
                "CompleteCertificateRefs names another certificate than the responder's (DigiDoc4j: \"Notary certificates digest doesn't match\")"
            )
        }
    }

    private func checkChain(_ certificate: Certificate, at time: Date, confirmed: Bool, findings: inout FindingList) {
        // The set's CA itself is an anchor (a partial chain), as DigiDoc4j trusts its CA list.
        let anchors = options.anchors(for: .certificateAuthority, at: time) + (trust?.issuers(certificate) ?? [])
        let store = TrustStore(anchors: anchors, intermediates: options.trust.intermediates)
        let when =
            confirmed ? "at the confirmation's time \(XSDDateTime.format(time))" : "at \(XSDDateTime.format(time))"
        // Not X509_STRICT: SK's CA certificates of 2002–2007 (ESTEID-SK, KLASS3-SK, EID-SK) do not
        // mark basicConstraints critical, which RFC 5280 asks of a CA and OpenSSL's strict mode
        // refuses; DigiDoc4j, which SiVa runs, does not ask it either.
        switch store.verify(certificate, at: time, strict: false) {
        case .trusted: break
        case .unknown(let reason):
            findings.add("trust-not-established", .unknown, "the signer's certificate chain \(when): \(reason)")
        case .invalid(let reason):
            findings.invalid("certificate-chain", "the signer's certificate chain \(when): \(reason)")
        }
    }

    /// `der` (an OCSPResponse) with the unused-bits byte of its BasicOCSPResponse's signature
    /// BIT STRING set to 0; `der` itself when the structure is not where it should be.
    static func clearingSignatureBitsLeft(_ der: Data) -> Data {
        var bytes = [UInt8](der)
        /// (content start, content end) of the element at `offset`, or nil.
        func element(at offset: Int, within end: Int) -> (tag: UInt8, content: Int, end: Int)? {
            guard offset + 2 <= end else { return nil }
            let tag = bytes[offset]
            var length = Int(bytes[offset + 1]), content = offset + 2
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard count >= 1, count <= 3, content + count <= end else { return nil }
                length = bytes[content..<content + count].reduce(0) { $0 << 8 | Int($1) }
                content += count
            }
            guard length <= end - content else { return nil }
            return (tag, content, content + length)
        }
        func children(_ parent: (tag: UInt8, content: Int, end: Int)) -> [(tag: UInt8, content: Int, end: Int)] {
            var out: [(tag: UInt8, content: Int, end: Int)] = []
            var position = parent.content
            while position < parent.end, let child = element(at: position, within: parent.end), out.count < 16 {
                out.append(child)
                position = child.end
            }
            return out
        }
        guard let response = element(at: 0, within: bytes.count), response.tag == 0x30,
            let explicit = children(response).first(where: { $0.tag == 0xA0 }),
            let responseBytes = children(explicit).first, responseBytes.tag == 0x30,
            let octets = children(responseBytes).first(where: { $0.tag == 0x04 }),
            let basic = element(at: octets.content, within: octets.end), basic.tag == 0x30
        else { return der }
        let parts = children(basic)
        guard parts.count >= 3, parts[2].tag == 0x03, parts[2].content < parts[2].end else { return der }
        bytes[parts[2].content] = 0
        return Data(bytes)
    }

    // MARK: - Helpers

    /// The bytes of the one `<name …>…</name>` element in a Signature's bytes (the scanner has
    /// refused comments and CDATA, so the markup is where the text says). Nil when it is not there
    /// exactly once.
    static func element(_ name: String, in bytes: Data) throws -> [UInt8]? {
        let all = [UInt8](bytes)
        let open = Array("<\(name)".utf8), close = Array("</\(name)".utf8)
        func find(_ needle: [UInt8], from: Int) -> Int? {
            all.withUnsafeBytes { ByteSearch.firstIndex(of: needle, in: $0, from: from) }
        }
        var starts: [Int] = []
        var search = 0
        while let hit = find(open, from: search) {
            let after = hit + open.count
            let next = after < all.count ? all[after] : 0
            if [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/")].contains(next) { starts.append(hit) }
            search = after
        }
        guard starts.count == 1, let start = starts.first, let end = find(close, from: start) else { return nil }
        guard let closing = all[(end + close.count)...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
        return Array(all[start...closing])
    }

    /// `<name …>` of an element's bytes.
    static func startTag(of element: [UInt8]) -> [UInt8] {
        var quote: UInt8? = nil
        for (index, byte) in element.enumerated() {
            if let open = quote {
                if byte == open { quote = nil }
                continue
            }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { quote = byte }
            if byte == UInt8(ascii: ">") { return Array(element[...index]) }
        }
        return element
    }

    private func child(_ parent: XMLElement?, _ name: String) -> XMLElement? {
        parent?.children.first { $0.localName == name }
    }

    private func descendants(_ parent: XMLElement?, _ name: String) -> [XMLElement] {
        guard let parent else { return [] }
        var found: [XMLElement] = []
        parent.walk { if $0.localName == name { found.append($0) } }
        return found
    }

    private func one(_ parent: XMLElement, _ name: String, _ findings: inout FindingList) -> XMLElement? {
        let found = parent.children.filter { $0.localName == name }
        guard found.count == 1 else {
            findings.invalid("structure", "Signature must contain exactly one \(name), found \(found.count)")
            return nil
        }
        return found[0]
    }

    private func failure(
        _ label: String, _ id: String?, _ code: String, _ message: String
    ) -> ValidationReport.SignatureResult {
        var findings = FindingList()
        findings.invalid(code, message)
        return result(label, id, nil, nil, nil, findings)
    }

    private func result(
        _ label: String, _ id: String?, _ certificate: Certificate?, _ signingTime: Date?, _ producedAt: Date?,
        _ findings: FindingList, method: String? = nil, profile: String = "B"
    ) -> ValidationReport.SignatureResult {
        ValidationReport.SignatureResult(
            file: label, id: id, signer: certificate?.subject, signerSerial: certificate?.serialNumber,
            signingTime: signingTime.map(XSDDateTime.format), timeStampTime: producedAt.map(XSDDateTime.format),
            signatureMethod: method, profile: profile, status: findings.status, findings: findings.items)
    }
}

private extension Array {
    var nilIfEmpty: Self? { isEmpty ? nil : self }
}
