import FoundationEssentials
import Glibc
import TamgaCore

/// Judges the unsigned properties of one signature the way the reference does
/// (docs/design/asice.md §1.5, docs/design/trust.md): the signature time-stamp over the canonical SignatureValue,
/// the OCSP response (signature, responder trust at producedAt, status good for the signer,
/// producedAt not before genTime: a warning past 15 minutes after it, INVALID past 24 hours, as
/// SiVa has it), archive time-stamps over
/// their exact input, and the signer's chain at the time-stamp's time. BDOC 2.1 time-marks
/// (OCSP without a time-stamp) go to TimeMarkValidator.
struct LongTermValidator {
    let container: Container
    let options: ValidationOptions

    struct Outcome {
        var profile: SignatureProfile
        var profileLabel: String
        /// genTime of a valid signature time-stamp, or the producedAt of a time-mark's good OCSP
        /// response: the time at which the signer is checked.
        var signatureTime: Date?
        /// genTime of the signature time-stamp, or a time-mark's producedAt, for the report.
        var timeStampTime: String?
        /// A BDOC 2.1 time-mark: the signer is judged at producedAt and at the certificate's notBefore.
        var isTimeMark = false
        /// Whether each archive time-stamp verified, in document order (for the report's evidence).
        var archiveVerdicts: [Bool] = []
    }

    /// The longest an OCSP response may follow the signature time-stamp (SiVa's "revocation
    /// freshness" rule): later, the signature is INVALID (`revocation-not-fresh`); between 15
    /// minutes and this, a warning (`ocsp-produced-late`).
    static let revocationFreshness: TimeInterval = 24 * 3600

    static func timeMarkPolicyOnArchive(_ count: Int, onTimeMark: Bool) -> String {
        "the signature claims the BDOC 2.1 time-mark policy and carries \(count) archive time-stamp(s)"
            + (onTimeMark ? " on its time-mark (they are not validated)" : "")
            + ": SiVa accepts that policy only on a plain time-mark (BASELINE_LT_TM), not extended to LTA (DigiDoc's libdigidocpp accepts it)"
    }

    /// Labels in the report for a time-mark without and with archive time-stamps.
    static let timeMarkLabel = "TM"
    static let timeMarkArchiveLabel = "TM-A"

    /// A time-mark counts as LT for `minimumProfile`: its OCSP stands in for the time-stamp, and
    /// its archive time-stamps are not validated (they make it INVALID), so it never reaches LTA.
    private func checkTimeMark(
        properties: XMLElement, qualifying: XMLElement?, signatureValue: XMLElement?, certificate: Certificate?,
        helpers: [Certificate], findings: inout FindingList
    ) -> Outcome {
        let archives = properties.children("ArchiveTimeStamp", in: XMLNamespace.xades141)
        var outcome = Outcome(
            profile: .LT, profileLabel: archives.isEmpty ? Self.timeMarkLabel : Self.timeMarkArchiveLabel,
            signatureTime: nil, timeStampTime: nil, isTimeMark: true)
        if outcome.profile < options.minimumProfile {
            findings.invalid(
                "profile-too-low",
                "a time-mark signature counts as LT; at least \(options.minimumProfile.rawValue) is required")
        }
        let timeMark = TimeMarkValidator(options: options).check(
            qualifying: qualifying, properties: properties, signatureValue: signatureValue,
            certificate: certificate, helpers: helpers, findings: &findings)
        outcome.timeStampTime = timeMark.producedAt.map(XSDDateTime.format)
        // The time-mark's producedAt is the signing time at which the signer is judged, as a
        // time-stamp's genTime is, but only when its response said good.
        if timeMark.good { outcome.signatureTime = timeMark.producedAt }
        if !archives.isEmpty {
            // SiVa's policy accepts a BDOC 2.1 time-mark only as a plain BASELINE_LT_TM, never
            // extended to LTA; the reference (libdigidocpp) ignores the archive time-stamps and
            // says OK. A verdict another mainstream validator does not share is not VALID here.
            findings.invalid(
                "time-mark-archive-timestamp", Self.timeMarkPolicyOnArchive(archives.count, onTimeMark: true))
        }
        return outcome
    }

