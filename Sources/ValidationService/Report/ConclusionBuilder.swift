import ASiC
import FoundationEssentials
import TamgaCore
import TamgaSupport

/// Builds SiVa's validation conclusion from tamga's report of the same container: the verdicts
/// are tamga's (`ETSIIndication`), the policy adds its level rule, and the rest is put in SiVa's
/// words and forms (docs/siva.md §Report lists each field and where tamga cannot fill it).
public struct ConclusionBuilder: Sendable {
    public let policy: SiVaPolicy
    /// The `filename` of the request, for `validatedDocument`.
    public let filename: String
    public let now: Date
    /// A `/validateHashcode` answer: no document, so no `validatedDocument` or `signatureForm`,
    /// and each scope gives its data file's digest.
    public let isHashcode: Bool

    public init(policy: SiVaPolicy, filename: String, now: Date = Date(), hashcode: Bool = false) {
        self.policy = policy
        self.filename = filename
        self.now = now
        isHashcode = hashcode
    }

    /// SiVa's container warning for every DDOC, word for word.
    static let ddocSHA1Warning =
        "The algorithm SHA1 used in DDOC is no longer considered reliable for signature creation!"
    /// What libdigidocpp looks for to send the whole DDOC after a hashcode one (docs/siva.md §DDOC).
    static let ddocBadDigest = "Bad digest for DataFile"

    public func conclusion(_ report: ValidationReport, container: Container) -> ValidationConclusion {
        let isDDOC = container.kind == .ddoc
        var conclusion = ValidationConclusion(
            policy: .init(policyName: policy.rawValue, policyDescription: policy.description, policyUrl: policy.url),
            validationTime: XSDDateTime.format(now),
            signatureForm: isHashcode ? nil : isDDOC ? container.digiDocSignatureForm : container.kind.rawValue,
            // SiVa's DSS-based validation of ASiC-E and ASiC-S says so; its DDOC and BDOC one does not.
            validationLevel: isDDOC || Self.isBDOC(filename) ? nil : "ARCHIVAL_DATA",
            validatedDocument: isHashcode ? nil : .init(filename: filename),
            validSignaturesCount: 0, signaturesCount: 0)
        for finding in report.findings where finding.severity != .invalid {
            conclusion.validationWarnings.append(finding.code == "ddoc-sha1" ? Self.ddocSHA1Warning : finding.message)
        }
        // A container refused as a whole fails every signature: SiVa answers such a container with
        // its signatures failed, never passed.
        let containerErrors = report.findings.filter { $0.severity == .invalid }.map(\.message)
        for result in report.signatures {
            if result.profile == "TimeStampToken" {
                conclusion.timeStampTokens.append(
                    timeStampToken(result, report: report, containerErrors: containerErrors))
                continue
            }
            let signature = self.signature(
                result, container: container, report: report, containerErrors: containerErrors)
            conclusion.signatures.append(signature)
            conclusion.signaturesCount += 1
            if signature.indication == ETSIIndication.Indication.totalPassed.rawValue {
                conclusion.validSignaturesCount += 1
            }
        }
        return conclusion
    }

    static func isBDOC(_ filename: String) -> Bool { filename.lowercased().hasSuffix(".bdoc") }

