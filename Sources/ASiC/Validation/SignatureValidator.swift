import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// Checks one signature file the way the reference does (`docs/design/asice.md` §1.3–1.4), with the key of
/// the signing certificate only (the KeyInfo certificate the signed CertDigest names, never a
/// key found elsewhere), and every data file, the
/// SignedProperties and the SignatureValue recomputed from the stored bytes.
struct SignatureValidator {
    let container: Container
    let options: ValidationOptions

    static let signedPropertiesType = "http://uri.etsi.org/01903#SignedProperties"
    static let signedPropertiesTypeV111 = "http://uri.etsi.org/01903/v1.1.1#SignedProperties"
    /// XAdES elements the reference refuses (docs/design/asice.md §1.1); a signature carrying one is invalid.
    static let unsupportedElements: Set<String> = [
        "AllDataObjectsTimeStamp", "IndividualDataObjectsTimeStamp", "UnsignedDataObjectProperties", "CounterSignature",
        "AttributeCertificateRefs", "AttributeRevocationRefs", "RefsOnlyTimeStamp", "AttrAuthoritiesCertValues",
        "AttributeRevocationValues", "CompleteCertificateRefsV2", "AttributeCertificateRefsV2", "SigAndRefsTimeStampV2",
        "RefsOnlyTimeStampV2",
    ]

    static let maximumSignaturesPerFile = 16
    static let maximumReferences = 10_000

    /// References read per signature, here and for an archive time-stamp's input. One per data
    /// file plus SignedProperties: anything far past that is not a signature of this container,
    /// and each reference costs a hash or a canonicalization.
    static func referenceBound(dataFiles: Int) -> Int { min(maximumReferences, dataFiles + 16) }
    /// Certificates read from KeyInfo: the signer and its chain, which is rarely above four.
    static let maximumKeyInfoCertificates = 16
    /// Findings kept per signature; one more says how many were left out.
    static let maximumFindings = 50

    /// Data files by name, for lookups that stay linear in the number of references.
    private var filesByName: [ExactName: DataFile] {
        Dictionary(container.dataFiles.map { ($0.name.exact, $0) }, uniquingKeysWith: { a, _ in a })
    }

    func validate(_ file: SignatureFile) -> [ValidationReport.SignatureResult] {
        validateWithValues(file).map(\.result)
    }

    /// Each signature's result with its decoded SignatureValue (nil where there is none or the
    /// file was refused whole), from one parse of the file: a 16 MB member costs a parse per
    /// pass, and duplicate detection needs the values of the same signatures.
    func validateWithValues(_ file: SignatureFile) -> [(result: ValidationReport.SignatureResult, value: Data?)] {
        let document: XMLDocument
        do {
            document = try XMLDocument(data: file.data, name: file.name)
        } catch {
            return [(failure(file, "malformed-xml", "\(error)"), nil)]
        }
        guard let root = document.root, root.is("XAdESSignatures", in: XMLNamespace.asic) else {
            return [(failure(file, "wrong-root", "the root element is not asic:XAdESSignatures"), nil)]
        }
        let signatures = root.children("Signature", in: XMLNamespace.ds)
        guard !signatures.isEmpty, signatures.count == root.children.count else {
            return [
                (failure(file, "wrong-structure", "asic:XAdESSignatures must hold ds:Signature elements only"), nil)
            ]
        }
        // ASiC-E writes one signature per file; a few are tolerated, thousands are an attack on the validator.
        guard signatures.count <= Self.maximumSignaturesPerFile else {
            return [
                (
                    failure(
                        file, "too-many-signatures",
                        "\(signatures.count) signatures in one file (at most \(Self.maximumSignaturesPerFile) are read)"
                    ), nil
                )
            ]
        }
        return signatures.map { signature in
            (
                validate(signature, in: document, file: file),
                signature.child("SignatureValue", in: XMLNamespace.ds).flatMap { XMLBase64.decode($0.text) }
            )
        }
    }

    private func failure(_ file: SignatureFile, _ code: String, _ message: String) -> ValidationReport.SignatureResult {
        .init(
            file: file.name, id: nil, signer: nil, signerSerial: nil, signingTime: nil, timeStampTime: nil,
            signatureMethod: nil, profile: "B",
            status: .invalid, findings: [.init(code: code, severity: .invalid, message: message)])
    }

