import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// Judges the RFC 3161 token signature of an ASiC-S container as the reference does
/// (docs/design/asics-tm-names.md §1.2–1.3): `META-INF/timestamp.tst` must be a TimeStampToken (not a
/// TimeStampResp) whose imprint is the hash of the data object's raw bytes, with the token's own
/// hash; its TSA is trusted at genTime (untrusted → UNKNOWN, any other failure → INVALID).
/// Then the archive-manifest chain, oldest first; its first failure ends the chain check.
struct TimeStampSignatureValidator {
    let container: Container
    let options: ValidationOptions

    static let profile = "TimeStampToken"
    /// A token is a few KB; anything near this is not a token.
    static let tokenLimit: UInt64 = 1 << 20
    /// Renewals followed; each one is a manifest and a token.
    static let maximumManifests = 256
    static let manifestBytesLimit = 64 << 20

    /// What one verified token says, for the report.
    private struct CheckedToken {
        let token: TimeStampToken
        var tsa: Certificate? {
            // The TSA's own certificate: the token's one end-entity certificate (the CA may ride along).
            let certificates = token.certificates
            return certificates.first { !$0.isCA } ?? certificates.first
        }
    }

    func validate() -> ValidationReport.SignatureResult {
        var findings = FindingList()
        let file = SimpleLayout.timeStampPath
        var checked: CheckedToken? = nil
        var method: String? = nil
        if let entry = container.timeStampEntry, let data = container.dataFiles.first {
            if let token = readToken(entry, findings: &findings) {
                checked = CheckedToken(token: token)
                method = token.imprintAlgorithm?.xmlURI
                checkToken(token, file: entry.name, findings: &findings) { algorithm in
                    try container.digest(of: data, algorithm)
                }
            }
        } else {
            findings.invalid(
                "archive-chain", "\(file) is missing: an archive manifest renews a time-stamp token that is not there")
        }
        var renewals: [ValidationReport.ArchiveTimeStamp]? = nil
        // Checked even after a failed token, as the reference collects both failures.
        if container.archiveManifestEntry != nil, container.timeStampEntry != nil {
            renewals = checkArchiveChain(after: checked?.token.genTime, findings: &findings)
        }
        let time = checked.map { XSDDateTime.format($0.token.genTime) }
        let tsa = checked?.tsa
        var result = ValidationReport.SignatureResult(
            file: file, id: checked?.token.serialNumber, signer: tsa?.subject, signerSerial: tsa?.serialNumber,
            signingTime: time, timeStampTime: time, signatureMethod: method, profile: Self.profile,
            status: findings.status, findings: findings.capped(SignatureValidator.maximumFindings))
        result.archiveTimeStamps = renewals
        if options.collectEvidence, let token = checked?.token {
            var evidence = SignatureEvidence()
            evidence.certificates = token.certificates.map { SignatureEvidence.reported($0, "CONTENT_TIMESTAMP") }
            evidence.timeAssertionMessageImprint = SignatureEvidence.messageImprint(token)
            let vouched = options.trustedList != nil && !findings.items.contains { $0.code.hasPrefix("timestamp") }
            evidence.timestampLevel = vouched ? "QTSA" : "N/A"
            result.evidence = evidence
        }
        return result
    }

    // MARK: - One token

    /// Reads and parses a token file; a TimeStampResp (the TSA's whole answer) gets its own finding.
    private func readToken(_ entry: ZipEntry, findings: inout FindingList) -> TimeStampToken? {
        let bytes: Data
        do {
            guard let reader = container.reader else { throw ContainerError.dataFileNotFound(entry.name) }
            bytes = try reader.read(entry, limit: Self.tokenLimit)
        } catch {
            findings.invalid("timestamp-unreadable", "\(entry.name): \(error)")
            return nil
        }
        if let token = try? TimeStampToken(der: bytes) { return token }
        if Self.looksLikeTimeStampResponse(bytes) {
            findings.invalid(
                "timestamp-response-not-token",
                "\(entry.name) holds a TimeStampResp (the TSA's whole answer), not the TimeStampToken inside it")
        } else {
            findings.invalid("timestamp-malformed", "\(entry.name) is not an RFC 3161 TimeStampToken")
        }
        return nil
    }