    func signature(
        _ result: ValidationReport.SignatureResult, container: Container, report: ValidationReport,
        containerErrors: [String]
    ) -> ValidationConclusion.Signature {
        let isDDOC = container.kind == .ddoc
        var verdict = ETSIIndication(result)
        if !containerErrors.isEmpty, verdict.indication == .totalPassed {
            verdict = ETSIIndication(indication: .totalFailed, subIndication: "FORMAT_FAILURE")
        }
        let level = isDDOC ? nil : Self.signatureLevel(result.qualification, verdict.indication)
        var errors =
            result.findings.filter { $0.severity == .invalid || $0.severity == .unknown }.map { finding in
                isDDOC && finding.code == "data-file-digest"
                    ? "\(Self.ddocBadDigest): \(finding.message)" : finding.message
            } + containerErrors
        if !isDDOC { errors = Self.dssReferenceErrors(result.findings) + errors }
        var warnings = result.findings.filter { $0.severity == .warning || $0.severity == .nonQSCD }.map(\.message)
        if verdict.indication == .totalPassed {
            let judged = policy.judge(level: level)
            if let error = judged.error { errors.append(error) }
            if let warning = judged.warning { warnings.append(warning) }
            if !judged.passes {
                verdict = ETSIIndication(indication: .totalFailed, subIndication: "SIG_CONSTRAINTS_FAILURE")
            }
        }
        // A signature that is not passed always says why: DigiDoc clients read an empty errors
        // list as no error at all.
        if verdict.indication != .totalPassed, errors.isEmpty {
            errors.append(
                "The signature is \(verdict.indication.rawValue) (\(verdict.subIndication ?? "no sub-indication"))")
        }
        let name = result.signer.flatMap { try? DistinguishedName(rfc4514: $0) }
        var info = ValidationConclusion.Info()
        info.bestSignatureTime = result.timeStampTime.flatMap(Self.sivaTime)
        if ["T", "LT", "LTA"].contains(result.profile) { info.timestampCreationTime = info.bestSignatureTime }
        if isDDOC || result.profile.hasPrefix("TM") { info.ocspResponseCreationTime = info.bestSignatureTime }
        info.signerRole = result.claimedRoles ?? []
        var certificates: [ValidationConclusion.ReportCertificate] = []
        if let evidence = result.evidence {
            info.timeAssertionMessageImprint = evidence.timeAssertionMessageImprint?.base64EncodedString()
            // A time-stamped signature's OCSP has its own time; a time-mark's is its best time.
            if !isDDOC, !result.profile.hasPrefix("TM"), let produced = evidence.ocspProducedAt {
                info.ocspResponseCreationTime = XSDDateTime.format(produced)
            }
            info.archiveTimestamps = evidence.archiveTimeStamps.map {
                .init(
                    signedTime: XSDDateTime.format($0.genTime), indication: $0.passed ? "PASSED" : "FAILED",
                    signedBy: $0.signedBy,
                    country: $0.country, content: $0.token.base64EncodedString())
            }
            certificates = evidence.certificates.map(Self.reportCertificate)
            let place = evidence.productionPlace
            if !place.isEmpty {
                info.signatureProductionPlace = .init(
                    countryName: place["CountryName"], stateOrProvince: place["StateOrProvince"],
                    city: place["City"], postalCode: place["PostalCode"])
            }
        }
        var signature = ValidationConclusion.Signature(
            id: result.id ?? result.file,
            signatureFormat: Self.signatureFormat(result.profile, container: container),
            signatureMethod: result.signatureMethod,
            signatureLevel: level,
            signedBy: name.map(Self.signedBy) ?? result.signer ?? "",
            subjectDistinguishedName: name.map(Self.subjectName),
            indication: verdict.indication.rawValue,
            subIndication: verdict.subIndication,
            errors: errors,
            warnings: warnings,
            claimedSigningTime: result.signingTime.flatMap(Self.sivaTime) ?? result.signingTime ?? "",
            info: info,
            // Only a passed signature is known to cover every data file (one that leaves any out
            // is not passed), so only it names them.
            signatureScopes: verdict.indication == .totalPassed
                ? scopes(report, container: container, signed: result.signedDataFiles) : [])
        signature.certificates = certificates
        return signature
    }

    static func reportCertificate(
        _ certificate: SignatureEvidence.ReportedCertificate
    ) -> ValidationConclusion.ReportCertificate {
        .init(
            commonName: certificate.commonName, type: certificate.type, content: certificate.der.base64EncodedString(),
            issuer: certificate.issuer.map { ($0.commonName, $0.der.base64EncodedString()) })
    }

    /// DSS's words for a data file's reference that failed, which SiVa's clients and tests look
    /// for (`The reference data object is not intact!`), each once, before tamga's own findings
    /// that say which file and why. DDOC has its own (`ddocBadDigest`).
    static func dssReferenceErrors(_ findings: [ValidationReport.Finding]) -> [String] {
        var errors: [String] = []
        for finding in findings where finding.severity == .invalid {
            let text: String
            switch finding.code {
            case "data-file-digest": text = "The reference data object is not intact!"
            case "reference-file-missing", "data-file-unreadable", "data-file-digest-algorithm":
                text = "The reference data object has not been found!"
            default: continue
            }
            if !errors.contains(text) { errors.append(text) }
        }
        return errors
    }

    /// What a passed signature covers: every data file, and in a hashcode answer its digest.
    func scopes(_ report: ValidationReport, container: Container, signed: [String]?) -> [ValidationConclusion.Scope] {
        let isDigest = container.kind == .ddoc || Self.isBDOC(filename)
        if isHashcode {
            let covered = Set(signed ?? [])
            return container.dataFiles.filter { covered.contains($0.name) }.map { file in
                let given = container.givenDigest(of: file)
                return .init(
                    name: file.name, scope: "FULL", content: "Full document", hashAlgo: given?.algorithm,
                    hash: given?.digest.base64EncodedString())
            }
        }
        return report.dataFiles.map {
            .init(
                name: $0, scope: isDigest ? "FullSignatureScope" : "FULL",
                content: isDigest ? "Digest of the document content" : "Full document")
        }
    }