    private func exactlyOne(
        _ parent: XMLElement?, _ name: String, _ ns: String, _ findings: inout FindingList
    ) -> XMLElement? {
        guard let parent else { return nil }
        let found = parent.children(name, in: ns)
        guard found.count == 1 else {
            findings.invalid("structure", "\(parent.localName) must contain exactly one \(name), found \(found.count)")
            return nil
        }
        return found[0]
    }

    private func validate(
        _ signature: XMLElement, in document: XMLDocument, file: SignatureFile
    ) -> ValidationReport.SignatureResult {
        var findings = FindingList()
        let id = signature.attribute("Id")
        if id == nil { findings.invalid("signature-id-missing", "ds:Signature has no Id") }

        checkUnsupportedElements(signature, findings: &findings)

        let signedInfo = exactlyOne(signature, "SignedInfo", XMLNamespace.ds, &findings)
        let signatureValueElement = exactlyOne(signature, "SignatureValue", XMLNamespace.ds, &findings)
        let object = exactlyOne(signature, "Object", XMLNamespace.ds, &findings)
        let qualifying = exactlyOne(object, "QualifyingProperties", XMLNamespace.xades, &findings)
        if let qualifying, let id, qualifying.attribute("Target") != "#\(id)" {
            findings.invalid("structure", "QualifyingProperties/@Target does not point at this signature")
        }
        let signedProperties = exactlyOne(qualifying, "SignedProperties", XMLNamespace.xades, &findings)
        let signedSignatureProperties = exactlyOne(
            signedProperties, "SignedSignatureProperties", XMLNamespace.xades, &findings)

        let (certificate, keyInfoCertificates) = readKeyInfo(
            signature, signedSignatureProperties: signedSignatureProperties, findings: &findings)

        let (algorithm, methodURI) = readSignatureMethod(signedInfo, certificate: certificate, findings: &findings)

        // --- References: data files and SignedProperties.
        var signedDataFiles: [String] = []
        let referencesRead = checkReferences(
            signedInfo: signedInfo, signature: signature, signedProperties: signedProperties,
            document: document, findings: &findings, signedDataFiles: &signedDataFiles)

        // --- SignatureValue over canonical SignedInfo, with the KeyInfo key only.
        if let signedInfo, let signatureValueElement, let certificate, let algorithm {
            checkSignatureValue(
                signedInfo: signedInfo, valueElement: signatureValueElement, document: document,
                certificate: certificate, algorithm: algorithm, findings: &findings)
        }

        // --- Signed properties: time, certificate reference, data object formats.
        let signingTime = checkSignedSignatureProperties(
            signedSignatureProperties, certificate: certificate, findings: &findings)
        if let signedInfo, let signedProperties {
            checkDataObjectFormats(signedInfo: signedInfo, signedProperties: signedProperties, findings: &findings)
        }

        // --- Time-stamps, OCSP and archive time-stamps; they also fix the time of the chain check.
        // The KeyInfo certificates other than the signer's may be its intermediates.
        let helpers = certificateValues(in: qualifying) + keyInfoCertificates.filter { $0 != certificate }
        let longTerm = LongTermValidator(container: container, options: options).check(
            signature: signature, in: document, signedInfo: signedInfo, signatureValue: signatureValueElement,
            qualifying: qualifying, certificate: certificate, helpers: helpers, archiveInputReadable: referencesRead,
            findings: &findings)

        // --- The certificate: nonRepudiation and a chain to an anchor, at the time-stamp's time
        // and at the certificate's issue date.
        var qualification: ValidationReport.SignerQualification? = nil
        if let certificate {
            if !(certificate.keyUsage?.contains(.nonRepudiation) ?? false) {
                findings.invalid("no-non-repudiation", "the signer's certificate lacks the nonRepudiation key usage")
            }
            qualification = checkChain(certificate, helpers: helpers, longTerm: longTerm, findings: &findings)
        }
        checkClaimedSigningTime(signingTime, longTerm: longTerm, certificate: certificate, findings: &findings)
        let profile = longTerm.profileLabel
        let timeStampTime = longTerm.timeStampTime

        let claims = ClaimedProperties(signature: signature)
        var result = ValidationReport.SignatureResult(
            file: file.name, id: id, signer: certificate?.subject, signerSerial: certificate?.serialNumber,
            signingTime: signingTime, timeStampTime: timeStampTime, signatureMethod: methodURI, profile: profile,
            status: findings.status, findings: findings.capped(Self.maximumFindings))
        result.claimedRoles = claims.roles.isEmpty ? nil : claims.roles
        result.productionPlace = claims.productionPlace
        result.qualification = qualification
        // A detached signature's report says which of the given files it covers (the scopes).
        if container.isDetached { result.signedDataFiles = signedDataFiles }
        if options.collectEvidence {
            result.evidence = SignatureEvidence.collect(
                signer: certificate, qualifying: qualifying, pool: helpers + options.issuerCandidates,
                archiveVerdicts: longTerm.archiveVerdicts)
            result.evidence?.productionPlace = claims.productionPlaceParts
        }
        return result
    }

