import FoundationEssentials
import Glibc
import TamgaCore

/// A signature prepared by `Container.prepareSignature` and waiting for its value.
struct PendingSignature {
    let fileName: String
    let id: String
    let template: String
    let digest: Digest
    let certificate: Certificate
    let algorithm: SignatureAlgorithm
    let profile: SignatureProfile
    let services: LongTermServices?
}

extension Container {
    /// Step 1 of signing (DigiDoc's `prepareSignature`): hashes every data file, builds the
    /// signature document and returns the digest of its canonical SignedInfo. Hand that
    /// digest to a card, token or co-signer, then call `addSignature` with the value.
    /// - Parameters:
    ///   - certificate: the signer's certificate; it must carry nonRepudiation and be valid now.
    ///   - algorithm: the key's algorithm; the returned digest uses `algorithm.digest`.
    /// - Returns: the digest to sign.
    public func prepareSignature(
        certificate: Certificate, algorithm: SignatureAlgorithm,
        options: SignatureOptions = SignatureOptions(), services: LongTermServices? = nil
    ) throws -> Digest {
        guard kind == .asice else { throw kind == .ddoc ? ContainerError.ddocReadOnly : ContainerError.asicsReadOnly }
        guard !dataFiles.isEmpty else { throw ContainerError.noDataFiles }
        // Found out before anyone types a PIN: T and above cannot be made without a TSA.
        if options.profile > .B && services?.timeStamping == nil {
            throw CoreError.serviceURLMissing(
                service: "time-stamping authority for \(options.profile.withArticle) signature (--tsa URL)")
        }
        guard let usage = certificate.keyUsage, usage.contains(.nonRepudiation) else {
            // Say how to make one that works: a self-made certificate, the usual first try, lacks it.
            throw ContainerError.signingCertificateUnsuitable(
                "it lacks the nonRepudiation key usage, so no validator would accept the signature. A certificate of your own "
                    + "needs it: openssl req -x509 -key KEY.pem -subj '/CN=Your Name' -days 365 -addext 'keyUsage=critical,nonRepudiation' -out CERT.pem"
            )
        }
        let place = options.productionPlace
        for text in options.roles
            + [place?.city, place?.streetAddress, place?.stateOrProvince, place?.postalCode, place?.countryName]
            .compactMap({ $0 }) where !XMLText.isAllowed(text)
        {
            throw ContainerError.invalidSignatureProperty(text)
        }
        let now = options.signingTime ?? Date()
        guard certificate.isValid(at: now) else {
            throw ContainerError.signingCertificateUnsuitable(
                "it is not valid now (valid \(certificate.notBefore) – \(certificate.notAfter))")
        }
        switch (certificate.publicKey.type, algorithm.curve) {
        case (.ec(let keyCurve), let curve?) where keyCurve == curve: break
        case (.rsa, nil): break
        default:
            throw ContainerError.signingCertificateUnsuitable(
                "its \(certificate.publicKey) key cannot sign with \(algorithm)")
        }
        let digestAlgorithm = options.referenceDigest.algorithm
        let references = try dataFiles.map {
            SignatureBuilder.DataReference(
                name: $0.name, mediaType: $0.mediaType, digest: try self.digest(of: $0, digestAlgorithm))
        }
        let id = nextSignatureID()
        let builder = SignatureBuilder(
            id: id, certificate: certificate, algorithm: algorithm, references: references,
            options: options, signingTime: now)
        let (template, signedInfoDigest) = try builder.prepare()
        pending = PendingSignature(
            fileName: nextSignatureFileName(), id: id, template: template, digest: signedInfoDigest,
            certificate: certificate, algorithm: algorithm, profile: options.profile, services: services)
        return signedInfoDigest
    }

    /// Step 2 (DigiDoc's `addSignature`): checks the value against the certificate, adds the
    /// time-stamp and revocation data the profile asks for, adds the signature file and saves
    /// the container atomically. A value that does not verify, or a TSA/OCSP failure, leaves
    /// the container as it was.
    /// - Parameter value: raw `r‖s` (2 × field size) for ECDSA, the RSA signature block otherwise.
    /// - Returns: the name of the new signature file.
    @discardableResult
    public func addSignature(_ value: Data) async throws -> String {
        let file = try await finishPendingSignature(value)
        try keepingSignatureOnlyIfWritten(file) { _ = try signingClock.measure(\.write) { try save() } }
        lastSigningPhases = signingClock.phases
        pending = nil
        return file.name
    }

    /// Adds `file` to the signatures for `write`, and takes it back out if writing fails, so the
    /// object keeps describing what is on disk.
    private func keepingSignatureOnlyIfWritten(_ file: SignatureFile, _ write: () throws -> Void) throws {
        appendSignature(file)
        do {
            try write()
        } catch {
            removeSignature(named: file.name)
            throw error
        }
    }