    /// Checks a token over the bytes `imprint` hashes with the token's algorithm, with the TSA
    /// trusted at the token's genTime. Returns whether it may be built on (valid or only untrusted).
    @discardableResult
    private func checkToken(
        _ token: TimeStampToken, file: String, code: String = "timestamp",
        findings: inout FindingList, imprint: (DigestAlgorithm) throws -> Digest
    ) -> Bool {
        guard let algorithm = token.imprintAlgorithm else {
            findings.invalid("\(code)-invalid", "\(file): the token's imprint hash is unknown")
            return false
        }
        let digest: Digest
        do {
            digest = try imprint(algorithm)
        } catch {
            findings.invalid("data-file-unreadable", "\(file): the time-stamped bytes cannot be read: \(error)")
            return false
        }
        // Another imprint: the token is intact but time-stamps other bytes (DSS's words first,
        // which SiVa's clients read, and its HASH_FAILURE).
        guard ConstantTime.equal(Array(token.imprint), Array(digest.bytes)) else {
            findings.invalid(
                "\(code)-imprint",
                "The time-stamp message imprint is not intact! \(file) time-stamps other bytes than \(code == "timestamp" ? "the data object" : "the archive manifest") (message imprint mismatch)"
            )
            return false
        }
        let trust = TrustStore(
            anchors: options.anchors(for: .timeStamping, at: token.genTime), intermediates: options.trust.intermediates)
        switch token.verify(imprint: digest, trust: trust) {
        case .valid:
            if algorithm.isWeak {
                findings.warning("weak-digest", "\(file): the time-stamp's imprint uses \(algorithm), a weak digest")
            }
            return true
        case .untrusted(let why):
            findings.add(
                "\(code)-untrusted", .unknown,
                "\(file): the TSA is not trusted at \(XSDDateTime.format(token.genTime)) (\(why))")
            return false
        case .invalid(let why):
            findings.invalid("\(code)-invalid", "\(file) does not verify: \(why)")
            return false
        }
    }

    /// DER `SEQUENCE { SEQUENCE { INTEGER status …` : a TimeStampResp starts with PKIStatusInfo,
    /// a token (ContentInfo) with an OBJECT IDENTIFIER. Reads at most a few header bytes.
    static func looksLikeTimeStampResponse(_ bytes: Data) -> Bool {
        let b = [UInt8](bytes.prefix(16))
        func skipHeader(_ at: Int) -> Int? {  // index of the content after the tag and length at `at`
            guard at + 1 < b.count else { return nil }
            let first = b[at + 1]
            if first < 0x80 { return at + 2 }
            let count = Int(first & 0x7F)
            guard count >= 1, count <= 4 else { return nil }
            return at + 2 + count
        }
        guard b.first == 0x30, let inner = skipHeader(0), inner < b.count, b[inner] == 0x30,
            let status = skipHeader(inner), status < b.count
        else { return false }
        return b[status] == 0x02
    }

    // MARK: - Archive manifests