    /// Unsupported XAdES elements make the whole signature unusable, as in the reference.
    private func checkUnsupportedElements(_ signature: XMLElement, findings: inout FindingList) {
        signature.walk { element in
            if Self.unsupportedElements.contains(element.localName),
                element.namespace == XMLNamespace.xades || element.namespace == XMLNamespace.xades141
            {
                findings.invalid("unsupported-element", "xades:\(element.localName) is not supported")
            }
            // The 1.3.2 ArchiveTimeStamp predates the 1.4.1 one the reference reads.
            if element.localName == "ArchiveTimeStamp", element.namespace == XMLNamespace.xades {
                findings.invalid("unsupported-element", "a XAdES 1.3.2 ArchiveTimeStamp is not supported (1.4.1 is)")
            }
        }
    }

    /// KeyInfo: the signer's certificate, the only key the SignatureValue is checked with, and
    /// every certificate KeyInfo holds.
    private func readKeyInfo(
        _ signature: XMLElement, signedSignatureProperties: XMLElement?, findings: inout FindingList
    ) -> (signer: Certificate?, all: [Certificate]) {
        // Other EU tools put the signer's chain there too; as the reference does, the signer is
        // the certificate the signed CertDigest names, and the rest only help build the chain.
        // No other KeyInfo key is ever tried, so a substituted key cannot make a signature valid.
        var certificate: Certificate? = nil
        var keyInfoCertificates: [Certificate] = []
        if let keyInfo = exactlyOne(signature, "KeyInfo", XMLNamespace.ds, &findings) {
            let elements = keyInfo.children("X509Data", in: XMLNamespace.ds).flatMap {
                $0.children("X509Certificate", in: XMLNamespace.ds)
            }
            if elements.isEmpty {
                findings.invalid(
                    "keyinfo-certificate", "KeyInfo holds no X509Certificate: the signer's certificate is missing")
            } else if elements.count > Self.maximumKeyInfoCertificates {
                findings.invalid(
                    "keyinfo-certificate",
                    "KeyInfo holds \(elements.count) certificates (at most \(Self.maximumKeyInfoCertificates) are read)"
                )
            } else {
                for (index, element) in elements.enumerated() {
                    if let der = XMLBase64.decode(element.text), let parsed = try? Certificate(der: der) {
                        keyInfoCertificates.append(parsed)
                    } else {
                        findings.invalid(
                            "keyinfo-certificate", "KeyInfo certificate \(index + 1) cannot be read as DER X.509")
                    }
                }
                if keyInfoCertificates.count == elements.count {
                    certificate = signingCertificate(
                        among: keyInfoCertificates, signedSignatureProperties, findings: &findings)
                }
            }
        }
        return (certificate, keyInfoCertificates)
    }

    /// SignatureMethod and the algorithm it names for this key.
    private func readSignatureMethod(
        _ signedInfo: XMLElement?, certificate: Certificate?, findings: inout FindingList
    ) -> (algorithm: SignatureAlgorithm?, uri: String?) {
        var algorithm: SignatureAlgorithm? = nil
        var methodURI: String? = nil
        if let signedInfo, let method = exactlyOne(signedInfo, "SignatureMethod", XMLNamespace.ds, &findings) {
            methodURI = method.attribute("Algorithm")
            var curve: SignatureAlgorithm.Curve? = nil
            if case .ec(let c)? = certificate?.publicKey.type { curve = c }
            algorithm = methodURI.flatMap { SignatureAlgorithm(xmlURI: $0, curve: curve) }
            if algorithm == nil, let certificate {
                findings.invalid(
                    "unsupported-signature-method",
                    "SignatureMethod \(methodURI ?? "(none)") does not fit the \(certificate.publicKey) key")
            }
            if let algorithm, algorithm.digest.isWeak {
                findings.warning("weak-digest", "the signature uses \(algorithm.digest)")
            }
        }
        return (algorithm, methodURI)
    }