    /// Prepares the signature for `signer`'s certificate and asks the signer for its value.
    /// On any failure no signature stays pending.
    private func requestSignatureValue(
        from signer: any Signer, options: SignatureOptions, services given: LongTermServices?
    ) async throws -> Data {
        let certificate = try await signer.certificate()
        let services = try await settleBeforeSigning(
            certificate: certificate, profile: options.profile, services: given)
        let digest = try signingClock.measure(\.prepare) {
            try prepareSignature(
                certificate: certificate, algorithm: signer.algorithm, options: options, services: services)
        }
        do {
            let timed = signer as? any UnlockTimingSigner
            timed?.unlockClock.reset()
            let value = try await signingClock.measure(\.sign) { try await signer.sign(digest: digest) }
            if let unlock = timed?.unlockClock.lastDuration {
                signingClock.phases.unlock += unlock
                signingClock.phases.sign -= unlock
            }
            return value
        } catch {
            pending = nil
            throw error
        }
    }

    /// Everything that can fail without the key, settled before the key is used (a card's PIN2
    /// asked, a token unlocked, the co-signer's share spent): the container's folder is
    /// writable, the TSA and the OCSP responder can be reached, and the signer's issuer is known
    /// (it is what the OCSP request names). Returns the services with the issuer found first.
    private func settleBeforeSigning(
        certificate: Certificate, profile: SignatureProfile, services: LongTermServices?
    ) async throws -> LongTermServices? {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard access(folder.isEmpty ? "." : folder, W_OK) == 0 else {
            throw ContainerError.ioFailure(
                path: path,
                reason: "its folder is not writable, so the signed container could not be saved; nothing was signed")
        }
        guard profile > .B, var settled = services else { return services }
        if let tsa = settled.timeStamping {
            try await settled.transport.probe(tsa.url, service: "time-stamping authority")
        }
        if profile >= .LT {
            guard let ocsp = settled.ocspURL ?? certificate.ocspURLs.first.flatMap(URL.init(string:)) else {
                throw CoreError.serviceURLMissing(service: "OCSP responder (--ocsp URL; the certificate names none)")
            }
            let issuer = try await settled.issuer(of: certificate)
            settled.issuerCandidates.insert(issuer, at: 0)
            try await settled.transport.probe(ocsp, service: "OCSP responder")
        }
        return settled
    }

    /// Checks a signature value against the pending signature and returns the finished file.
    private func finishPendingSignature(_ value: Data) async throws -> SignatureFile {
        guard let pending else { throw ContainerError.noPendingSignature }
        guard
            pending.certificate.publicKey.verify(signature: value, digest: pending.digest, algorithm: pending.algorithm)
        else {
            let width = 2 * (pending.algorithm.curve?.fieldSize ?? 0)
            throw ContainerError.signatureValueRejected(
                pending.algorithm.isECDSA && value.count != width
                    ? "ECDSA values must be raw r‖s of \(width) bytes, got \(value.count)" : "wrong key or wrong digest"
            )
        }
        var data = SignatureBuilder.finish(template: pending.template, signatureValue: value)
        if pending.profile > .B, let services = pending.services {
            data =
                try await SignatureAugmenter(container: self, services: services, clock: signingClock)
                .augment(data, fileName: pending.fileName, to: pending.profile) ?? data
        }
        return SignatureFile(name: pending.fileName, data: data, entry: nil)
    }

    /// Writes a new (or changed) container and signs it in the same pass: each data file is
    /// read once, hashed and compressed on its way into the temporary file; the signer is
    /// asked once all of them are written; the signature, manifest and directory follow; then
    /// the file is renamed into place. A failure anywhere leaves the target as it was.
    private func saveSigning(
        with signer: any Signer, options: SignatureOptions, services: LongTermServices?
    ) async throws -> String {
        defer { pending = nil }  // in one pass, nothing stays pending whatever happens
        digestsWhileWriting.insert(options.referenceDigest.algorithm)
        let output = try AtomicOutputFile(replacing: path)
        let writer = ZipWriter(output: output)
        let now = Date()
        // In one pass, writing the data files is also where they are hashed: count it as write.
        try signingClock.measure(\.write) { try writeMimetypeAndDataFiles(writer, now: now) }
        let file = try await finishPendingSignature(
            try await requestSignatureValue(from: signer, options: options, services: services))
        try keepingSignatureOnlyIfWritten(file) {
            try signingClock.measure(\.write) {
                try writeManifestAndSignatures(writer, now: now)
                try output.commit()
            }
        }
        try reopen()
        lastSigningPhases = signingClock.phases
        return file.name
    }

    /// Prepares, signs with `signer`, and adds the signature: both steps in one call.
    @discardableResult
    public func sign(
        with signer: any Signer, options: SignatureOptions = SignatureOptions(),
        services: LongTermServices? = nil
    ) async throws -> String {
        signingClock = PhaseClock()
        if hasUnwrittenDataFiles { return try await saveSigning(with: signer, options: options, services: services) }
        return try await addSignature(
            try await requestSignatureValue(from: signer, options: options, services: services))
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
            guard let document = try? XMLDocument(data: file.data, name: file.name), let root = document.root else {
                continue
            }
            root.walk { if let id = $0.attribute("Id") { taken.insert(id) } }
        }
        var n = 0
        while taken.contains("S\(n)") { n += 1 }
        return "S\(n)"
    }
}