    /// Reads the chain from `ASiCArchiveManifest.xml` through each `Rootfile` to the oldest
    /// (stopping at a name seen before, so a cycle ends), then checks it oldest first.
    private func checkArchiveChain(
        after firstTime: Date?, findings: inout FindingList
    ) -> [ValidationReport.ArchiveTimeStamp]? {
        guard let reader = container.reader, let data = container.dataFiles.first else { return nil }
        let entries = Dictionary(reader.entries.map { ($0.name.exact, $0) }, uniquingKeysWith: { a, _ in a })
        var chain: [ArchiveManifest] = []  // newest first
        var seen = Set<String>()
        var bytes = 0
        var next: String? = SimpleLayout.archiveManifestPath
        while let name = next {
            guard seen.insert(name).inserted else {
                findings.invalid(
                    "archive-chain",
                    "\(name) is reached again through Rootfile references: the archive manifests form a cycle")
                return nil
            }
            guard chain.count < Self.maximumManifests else {
                findings.invalid("archive-chain", "more than \(Self.maximumManifests) archive manifests")
                return nil
            }
            guard name.hasPrefix("META-INF/"), let entry = entries[name.exact] else {
                findings.invalid("archive-chain", "File not found '\(name)': an archive manifest is missing")
                return nil
            }
            do {
                let manifestData = try reader.read(entry, limit: Container.xmlEntryLimit)
                bytes += manifestData.count
                guard bytes <= Self.manifestBytesLimit else {
                    throw ContainerError.entryTooLarge(name: "the archive manifests", limit: Self.manifestBytesLimit)
                }
                let manifest = try ArchiveManifest(name: name, data: manifestData)
                chain.append(manifest)
                next = manifest.previousManifest
            } catch {
                findings.invalid("archive-manifest-malformed", "\(error)")
                return nil
            }
        }

        var digests: [ExactName: Digest] = [:]  // each file hashed once per algorithm, however often referenced
        func digest(of name: String, _ algorithm: DigestAlgorithm) throws -> Digest? {
            let key = "\(algorithm.rawValue):\(name)".exact
            if let known = digests[key] { return known }
            let computed: Digest
            if name.isExactly(data.name) {
                computed = try container.digest(of: data, algorithm)
            } else {
                guard name != "mimetype", let entry = entries[name.exact] else { return nil }
                let hasher = StreamingDigest(algorithm)
                try reader.stream(entry) { hasher.update($0) }
                computed = hasher.finish()
            }
            digests[key] = computed
            return computed
        }

        var expected: [ExactName: String] = [data.name.exact: data.name]
        var previousTime = firstTime
        var renewals: [ValidationReport.ArchiveTimeStamp] = []
        for manifest in chain.reversed() {
            // 1. Every file the manifest lists, with its own digest method.
            for reference in manifest.references {
                guard let algorithm = reference.digestAlgorithm, let expectedDigest = reference.digest else {
                    findings.invalid(
                        "archive-reference-digest",
                        "\(manifest.name): Reference '\(reference.name)' has no usable DigestMethod and DigestValue")
                    return renewals
                }
                do {
                    guard let actual = try digest(of: reference.name, algorithm) else {
                        findings.invalid(
                            "archive-reference-missing", "\(manifest.name): File not found '\(reference.name)'")
                        return renewals
                    }
                    guard ConstantTime.equal(actual.bytes, expectedDigest) else {
                        findings.invalid(
                            "archive-reference-digest",
                            "\(manifest.name): Reference '\(reference.name)' digest does not match")
                        return renewals
                    }
                } catch {
                    findings.invalid(
                        "archive-reference-digest", "\(manifest.name): Reference '\(reference.name)': \(error)")
                    return renewals
                }
                if algorithm.isWeak {
                    findings.warning("weak-digest", "\(manifest.name): Reference '\(reference.name)' uses \(algorithm)")
                }
            }
            // 2. Its token, over the manifest's exact bytes.
            guard let sigReference = manifest.sigReference, sigReference.mediaType == ArchiveManifest.tokenMediaType
            else {
                findings.invalid(
                    "archive-sigreference",
                    "\(manifest.name): SigReference is missing (or not of type \(ArchiveManifest.tokenMediaType))")
                return renewals
            }
            guard sigReference.name.hasPrefix("META-INF/"), let tokenEntry = entries[sigReference.name.exact] else {
                findings.invalid(
                    "archive-sigreference", "\(manifest.name): SigReference \(sigReference.name) is missing")
                return renewals
            }
            guard let token = readToken(tokenEntry, findings: &findings),
                checkToken(
                    token, file: tokenEntry.name, code: "archive-timestamp", findings: &findings,
                    imprint: { Digest.compute($0, over: manifest.data) })
            else {
                return renewals
            }
            if let earlier = previousTime, token.genTime < earlier {
                findings.invalid(
                    "archive-timestamp-order",
                    "\(tokenEntry.name) (\(XSDDateTime.format(token.genTime))) is older than the time-stamp it renews (\(XSDDateTime.format(earlier)))"
                )
                return renewals
            }
            previousTime = token.genTime
            // 3. Everything the older layers covered must still be covered.
            let covered = Dictionary(
                (manifest.references.map(\.name) + [sigReference.name]).map { ($0.exact, $0) },
                uniquingKeysWith: { a, _ in a })
            if let missing = expected.filter({ covered[$0.key] == nil }).map(\.value).sorted().first {
                findings.invalid(
                    "archive-reference-not-found", "\(manifest.name): Reference '\(missing)' not found in manifest")
                return renewals
            }
            expected = covered
            renewals.append(
                .init(
                    manifest: manifest.name, file: tokenEntry.name, timeStampTime: XSDDateTime.format(token.genTime),
                    tsa: CheckedToken(token: token).tsa?.subject))
        }
        return renewals
    }
}