    /// SigningTime (returned as written) and the signing-certificate reference.
    private func checkSignedSignatureProperties(
        _ signedSignatureProperties: XMLElement?, certificate: Certificate?, findings: inout FindingList
    ) -> String? {
        var signingTime: String? = nil
        if let ssp = signedSignatureProperties {
            if let timeElement = exactlyOne(ssp, "SigningTime", XMLNamespace.xades, &findings) {
                let text = timeElement.text.trimmed()
                signingTime = text
                if XAdESTime.parse(text) == nil {
                    findings.invalid("signing-time", "SigningTime \(text) is not an xsd:dateTime")
                }
            }
            if let certificate { checkSigningCertificate(ssp, certificate: certificate, findings: &findings) }
        }
        return signingTime
    }

    /// The claimed SigningTime is not evidence, but one that contradicts the evidence is worth a
    /// warning: after the time-stamp that proves the signature existed, or before the
    /// certificate existed.
    private func checkClaimedSigningTime(
        _ signingTime: String?, longTerm: LongTermValidator.Outcome, certificate: Certificate?,
        findings: inout FindingList
    ) {
        if let claimed = signingTime.flatMap(XAdESTime.parse) {
            if !longTerm.isTimeMark, let stamped = longTerm.signatureTime, claimed > stamped {
                findings.warning(
                    "signing-time-after-timestamp",
                    "the claimed SigningTime \(XSDDateTime.format(claimed)) is after the signature time-stamp \(XSDDateTime.format(stamped))"
                )
            }
            if let certificate, claimed < certificate.notBefore {
                findings.warning(
                    "signing-time-before-certificate",
                    "the claimed SigningTime \(XSDDateTime.format(claimed)) is before the signer's certificate was valid (from \(XSDDateTime.format(certificate.notBefore)))"
                )
            }
        }
    }

    /// The reference checks the signer's chain, with the CA's trusted-list status, at the
    /// certificate's notBefore for every signature, and again at the time-stamp's genTime for T
    /// and above (docs/design/asics-tm-names.md §4): a CA that was not granted when it issued the
    /// certificate, or is not granted at genTime, leaves trust unknown. A time-mark is judged the
    /// same way at its OCSP response's producedAt, the time it proves. The reference judges a
    /// time-mark at notBefore only, so that a certificate that expired, or a CA withdrawn,
    /// before producedAt still passes there; tamga is stricter (docs/cli.md, Time-marks).
    /// - Returns: the certificate's qualification, where a trusted list judged it.
    private func checkChain(
        _ certificate: Certificate, helpers: [Certificate], longTerm: LongTermValidator.Outcome,
        findings: inout FindingList
    ) -> ValidationReport.SignerQualification? {
        let issued = certificate.notBefore
        if longTerm.isTimeMark, longTerm.signatureTime == nil {
            // The time-mark did not verify (already reported): only the issue date is certain.
            if verifyChain(certificate, helpers: helpers, at: issued, atIssue: true, findings: &findings),
                let list = options.trustedList
            {
                return checkQualification(certificate, list: list, helpers: helpers, at: issued, findings: &findings)
            }
            return nil
        }
        let time = longTerm.signatureTime ?? options.time ?? Date()
        let trusted = verifyChain(certificate, helpers: helpers, at: time, atIssue: false, findings: &findings)
        var qualification: ValidationReport.SignerQualification? = nil
        if trusted, let list = options.trustedList {
            qualification = checkQualification(certificate, list: list, helpers: helpers, at: time, findings: &findings)
        }
        // PEM anchors do not change with time: only a list can answer differently at notBefore.
        if trusted || options.trustedList != nil {
            verifyChain(certificate, helpers: helpers, at: issued, atIssue: true, findings: &findings)
        }
        return qualification
    }