    // swiftlint:disable:next function_body_length
    func check(
        signature: XMLElement, in document: XMLDocument, signedInfo: XMLElement?, signatureValue: XMLElement?,
        qualifying: XMLElement?, certificate: Certificate?, helpers: [Certificate], archiveInputReadable: Bool = true,
        findings: inout FindingList
    ) -> Outcome {
        let properties = qualifying?.child("UnsignedProperties", in: XMLNamespace.xades)?
            .child("UnsignedSignatureProperties", in: XMLNamespace.xades)
        var outcome = Outcome(
            profile: SignatureProfile.detect(qualifying), profileLabel: "", signatureTime: nil, timeStampTime: nil)
        outcome.profileLabel = outcome.profile.rawValue
        let timeStamps = properties?.children("SignatureTimeStamp", in: XMLNamespace.xades) ?? []
        let revocationValues = properties?.children("RevocationValues", in: XMLNamespace.xades) ?? []

        // BDOC 2.1 time-mark: OCSP without a time-stamp.
        if let properties, timeStamps.isEmpty, !revocationValues.isEmpty {
            return checkTimeMark(
                properties: properties, qualifying: qualifying, signatureValue: signatureValue,
                certificate: certificate, helpers: helpers, findings: &findings)
        }
        if outcome.profile < options.minimumProfile {
            let what = outcome.profile == .B ? "no signature time-stamp" : "no revocation values (OCSP)"
            findings.invalid(
                "profile-too-low",
                "\(outcome.profile.withArticle)-level signature (\(what)); at least \(options.minimumProfile.rawValue) is required"
            )
        }

        // --- T: the signature time-stamp.
        var genTime: Date? = nil
        if timeStamps.count > 1 {
            findings.invalid("timestamp-count", "more than one SignatureTimeStamp is not supported")
        } else if let element = timeStamps.first, let signatureValue {
            genTime = checkTimeStamp(
                element, covering: .canonical(signatureValue, document), code: "signature-timestamp",
                findings: &findings)
            if let genTime {
                outcome.signatureTime = genTime
                outcome.timeStampTime = XSDDateTime.format(genTime)
            }
        }

        // --- LT: OCSP for the signer, under the issuer's key.
        if let certificate, outcome.profile >= .LT {
            if revocationValues.count != 1 {
                findings.invalid(
                    "revocation-values", "exactly one RevocationValues is required, found \(revocationValues.count)")
            } else {
                checkOCSP(
                    revocationValues[0], certificate: certificate, helpers: helpers, genTime: genTime,
                    findings: &findings)
            }
        }

        // --- LTA: each archive time-stamp over what precedes it.
        if let properties, outcome.profile >= .LTA, TimeMarkValidator.claimsTimeMarkPolicy(qualifying) {
            findings.invalid(
                "time-mark-archive-timestamp",
                Self.timeMarkPolicyOnArchive(
                    properties.children("ArchiveTimeStamp", in: XMLNamespace.xades141).count, onTimeMark: false))
        }
        if let properties, outcome.profile >= .LTA {
            var previous = genTime
            let archives = properties.children("ArchiveTimeStamp", in: XMLNamespace.xades141)
            // A renewal every few years gives a handful; thousands are an attack on the verifier.
            guard archives.count <= Self.maximumArchiveTimeStamps else {
                findings.invalid(
                    "too-many-timestamps",
                    "\(archives.count) archive time-stamps (at most \(Self.maximumArchiveTimeStamps) are read)")
                return outcome
            }
            // The references were refused unread; their targets are what an archive time-stamp
            // covers first, so reading them here would undo that bound.
            guard archiveInputReadable else {
                findings.invalid(
                    "archive-timestamp",
                    "the archive time-stamps were not checked: the signature's references were refused")
                return outcome
            }
            var progress: [ArchiveTimeStampInput.Progress] = []
            for archive in archives {
                let said = findings.items.count
                let time = checkTimeStamp(
                    archive, covering: .archive(signature, document, archive), code: "archive-timestamp",
                    findings: &findings, archiveProgress: &progress)
                if let time, let earlier = previous, time < earlier {
                    findings.invalid(
                        "archive-timestamp",
                        "an archive time-stamp (\(XSDDateTime.format(time))) is older than the evidence it covers")
                }
                previous = time ?? previous
                // Passed: it verified under a trusted TSA and nothing was said against it.
                outcome.archiveVerdicts.append(
                    time != nil && findings.items[said...].allSatisfy { !$0.code.hasPrefix("archive-timestamp") })
            }
        }
        return outcome
    }

