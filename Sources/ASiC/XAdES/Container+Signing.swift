import Foundation
import TamgaCore

/// A signature prepared by `Container.prepareSignature` and waiting for its value.
struct PendingSignature {
    let fileName: String
    let id: String
    let template: String
    let digest: Digest
    let certificate: Certificate
    let algorithm: SignatureAlgorithm
}

extension Container {
    /// Step 1 of signing (DigiDoc's `prepareSignature`): hashes every data file, builds the
    /// signature document and returns the digest of its canonical SignedInfo. Hand that
    /// digest to a card, token or co-signer, then call `addSignature` with the value.
    /// - Parameters:
    ///   - certificate: the signer's certificate; it must carry nonRepudiation and be valid now.
    ///   - algorithm: the key's algorithm; the returned digest uses `algorithm.digest`.
    /// - Returns: the digest to sign.
    public func prepareSignature(certificate: Certificate, algorithm: SignatureAlgorithm,
                                 options: SignatureOptions = SignatureOptions()) throws -> Digest {
        guard !dataFiles.isEmpty else { throw ContainerError.noDataFiles }
        guard let usage = certificate.keyUsage, usage.contains(.nonRepudiation) else {
            throw ContainerError.signingCertificateUnsuitable(
                "it lacks the nonRepudiation key usage, so no validator would accept the signature")
        }
        let now = options.signingTime ?? Date()
        guard certificate.isValid(at: now) else {
            throw ContainerError.signingCertificateUnsuitable("it is not valid now (valid \(certificate.notBefore) – \(certificate.notAfter))")
        }
        switch (certificate.publicKey.type, algorithm.curve) {
        case (.ec(let keyCurve), let curve?) where keyCurve == curve: break
        case (.rsa, nil): break
        default:
            throw ContainerError.signingCertificateUnsuitable("its \(certificate.publicKey) key cannot sign with \(algorithm)")
        }
        let digestAlgorithm = options.referenceDigest.algorithm
        let references = try dataFiles.map {
            SignatureBuilder.DataReference(name: $0.name, mediaType: $0.mediaType, digest: try self.digest(of: $0, digestAlgorithm))
        }
        let id = nextSignatureID()
        let builder = SignatureBuilder(id: id, certificate: certificate, algorithm: algorithm, references: references,
                                       options: options, signingTime: now)
        let (template, signedInfoDigest) = try builder.prepare()
        pending = PendingSignature(fileName: nextSignatureFileName(), id: id, template: template, digest: signedInfoDigest,
                                   certificate: certificate, algorithm: algorithm)
        return signedInfoDigest
    }

    /// Step 2 (DigiDoc's `addSignature`): checks the value against the certificate, adds the
    /// signature file and saves the container atomically. A value that does not verify is
    /// refused and nothing is written.
    /// - Parameter value: raw `r‖s` (2 × field size) for ECDSA, the RSA signature block otherwise.
    /// - Returns: the name of the new signature file.
    @discardableResult
    public func addSignature(_ value: Data) throws -> String {
        guard let pending else { throw ContainerError.noPendingSignature }
        guard pending.certificate.publicKey.verify(signature: value, digest: pending.digest, algorithm: pending.algorithm) else {
            throw ContainerError.signatureValueRejected(
                pending.algorithm.isECDSA && value.count != 2 * (pending.algorithm.curve?.fieldSize ?? 0)
                    ? "ECDSA values must be raw r‖s of \(2 * (pending.algorithm.curve?.fieldSize ?? 0)) bytes, got \(value.count)"
                    : "wrong key or wrong digest")
        }
        let data = SignatureBuilder.finish(template: pending.template, signatureValue: value)
        appendSignature(SignatureFile(name: pending.fileName, data: data, entry: nil))
        do {
            try save()
        } catch {
            removeSignature(named: pending.fileName)
            throw error
        }
        self.pending = nil
        return pending.fileName
    }

    /// Prepares, signs with `signer`, and adds the signature: both steps in one call.
    @discardableResult
    public func sign(with signer: any Signer, options: SignatureOptions = SignatureOptions()) async throws -> String {
        let certificate = try await signer.certificate()
        let digest = try prepareSignature(certificate: certificate, algorithm: signer.algorithm, options: options)
        let value: Data
        do {
            value = try await signer.sign(digest: digest)
        } catch {
            pending = nil
            throw error
        }
        return try addSignature(value)
    }

    /// The lowest free `META-INF/signaturesN.xml`.
    private func nextSignatureFileName() -> String {
        let taken = Set(signatures.map(\.name))
        var n = 0
        while taken.contains("META-INF/signatures\(n).xml") { n += 1 }
        return "META-INF/signatures\(n).xml"
    }

    /// The lowest free `S<n>` among the Ids of the signatures already present.
    private func nextSignatureID() -> String {
        var taken = Set<String>()
        for file in signatures {
            guard let document = try? XMLDocument(data: file.data, name: file.name), let root = document.root else { continue }
            root.walk { if let id = $0.attribute("Id") { taken.insert(id) } }
        }
        var n = 0
        while taken.contains("S\(n)") { n += 1 }
        return "S\(n)"
    }
}