    /// One chain check; true when trusted. Failures at the issue date get their own codes.
    @discardableResult
    private func verifyChain(
        _ certificate: Certificate, helpers: [Certificate], at time: Date, atIssue: Bool,
        findings: inout FindingList
    ) -> Bool {
        let trust = TrustStore(
            anchors: options.anchors(for: .certificateAuthority, at: time),
            intermediates: options.trust.intermediates + helpers)
        let suffix = atIssue ? "-at-issue" : ""
        let when =
            atIssue ? "at its issue date (notBefore \(XSDDateTime.format(time)))" : "at \(XSDDateTime.format(time))"
        if trust.anchors.isEmpty, options.trustedList != nil {
            findings.add(
                "trust-not-established" + suffix, .unknown,
                "the signer's certificate chain \(when): no CA/QC service of the trusted list was granted then")
            return false
        }
        switch trust.verify(certificate, at: time) {
        case .trusted:
            return true
        case .unknown(let reason):
            findings.add(
                "trust-not-established" + suffix, .unknown, "the signer's certificate chain \(when): \(reason)")
        case .invalid(let reason):
            findings.invalid("certificate-chain" + suffix, "the signer's certificate chain \(when): \(reason)")
        }
        return false
    }

    /// QC on a QSCD (or an e-seal), from the certificate and the list's qualifiers (docs/design/trust.md §3–4).
    private func checkQualification(
        _ certificate: Certificate, list: TrustedList, helpers: [Certificate], at time: Date,
        findings: inout FindingList
    ) -> ValidationReport.SignerQualification {
        let issuer = (helpers + options.trust.intermediates).first { $0.isIssuer(of: certificate) }
        // A certificate no trusted service issued keeps what it says of itself (the chain check
        // reports the missing trust).
        let qualification = list.qualification(of: certificate, issuedBy: issuer, at: time) ?? certificate.qualification
        if !(qualification.qualified && qualification.onQualifiedDevice) && !qualification.isSeal {
            findings.add(
                "not-qualified", .nonQSCD,
                "the trusted list and the certificate do not make this a qualified signature on a QSCD")
        }
        return .init(
            qualified: qualification.qualified, qscd: qualification.onQualifiedDevice, seal: qualification.isSeal)
    }

    /// - Returns: false when the references were refused unread (too many): an archive
    ///   time-stamp's input, which reads them again, is then not computed either.
    @discardableResult
    private func checkReferences(
        signedInfo: XMLElement?, signature: XMLElement, signedProperties: XMLElement?,
        document: XMLDocument, findings: inout FindingList, signedDataFiles: inout [String]
    ) -> Bool {
        guard let signedInfo else { return false }
        let references = signedInfo.children("Reference", in: XMLNamespace.ds)
        let bound = Self.referenceBound(dataFiles: container.dataFiles.count)
        guard references.count <= bound else {
            findings.invalid(
                "too-many-references",
                "\(references.count) references for \(container.dataFiles.count) data files (at most \(bound) are read)"
            )
            return false
        }
        let files = filesByName
        var signedFiles: [ExactName: Int] = [:]
        var signedPropertiesReferences = 0
        for reference in references {
            guard let uri = reference.attribute("URI") else {
                findings.invalid("reference-uri", "a Reference has no URI")
                continue
            }
            guard let digestMethod = reference.child("DigestMethod", in: XMLNamespace.ds)?.attribute("Algorithm"),
                let digestAlgorithm = DigestAlgorithm(xmlURI: digestMethod)
            else {
                findings.invalid("unsupported-digest", "Reference \(uri): unknown or missing DigestMethod")
                continue
            }
            if digestAlgorithm.isWeak { findings.warning("weak-digest", "Reference \(uri) uses \(digestAlgorithm)") }
            guard
                let expected = reference.child("DigestValue", in: XMLNamespace.ds).flatMap({ XMLBase64.decode($0.text) }
                )
            else {
                findings.invalid("reference-digest", "Reference \(uri): DigestValue missing or not base64")
                continue
            }
            let type = reference.attribute("Type")
            if type == Self.signedPropertiesType || type == Self.signedPropertiesTypeV111 {
                signedPropertiesReferences += 1
                // Only the first is canonicalized: a second is an error anyway (counted below).
                if signedPropertiesReferences == 1 {
                    checkSignedPropertiesReference(
                        reference, uri: uri, digestAlgorithm: digestAlgorithm, expected: expected,
                        signedProperties: signedProperties, document: document, findings: &findings)
                }
                continue
            }
            // A data-file reference: raw bytes, no transforms, resolved inside the container only.
            if reference.attribute("Id") == nil { findings.invalid("reference-id", "Reference \(uri) has no Id") }
            if reference.child("Transforms", in: XMLNamespace.ds) != nil {
                findings.invalid(
                    "reference-transforms", "data-file Reference \(uri) has Transforms; ASiC-E signs raw bytes")
            }
            guard !uri.hasPrefix("#"), let name = URIPath.decode(uri), !uri.contains("://") else {
                findings.invalid("reference-uri", "Reference \(uri) does not name a data file of the container")
                continue
            }
            guard let dataFile = files[name.exact] else {
                let inZip = container.reader?.entries.contains { $0.name.isExactly(name) } ?? false
                findings.invalid(
                    inZip ? "reference-not-in-manifest" : "reference-file-missing",
                    inZip
                        ? "\(name) is signed but the manifest does not list it as a data file"
                        : container.isDetached
                            ? "\(name) is signed but is not among the data files given"
                            : "\(name) is signed but is not in the container")
                continue
            }
            signedFiles[name.exact, default: 0] += 1
            do {
                let actual = try container.digest(of: dataFile, digestAlgorithm)
                if !ConstantTime.equal(actual.bytes, expected) {
                    findings.invalid("data-file-digest", "\(name) has changed since it was signed (digest mismatch)")
                }
            } catch let error as ContainerError where error.code == "digest-algorithm-not-given" {
                findings.invalid("data-file-digest-algorithm", "\(error)")
            } catch {
                findings.invalid("data-file-unreadable", "\(name): \(error)")
            }
        }
        if signedPropertiesReferences != 1 {
            findings.invalid(
                "signed-properties-reference",
                "SignedInfo must reference SignedProperties exactly once, found \(signedPropertiesReferences)")
        }
        for file in container.dataFiles {
            if signedFiles[file.name.exact, default: 0] > 0 { signedDataFiles.append(file.name) }
            switch signedFiles[file.name.exact, default: 0] {
            case 0 where container.isDetached:
                // No container holds the file: the caller sent one this signature does not
                // cover, and DSS (so SiVa) passes it by. Said, and left out of the scopes.
                findings.warning("data-file-not-signed", "\(file.name) was given but is not covered by this signature")
            case 0:
                findings.invalid(
                    "data-file-not-signed", "\(file.name) is in the container but not covered by this signature")
            case 1: break
            default: findings.invalid("duplicate-reference", "\(file.name) is referenced more than once")
            }
        }
        return true
    }