    /// What a time-stamp covers.
    enum Covered {
        /// One element, canonicalized (the SignatureValue for a signature time-stamp).
        case canonical(XMLElement, XMLDocument)
        /// The archive input up to this ArchiveTimeStamp (signature, document, the time-stamp).
        case archive(XMLElement, XMLDocument, XMLElement)
    }

    /// Verifies one time-stamp element (`SignatureTimeStamp` or `ArchiveTimeStamp`); returns
    /// its genTime when the token is intact and covers the right bytes.
    static let maximumArchiveTimeStamps = 100
    /// OCSP responses read per signature. A signature carries one for its signer, a few more
    /// where a tool adds them for time-stamp chains; each costs a parse and a signature check,
    /// and 2,000 copies made one signature's report a 60 KB line.
    static let maximumOCSPResponses = 32

    /// Refuses `values` past `maximumOCSPResponses` (before any is parsed); true when within it.
    static func ocspCountWithinBound(_ values: [XMLElement], findings: inout FindingList) -> Bool {
        guard values.count > maximumOCSPResponses else { return true }
        findings.invalid(
            "too-many-ocsp-responses",
            "\(values.count) OCSP responses in RevocationValues (at most \(maximumOCSPResponses) are read)")
        return false
    }

    /// "2 × an unreadable response; a response about another certificate": each distinct
    /// reason once, with its count, in the order first seen.
    static func summarize(_ reasons: [String]) -> String {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for reason in reasons {
            if counts[reason] == nil { order.append(reason) }
            counts[reason, default: 0] += 1
        }
        return order.map { reason in counts[reason].map { $0 > 1 ? "\($0) × \(reason)" : reason } ?? reason }.joined(
            separator: "; ")
    }

    private func checkTimeStamp(
        _ element: XMLElement, covering covered: Covered, code: String, findings: inout FindingList
    ) -> Date? {
        var unused: [ArchiveTimeStampInput.Progress] = []
        return checkTimeStamp(element, covering: covered, code: code, findings: &findings, archiveProgress: &unused)
    }

