import Foundation
import TamgaCore

extension Container {
    /// Verifies every signature: structure, manifest ⇄ references, every digest, the
    /// SignatureValue with the KeyInfo key only, the signing-certificate reference,
    /// nonRepudiation and the chain to `options.trust`. Never throws: problems are findings.
    public func validate(_ options: ValidationOptions = ValidationOptions()) -> ValidationReport {
        var findings = FindingList()
        for warning in structureWarnings { findings.warning("container-structure", warning) }
        for notice in options.trustNotices { findings.add(notice.code, notice.severity, notice.message) }
        if signatures.isEmpty { findings.invalid("no-signatures", "the container holds no signatures") }
        let validator = SignatureValidator(container: self, options: options)
        let results = signatures.flatMap { validator.validate($0) }
        let status = max(findings.status, results.map(\.status).max() ?? .valid)
        return ValidationReport(container: path, status: status, dataFiles: dataFiles.map(\.name),
                                findings: findings.items, signatures: results)
    }
}