    private func checkSignedPropertiesReference(
        _ reference: XMLElement, uri: String, digestAlgorithm: DigestAlgorithm, expected: Data,
        signedProperties: XMLElement?, document: XMLDocument, findings: inout FindingList
    ) {
        guard let signedProperties, let spID = signedProperties.attribute("Id"), uri == "#\(spID)" else {
            findings.invalid(
                "signed-properties-reference",
                "the SignedProperties Reference \(uri) does not point at this signature's SignedProperties")
            return
        }
        // Exactly one element may carry the Id, or a wrapped copy could be what gets digested.
        guard document.elements(withID: spID).count == 1 else {
            findings.invalid("duplicate-id", "more than one element has Id \(spID)")
            return
        }
        var method = Canonicalization.c14n10  // XML-DSig's default for same-document references
        let transforms =
            reference.child("Transforms", in: XMLNamespace.ds)?.children("Transform", in: XMLNamespace.ds) ?? []
        if transforms.count > 1 {
            findings.invalid(
                "reference-transforms", "the SignedProperties Reference has \(transforms.count) transforms")
            return
        }
        if let transform = transforms.first {
            guard let c = transform.attribute("Algorithm").flatMap(Canonicalization.init(rawValue:)) else {
                findings.invalid(
                    "reference-transforms", "unsupported transform \(transform.attribute("Algorithm") ?? "")")
                return
            }
            method = c
        }
        do {
            let canonical = try document.canonicalize(signedProperties, method)
            if !ConstantTime.equal(Digest.compute(digestAlgorithm, over: canonical).bytes, expected) {
                findings.invalid(
                    "signed-properties-digest", "the signed properties were changed after signing (digest mismatch)")
            }
        } catch {
            findings.invalid("signed-properties-digest", "\(error)")
        }
    }