    /// - Parameter archiveProgress: what the signature's earlier archive time-stamps already hashed.
    private func checkTimeStamp(
        _ element: XMLElement, covering covered: Covered, code: String, findings: inout FindingList,
        archiveProgress: inout [ArchiveTimeStampInput.Progress]
    ) -> Date? {
        let encapsulated = element.children("EncapsulatedTimeStamp", in: XMLNamespace.xades)
        guard encapsulated.count == 1, let der = XMLBase64.decode(encapsulated[0].text),
            let token = try? TimeStampToken(der: der)
        else {
            findings.invalid(code, "\(element.localName) must hold exactly one readable EncapsulatedTimeStamp")
            return nil
        }
        // Without a CanonicalizationMethod the reference uses C14N 1.0.
        let methodURI = element.child("CanonicalizationMethod", in: XMLNamespace.ds)?.attribute("Algorithm")
        guard let method = methodURI.map(Canonicalization.init(rawValue:)) ?? .c14n10 else {
            findings.invalid(code, "\(element.localName) names an unknown canonicalization \(methodURI ?? "")")
            return nil
        }
        guard let algorithm = token.imprintAlgorithm else {
            findings.invalid(code, "\(element.localName): the token's imprint hash is unknown")
            return nil
        }
        let imprint: Digest
        do {
            switch covered {
            case .archive(let signature, let document, let stop):
                // Streamed over the data files with the token's own imprint hash.
                imprint = try ArchiveTimeStampInput.digest(
                    signature: signature, in: document, container: container,
                    method: method, algorithm: algorithm, before: stop, cache: &archiveProgress)
            case .canonical(let target, let document):
                imprint = Digest.compute(algorithm, over: try document.canonicalize(target, method))
            }
        } catch ContainerError.contentNotGiven {
            // Hashcode validation: the data files' bytes, which the archive time-stamp covers, are
            // not here. The signature's own evidence (time-stamp, OCSP) is judged as always.
            findings.warning(
                "\(code)-not-checked",
                "\(element.localName) covers the data files' content, which was given only by digest: it was not checked"
            )
            return nil
        } catch {
            findings.invalid(code, "\(element.localName): \(error)")
            return nil
        }
        let trust = TrustStore(
            anchors: options.anchors(for: .timeStamping, at: token.genTime), intermediates: options.trust.intermediates)
        switch token.verify(imprint: imprint, trust: trust) {
        case .valid:
            if algorithm.isWeak { findings.warning("weak-digest", "\(element.localName) uses \(algorithm)") }
            return token.genTime
        case .untrusted(let why):
            findings.add(
                "\(code)-untrusted", .unknown,
                "\(element.localName): the TSA is not trusted at \(XSDDateTime.format(token.genTime)) (\(why))")
            return token.genTime
        case .invalid(let why):
            findings.invalid(code, "\(element.localName) does not verify: \(why)")
            return nil
        }
    }