    func timeStampToken(
        _ result: ValidationReport.SignatureResult, report: ValidationReport, containerErrors: [String]
    ) -> ValidationConclusion.TimeStampToken {
        var verdict = ETSIIndication(result)
        if !containerErrors.isEmpty {
            verdict = ETSIIndication(indication: .totalFailed, subIndication: "FORMAT_FAILURE")
        }
        // SiVa gives a time-stamp token TOTAL-PASSED or TOTAL-FAILED only.
        let passed = verdict.indication == .totalPassed
        return ValidationConclusion.TimeStampToken(
            indication: passed ? "TOTAL-PASSED" : "TOTAL-FAILED",
            subIndication: verdict.subIndication,
            signedBy: result.signer.flatMap { try? DistinguishedName(rfc4514: $0) }.flatMap {
                $0.firstValue(oid: "2.5.4.3")
            } ?? result.signer ?? "",
            signedTime: result.timeStampTime.flatMap(Self.sivaTime) ?? "",
            error: result.findings.filter { $0.severity == .invalid || $0.severity == .unknown }.map(\.message)
                + containerErrors,
            warning: result.findings.filter { $0.severity == .warning || $0.severity == .nonQSCD }.map(\.message),
            certificates: (result.evidence?.certificates ?? []).map(Self.reportCertificate),
            // What a passed token covers: the data object, as SiVa's scopes name it.
            timestampScopes: passed
                ? report.dataFiles.map { .init(name: $0, scope: "FULL", content: "Full document") } : [],
            timestampLevel: result.evidence?.timestampLevel)
    }

    /// `yyyy-MM-dd'T'HH:mm:ss'Z'` in UTC, as every SiVa date.
    static func sivaTime(_ text: String) -> String? { XSDDateTime.parse(text).map(XSDDateTime.format) }

    /// SiVa's `signatureFormat` for tamga's profile label.
    static func signatureFormat(_ profile: String, container: Container) -> String {
        if container.kind == .ddoc {
            return (container.digiDocSignatureForm ?? "DIGIDOC_XML").replacingAll("_hashcode", with: "")
        }
        switch profile {
        case "TM", "TM-A": return "XAdES_BASELINE_LT_TM"
        default: return "XAdES_BASELINE_\(profile)"
        }
    }

    /// DSS's signature qualification names (ETSI TS 119 615 / 119 172-4), from what the trusted
    /// list said of the signer's certificate and the verdict: `QESIG` for a qualified
    /// certificate on a QSCD, `ADESIG_QC` off one, `ADESIG` for no qualified certificate (the
    /// `…SEAL` forms for seals); `INDETERMINATE_…` when the verdict is indeterminate,
    /// `NOT_ADES_QC_QSCD`/`NOT_ADES_QC`/`NOT_ADES` when it failed, and `NA` where no trusted list
    /// judged the certificate (anchors given as PEM files).
    static func signatureLevel(
        _ qualification: ValidationReport.SignerQualification?, _ indication: ETSIIndication.Indication
    ) -> String {
        guard let qualification else { return indication == .totalFailed ? "NOT_ADES" : "NA" }
        switch indication {
        case .totalFailed:
            return qualification.qualified ? (qualification.qscd ? "NOT_ADES_QC_QSCD" : "NOT_ADES_QC") : "NOT_ADES"
        case .indeterminate, .totalPassed:
            let kind = qualification.seal ? "SEAL" : "SIG"
            let level = qualification.qualified ? (qualification.qscd ? "QE\(kind)" : "ADE\(kind)_QC") : "ADE\(kind)"
            return indication == .indeterminate ? "INDETERMINATE_\(level)" : level
        }
    }

    /// `SURNAME,GIVENNAME,CODE` (no spaces; the code without its `PNOEE-` prefix), as SiVa writes
    /// a person; else the common name.
    static func signedBy(_ name: DistinguishedName) -> String {
        if let surname = name.firstValue(oid: "2.5.4.4"), let given = name.firstValue(oid: "2.5.4.42"),
            let serial = name.firstValue(oid: "2.5.4.5")
        {
            return "\(surname),\(given),\(DistinguishedName.withoutSemanticsPrefix(serial))"
        }
        return name.firstValue(oid: "2.5.4.3") ?? ""
    }

    static func subjectName(_ name: DistinguishedName) -> ValidationConclusion.SubjectDistinguishedName {
        .init(
            serialNumber: name.firstValue(oid: "2.5.4.5"), commonName: name.firstValue(oid: "2.5.4.3"),
            givenName: name.firstValue(oid: "2.5.4.42"), surname: name.firstValue(oid: "2.5.4.4"))
    }
}