    private func checkSignatureValue(
        signedInfo: XMLElement, valueElement: XMLElement, document: XMLDocument,
        certificate: Certificate, algorithm: SignatureAlgorithm, findings: inout FindingList
    ) {
        guard let c14nURI = signedInfo.child("CanonicalizationMethod", in: XMLNamespace.ds)?.attribute("Algorithm"),
            let method = Canonicalization(rawValue: c14nURI)
        else {
            findings.invalid(
                "unsupported-canonicalization", "SignedInfo's CanonicalizationMethod is missing or unknown")
            return
        }
        guard let value = XMLBase64.decode(valueElement.text) else {
            findings.invalid(
                "signature-value", "SignatureValue is not base64 (or is over \(XMLBase64.maximumBytes >> 20) MB)")
            return
        }
        do {
            let digest = Digest.compute(algorithm.digest, over: try document.canonicalize(signedInfo, method))
            if !certificate.publicKey.verify(signature: value, digest: digest, algorithm: algorithm) {
                if let curve = algorithm.curve, value.count != 2 * curve.fieldSize {
                    findings.invalid(
                        "signature-value",
                        "the ECDSA SignatureValue is \(value.count) bytes, not raw r‖s of \(2 * curve.fieldSize)")
                } else {
                    findings.invalid(
                        "signature-value",
                        "the SignatureValue does not verify with the key of the signing certificate "
                            + "(\(certificate.subject)): the signature was made with another key or has been changed")
                }
            }
        } catch {
            findings.invalid("signature-value", "\(error)")
        }
    }

    /// The certificate reference the signed properties carry: the one `Cert` of
    /// `SigningCertificate` or `SigningCertificateV2` and its CertDigest. Nil when the structure
    /// is wrong (``checkSigningCertificate`` reports why).
    private func signedCertificateReference(
        _ ssp: XMLElement?
    ) -> (cert: XMLElement, algorithm: DigestAlgorithm, digest: Data)? {
        guard let ssp else { return nil }
        let holders =
            ssp.children("SigningCertificate", in: XMLNamespace.xades)
            + ssp.children("SigningCertificateV2", in: XMLNamespace.xades)
        guard holders.count == 1, let holder = holders.first else { return nil }
        // XAdES lets SigningCertificate name the signer's whole path; the signer's own Cert
        // comes first, and the reference reads only that one (docs/design/asics-tm-names.md §3). The count
        // is already bounded by the XML limits.
        let certs = holder.children("Cert", in: XMLNamespace.xades)
        guard let cert = certs.first,
            let certDigest = cert.child("CertDigest", in: XMLNamespace.xades),
            let algorithm = certDigest.child("DigestMethod", in: XMLNamespace.ds)?.attribute("Algorithm").flatMap(
                DigestAlgorithm.init(xmlURI:)),
            let value = certDigest.child("DigestValue", in: XMLNamespace.ds).flatMap({ XMLBase64.decode($0.text) })
        else { return nil }
        return (cert, algorithm, value)
    }

    /// The signer among the KeyInfo certificates: the one the signed CertDigest names. A lone
    /// certificate is the signer whatever the digest says (``checkSigningCertificate`` then
    /// reports the mismatch), as before; with several, none is guessed.
    private func signingCertificate(
        among certificates: [Certificate], _ ssp: XMLElement?, findings: inout FindingList
    ) -> Certificate? {
        if certificates.count == 1 { return certificates[0] }
        guard let reference = signedCertificateReference(ssp) else {
            findings.invalid(
                "keyinfo-certificate",
                "KeyInfo holds the signer's chain but the signed properties name no "
                    + "signing certificate by its digest, so the signer's key cannot be chosen")
            return nil
        }
        guard
            let signer = certificates.first(where: {
                ConstantTime.equal($0.fingerprint(reference.algorithm).bytes, reference.digest)
            })
        else {
            findings.invalid(
                "signing-certificate-digest",
                "no KeyInfo certificate has the signed CertDigest: the certificate "
                    + "that signed is not in KeyInfo (a substituted certificate?), so the SignatureValue cannot be checked"
            )
            return nil
        }
        return signer
    }

