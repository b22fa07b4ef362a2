import FoundationEssentials
import Glibc
import TamgaCore

extension Container {
    /// Raises existing signatures (tamga's or anyone's) to `profile`: adds a time-stamp, the
    /// issuer certificate and OCSP, or an archive time-stamp, as far as each one lacks them.
    /// Every service call happens before anything is written; if one fails the container is
    /// left byte for byte as it was and the error names the service.
    /// - Parameter fileNames: the signature files to extend; nil means all.
    /// - Returns: the files that were changed.
    @discardableResult
    public func extend(
        to profile: SignatureProfile, services: LongTermServices, fileNames: [String]? = nil
    ) async throws -> [String] {
        guard kind == .asice else { throw kind == .ddoc ? ContainerError.ddocReadOnly : ContainerError.asicsReadOnly }
        guard profile > .B else { return [] }
        guard services.timeStamping != nil else {
            throw CoreError.serviceURLMissing(service: "time-stamping authority (--tsa URL)")
        }
        let original = signatures
        let augmenter = SignatureAugmenter(container: self, services: services)
        var changed: [String] = []
        var updated: [SignatureFile] = []
        // Evidence added to a signature that does not verify would only dress it up: judged
        // first at B level (no trust needed), and any INVALID finding refuses the extension.
        let checker = SignatureValidator(container: self, options: ValidationOptions(minimumProfile: .B))
        for file in original where fileNames?.contains(file.name) ?? true {
            if let broken = checker.validate(file).first(where: { $0.status == .invalid }),
                let finding = broken.findings.first(where: { $0.severity == .invalid })
            {
                throw ContainerError.signatureDoesNotVerify(
                    file: file.name, reason: "\(finding.message) [\(finding.code)]")
            }
        }
        for file in original {
            guard fileNames?.contains(file.name) ?? true else {
                updated.append(file)
                continue
            }
            if let data = try await augmenter.augment(file.data, fileName: file.name, to: profile) {
                updated.append(SignatureFile(name: file.name, data: data, entry: nil))
                changed.append(file.name)
            } else {
                updated.append(file)
            }
        }
        if let missing = fileNames?.first(where: { name in !original.contains { $0.name == name } }) {
            throw ContainerError.dataFileNotFound(missing)
        }
        guard !changed.isEmpty else { return [] }
        replaceSignatures(updated)
        do {
            try save()
        } catch {
            replaceSignatures(original)
            throw error
        }
        return changed
    }
}
