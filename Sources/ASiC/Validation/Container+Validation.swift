import FoundationEssentials
import Glibc
import TamgaCore

extension Container {
    /// Verifies every signature: structure, manifest ⇄ references, every digest, the
    /// SignatureValue with the KeyInfo key only, the signing-certificate reference,
    /// nonRepudiation and the chain to `options.trust`. Never throws: problems are findings.
    public func validate(_ options: ValidationOptions = ValidationOptions()) -> ValidationReport {
        if let ddoc { return validateDDOC(ddoc, options) }
        var findings = FindingList()
        for warning in structureWarnings { findings.warning("container-structure", warning) }
        for notice in options.trustNotices { findings.add(notice.code, notice.severity, notice.message) }
        if !isSigned { findings.invalid("no-signatures", "the container holds no signatures") }
        let validator = SignatureValidator(container: self, options: options)
        var results: [ValidationReport.SignatureResult] = []
        // The same signature (the same SignatureValue) stored twice counts once, but every copy
        // is judged and the worst verdict is the one kept: the unsigned properties of a copy
        // may differ (a revoked OCSP response added to it), and which file comes first must
        // not decide whether that is seen.
        var seenValues: [Data: (file: String, index: Int)] = [:]
        var judged = 0
        for file in signatures {
            // 1,000 files of 16 signatures each would be 16,000 full verifications; no real
            // container comes near the bound, so past it the rest are refused unread.
            guard judged < Container.maximumSignatures else {
                findings.invalid(
                    "too-many-signatures",
                    "more than \(Container.maximumSignatures) signatures in the container; those in \(file.name) and after it were not checked"
                )
                break
            }
            for (result, value) in validator.validateWithValues(file) {
                judged += 1
                if let value {
                    if let original = seenValues[value] {
                        let worse = result.status > results[original.index].status
                        findings.warning(
                            "duplicate-signature",
                            "\(file.name) repeats the signature in \(original.file) (the same SignatureValue); it counts once"
                                + (worse ? ", with the verdict of \(file.name), the worse of the two" : ""))
                        if worse { results[original.index] = result }
                        continue
                    }
                    seenValues[value] = (file.name, results.count)
                }
                results.append(result)
            }
        }
        // ASiC-S: the token signature (its file, or the archive manifests that renew it).
        if kind == .asics, timeStampEntry != nil || archiveManifestEntry != nil {
            results.append(TimeStampSignatureValidator(container: self, options: options).validate())
        }
        results = results.map { result in
            var named = result
            named.signerName = result.signer.map(DistinguishedName.readableName(rfc4514:))
            return named
        }
        let status = max(findings.status, results.map(\.status).max() ?? .valid)
        return ValidationReport(
            container: path, status: status, dataFiles: dataFiles.map(\.name),
            findings: findings.items, signatures: results, containerType: kind.rawValue)
    }
}