    private func checkSigningCertificate(_ ssp: XMLElement, certificate: Certificate, findings: inout FindingList) {
        let v1 = ssp.children("SigningCertificate", in: XMLNamespace.xades)
        let v2 = ssp.children("SigningCertificateV2", in: XMLNamespace.xades)
        guard v1.count + v2.count == 1 else {
            findings.invalid(
                "signing-certificate", "exactly one SigningCertificate or SigningCertificateV2 is required")
            return
        }
        guard let (cert, algorithm, value) = signedCertificateReference(ssp) else {
            findings.invalid("signing-certificate", "the signing certificate reference needs a Cert with a CertDigest")
            return
        }
        if !ConstantTime.equal(certificate.fingerprint(algorithm).bytes, value) {
            findings.invalid(
                "signing-certificate-digest", "the signed CertDigest does not match the KeyInfo certificate")
        }
        // Issuer and serial are compared as an X.500 name (RFC 5280 §7.1) and an integer, not as
        // text: real CAs' names arrive as `#hex` DER values, `\XX` UTF-8 escapes or in DER order.
        var comparisons: [IssuerSerialComparison] = []
        if let issuerSerial = cert.child("IssuerSerial", in: XMLNamespace.xades) {
            comparisons.append(
                certificate.compareIssuerSerial(
                    issuerName: issuerSerial.child("X509IssuerName", in: XMLNamespace.ds)?.text ?? "",
                    serialNumber: issuerSerial.child("X509SerialNumber", in: XMLNamespace.ds)?.text ?? ""))
        }
        if let v2Serial = cert.child("IssuerSerialV2", in: XMLNamespace.xades) {
            comparisons.append(
                XMLBase64.decode(v2Serial.text).map { certificate.compareIssuerSerialV2(der: $0) }
                    ?? .malformedIssuerSerialV2("not base64"))
        }
        for comparison in comparisons {
            switch comparison {
            case .matches:
                break
            case .issuerDiffers, .serialDiffers:
                findings.invalid(
                    "signing-certificate-issuer-serial",
                    "the signed IssuerSerial does not name the signing certificate: \(comparison)")
            case .malformedIssuerName, .malformedSerialNumber, .malformedIssuerSerialV2:
                findings.invalid(
                    "signing-certificate-issuer-serial", "the signed IssuerSerial cannot be read: \(comparison)")
            }
        }
    }

    /// DigiDoc's check of a DataObjectFormat media type, `^[\w]*/[\w\-\+\.]*$` with `\w` as
    /// Unicode regular expressions define it (letters, marks, decimal digits, connector
    /// punctuation such as `_`, join controls).
    static func hasMediaTypeForm(_ mime: String) -> Bool {
        func isWord(_ scalar: Unicode.Scalar) -> Bool {
            let properties = scalar.properties
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation: return true
            default: return properties.isAlphabetic || properties.isJoinControl
            }
        }
        let parts = mime.unicodeScalars.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        return parts[0].allSatisfy(isWord) && parts[1].allSatisfy { isWord($0) || $0 == "-" || $0 == "+" || $0 == "." }
    }

    private func checkDataObjectFormats(
        signedInfo: XMLElement, signedProperties: XMLElement, findings: inout FindingList
    ) {
        let formats =
            signedProperties.child("SignedDataObjectProperties", in: XMLNamespace.xades)?
            .children("DataObjectFormat", in: XMLNamespace.xades) ?? []
        let files = filesByName
        var mimeByReference: [String: String] = [:]
        for format in formats {
            if let target = format.attribute("ObjectReference") {
                mimeByReference[target] = format.child("MimeType", in: XMLNamespace.xades)?.text
            }
        }
        for reference in signedInfo.children("Reference", in: XMLNamespace.ds) {
            let type = reference.attribute("Type")
            guard type != Self.signedPropertiesType, type != Self.signedPropertiesTypeV111,
                let uri = reference.attribute("URI"), let name = URIPath.decode(uri),
                let file = files[name.exact]
            else { continue }
            guard let refID = reference.attribute("Id"), let mime = mimeByReference["#\(refID)"] else {
                findings.invalid("data-object-format", "\(name) has no DataObjectFormat/MimeType")
                continue
            }
            // ASiC-S has no manifest, so its data object has no declared type to compare with.
            // Neither has a detached signature (hashcode validation).
            if mime != file.mediaType && container.kind == .asice && !container.isDetached {
                findings.invalid(
                    "mime-type-mismatch", "\(name): the signature says \(mime), the manifest says \(file.mediaType)")
            } else if !Self.hasMediaTypeForm(mime) {
                findings.warning("mime-type-format", "\(name): media type \(mime) is not of the form type/subtype")
            }
        }
    }

    private func certificateValues(in qualifying: XMLElement?) -> [Certificate] {
        guard
            let values = qualifying?.child("UnsignedProperties", in: XMLNamespace.xades)?
                .child("UnsignedSignatureProperties", in: XMLNamespace.xades)?
                .child("CertificateValues", in: XMLNamespace.xades)
        else { return [] }
        return values.children("EncapsulatedX509Certificate", in: XMLNamespace.xades)
            .compactMap { XMLBase64.decode($0.text) }.compactMap { try? Certificate(der: $0) }
    }
}