    private func checkOCSP(
        _ revocationValues: XMLElement, certificate: Certificate, helpers: [Certificate], genTime: Date?,
        findings: inout FindingList
    ) {
        let values = revocationValues.children("OCSPValues", in: XMLNamespace.xades)
            .flatMap { $0.children("EncapsulatedOCSPValue", in: XMLNamespace.xades) }
        guard !values.isEmpty else {
            findings.invalid("ocsp-missing", "RevocationValues holds no OCSP response")
            return
        }
        guard Self.ocspCountWithinBound(values, findings: &findings) else { return }
        let pool = helpers + options.issuerCandidates
        guard let issuer = pool.first(where: { $0.isIssuer(of: certificate) }) else {
            findings.add(
                "issuer-missing", .unknown,
                "the signer's issuing CA certificate is neither in the signature, nor given (--certs), nor a CA of the trusted list"
            )
            return
        }
        // Every response is judged, not just the first: a good and a revoked answer for the
        // signer in one signature must not be VALID or INVALID depending on their order.
        var reasons: [String] = []
        var verified: [(producedAt: Date, status: OCSPResponse.CertificateStatus)] = []
        var firstFailure: (untrusted: Bool, message: String)?
        for value in values {
            guard let der = XMLBase64.decode(value.text), let response = try? OCSPResponse(der: der),
                response.isSuccessful,
                let producedAt = response.producedAt
            else {
                reasons.append("an unreadable or unsuccessful OCSP response")
                continue
            }
            guard let status = response.status(of: certificate, issuer: issuer) else {
                reasons.append("an OCSP response about another certificate")
                continue
            }
            let anchors = options.anchors(for: .ocsp, at: producedAt)
            if let why = response.verifySignature(
                anchors: anchors, intermediates: helpers + options.trust.intermediates,
                at: producedAt, byListing: options.responderTrustedByListing)
            {
                let untrusted =
                    why.contains("certificate verify error") || why.contains("unable to get")
                    || why.contains("not trusted")
                    || anchors.isEmpty
                if firstFailure == nil {
                    firstFailure =
                        untrusted
                        ? (true, "the OCSP responder is not trusted at \(XSDDateTime.format(producedAt)) (\(why))")
                        : (false, "the OCSP response does not verify: \(why)")
                }
                continue
            }
            verified.append((producedAt, status))
        }
        guard !verified.isEmpty else {
            if let failure = firstFailure {
                if failure.untrusted {
                    findings.add("ocsp-responder-untrusted", .unknown, failure.message)
                } else {
                    findings.invalid("ocsp-signature", failure.message)
                }
            } else {
                findings.invalid("ocsp-missing", "no usable OCSP response: \(Self.summarize(reasons))")
            }
            return
        }
        // The time that counts is the signature time-stamp's genTime: a certificate revoked
        // after it was valid when the signature was made (EN 319 102-1 judges revocation at
        // the time the signature is proven to exist). The reference makes any revoked answer
        // INVALID (docs/design/asics-tm-names.md §2, step 6); tamga does so only for a revocation at or
        // before genTime, or when there is no genTime or no revocationTime to compare.
        func revokedByTimeThatCounts(_ status: OCSPResponse.CertificateStatus) -> Bool {
            guard let genTime, let revocationTime = status.revocationTime else { return true }
            return revocationTime <= genTime
        }
        let revoked = verified.filter { $0.status.kind == .revoked && revokedByTimeThatCounts($0.status) }
        let revokedLater = verified.filter { $0.status.kind == .revoked && !revokedByTimeThatCounts($0.status) }
        let good = verified.filter { $0.status.kind == .good }
        if let first = revoked.first {
            findings.invalid(
                "certificate-revoked",
                "an OCSP response says the signer's certificate was revoked"
                    + (first.status.revocationTime.map { " on \(XSDDateTime.format($0))" } ?? "")
                    + (genTime.map { ", at or before the signature time-stamp (\(XSDDateTime.format($0)))" } ?? ""))
            if let answer = good.first {
                findings.invalid(
                    "conflicting-revocation",
                    "the signature carries conflicting OCSP responses for the signer: good (produced \(XSDDateTime.format(answer.producedAt))) and revoked (produced \(XSDDateTime.format(first.producedAt))); revoked decides"
                )
            }
            return
        }
        if let later = revokedLater.first, let revocationTime = later.status.revocationTime, let genTime {
            findings.warning(
                "certificate-revoked-after-signing",
                "the signer's certificate was revoked on \(XSDDateTime.format(revocationTime)), after the signature time-stamp (\(XSDDateTime.format(genTime))): the signature was made while it was valid (DigiDoc reports any revoked answer as INVALID)"
            )
        }
        guard let answer = good.first ?? revokedLater.first else {
            findings.invalid("ocsp-status-unknown", "the OCSP responder does not know the signer's certificate")
            return
        }
        if let genTime {
            let producedAt = answer.producedAt
            if producedAt < genTime {
                findings.invalid(
                    "ocsp-before-timestamp",
                    "the OCSP response (\(XSDDateTime.format(producedAt))) was produced before the time-stamp (\(XSDDateTime.format(genTime)))"
                )
            } else if producedAt.timeIntervalSince(genTime) > Self.revocationFreshness {
                // SiVa's policy (and DigiDoc4j's): revocation data a day after the signature
                // time-stamp no longer shows that the certificate was good when it signed.
                let hours = producedAt.timeIntervalSince(genTime) / 3600
                findings.invalid(
                    "revocation-not-fresh",
                    "the OCSP response (\(XSDDateTime.format(producedAt))) was produced \(hours < 48 ? "\(Int(hours)) hours" : "\(Int(hours / 24)) days") after the signature time-stamp (\(XSDDateTime.format(genTime))), more than the 24 hours within which it shows the certificate's status at signing"
                )
            } else if producedAt.timeIntervalSince(genTime) > 15 * 60 {
                findings.warning(
                    "ocsp-produced-late",
                    "the OCSP response was produced \(Int(producedAt.timeIntervalSince(genTime) / 60)) minutes after the time-stamp"
                )
            }
        }
    }
}
