import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// Judges a BDOC 2.1 time-mark (TM): a signature whose only long-term evidence is an OCSP
/// response asked for at signing time, with a nonce that binds it to the SignatureValue
/// (docs/design/asics-tm-names.md §2, docs/design/asice.md §1.5). The checks follow the reference's order:
///
/// 1. the BDOC 2.1 signature policy (`urn:oid:1.3.6.1.4.1.10015.1000.3.2.1` or `…3.2.3`, read
///    only with `Qualifier="OIDAsURN"`) and a non-empty SPURI; SigPolicyHash is not checked,
///    as in the reference (tamga has no policy document to hash either);
/// 2. one RevocationValues; each EncapsulatedOCSPValue in order until one verifies (responder
///    trusted at producedAt, about the signer, status good): that one is used, the rest ignored;
/// 3. the responder certificate of the used response carries an accepted TM policy OID;
/// 4. its nonce is DER `DigestInfo(hash(decoded SignatureValue))`, raw or wrapped in an OCTET
///    STRING, with SHA-1/224/256/384/512.
///
/// The signer's chain is not judged here: SignatureValidator judges it at the certificate's
/// notBefore and again at this response's producedAt (DigiDoc only at notBefore).
struct TimeMarkValidator {
    let options: ValidationOptions

    static let policies: Set<String> = ["urn:oid:1.3.6.1.4.1.10015.1000.3.2.1", "urn:oid:1.3.6.1.4.1.10015.1000.3.2.3"]
    static let nonceWrapTag: UInt8 = 0x04

    /// Runs every check; returns producedAt of the response used (the time-mark's time), else of
    /// the first readable one, for the report only.
    func check(
        qualifying: XMLElement?, properties: XMLElement, signatureValue: XMLElement?, certificate: Certificate?,
        helpers: [Certificate], findings: inout FindingList
    ) -> (producedAt: Date?, good: Bool) {
        let signedSignatureProperties = qualifying?.child("SignedProperties", in: XMLNamespace.xades)?
            .child("SignedSignatureProperties", in: XMLNamespace.xades)
        checkPolicy(signedSignatureProperties, findings: &findings)

        let revocationValues = properties.children("RevocationValues", in: XMLNamespace.xades)
        guard revocationValues.count == 1 else {
            findings.invalid(
                "revocation-values", "exactly one RevocationValues is required, found \(revocationValues.count)")
            return (nil, false)
        }
        let values = revocationValues[0].children("OCSPValues", in: XMLNamespace.xades)
            .flatMap { $0.children("EncapsulatedOCSPValue", in: XMLNamespace.xades) }
        guard !values.isEmpty else {
            findings.invalid("ocsp-missing", "RevocationValues holds no OCSP response")
            return (nil, false)
        }
        guard LongTermValidator.ocspCountWithinBound(values, findings: &findings) else { return (nil, false) }
        guard let certificate else { return (nil, false) }  // KeyInfo already reported
        let pool = helpers + options.issuerCandidates
        guard let issuer = pool.first(where: { $0.isIssuer(of: certificate) }) else {
            findings.add(
                "issuer-missing", .unknown,
                "the signer's issuing CA certificate is neither in the signature, nor given (--certs), nor a CA of the trusted list"
            )
            return (nil, false)
        }

        var rejections = FindingList()
        var firstProducedAt: Date? = nil
        for (index, value) in values.enumerated() {
            let label = values.count > 1 ? "OCSP response \(index + 1) of \(values.count)" : "the OCSP response"
            guard let der = XMLBase64.decode(value.text), let response = try? OCSPResponse(der: der),
                response.isSuccessful,
                let producedAt = response.producedAt
            else {
                rejections.invalid("ocsp-unreadable", "\(label) is unreadable or not a successful basic response")
                continue
            }
            firstProducedAt = firstProducedAt ?? producedAt
            let anchors = options.anchors(for: .ocsp, at: producedAt)
            // Certificate-less responses (SK's 2013 ones) are signed by a listed or given responder.
            let candidates = helpers + options.trust.intermediates + anchors
            if let why = response.verifySignature(
                anchors: anchors, intermediates: candidates, at: producedAt,
                byListing: options.responderTrustedByListing)
            {
                let untrusted =
                    why.contains("certificate verify error") || why.contains("unable to get")
                    || why.contains("not trusted")
                    || anchors.isEmpty
                if untrusted {
                    rejections.add(
                        "ocsp-responder-untrusted", .unknown,
                        "\(label): the responder is not trusted at \(XSDDateTime.format(producedAt)) (\(why))")
                } else {
                    rejections.invalid("ocsp-signature", "\(label) does not verify: \(why)")
                }
                continue
            }
            guard let status = response.status(of: certificate, issuer: issuer) else {
                // As in the reference: no answer about the signer is an unknown status.
                rejections.add(
                    "ocsp-other-certificate", .unknown, "\(label) is about another certificate, not the signer's")
                continue
            }
            switch status.kind {
            case .good:
                checkResponder(
                    of: response, candidates: candidates, label: label, signatureValue: signatureValue,
                    findings: &findings)
                return (producedAt, true)
            case .revoked:
                rejections.invalid(
                    "certificate-revoked",
                    "\(label) says the signer's certificate was revoked"
                        + (status.revocationTime.map { " on \(XSDDateTime.format($0))" } ?? ""))
            case .unknown:
                rejections.add(
                    "ocsp-status-unknown", .unknown, "\(label): the responder does not know the signer's certificate")
            }
        }
        // No response verified: every reason counts, as the reference reports them all.
        for rejection in rejections.items { findings.add(rejection.code, rejection.severity, rejection.message) }
        return (firstProducedAt, false)
    }

    /// The signature policy identifier as the reference reads it (only with
    /// `Qualifier="OIDAsURN"`; leading whitespace dropped, trailing kept), or "".
    static func policyIdentifier(_ signedSignatureProperties: XMLElement?) -> (element: XMLElement?, value: String) {
        let policy = signedSignatureProperties?.child("SignaturePolicyIdentifier", in: XMLNamespace.xades)?
            .child("SignaturePolicyId", in: XMLNamespace.xades)
        let identifier = policy?.child("SigPolicyId", in: XMLNamespace.xades)?.child(
            "Identifier", in: XMLNamespace.xades)
        let value =
            identifier?.attribute("Qualifier") == "OIDAsURN"
            ? String(identifier?.text.drop(while: \.isWhitespace) ?? "") : ""
        return (identifier, value)
    }

    /// Whether the signature claims the BDOC 2.1 time-mark policy.
    static func claimsTimeMarkPolicy(_ qualifying: XMLElement?) -> Bool {
        let properties = qualifying?.child("SignedProperties", in: XMLNamespace.xades)?
            .child("SignedSignatureProperties", in: XMLNamespace.xades)
        return policies.contains(policyIdentifier(properties).value)
    }

    /// The BDOC 2.1 policy identifier and SPURI; both are reported when both are wrong.
    private func checkPolicy(_ properties: XMLElement?, findings: inout FindingList) {
        let policy = properties?.child("SignaturePolicyIdentifier", in: XMLNamespace.xades)?
            .child("SignaturePolicyId", in: XMLNamespace.xades)
        let (identifier, value) = Self.policyIdentifier(properties)
        let spuri =
            policy?.child("SigPolicyQualifiers", in: XMLNamespace.xades)?
            .children("SigPolicyQualifier", in: XMLNamespace.xades)
            .lazy.compactMap { $0.child("SPURI", in: XMLNamespace.xades) }.first
            .map { String($0.text.drop(while: \.isWhitespace)) } ?? ""
        if spuri.isEmpty {
            findings.invalid("time-mark-policy-spuri", "the time-mark's signature policy has no SPURI")
        }
        if !Self.policies.contains(value) {
            let found =
                identifier == nil
                ? "none"
                : identifier?.attribute("Qualifier") == "OIDAsURN"
                    ? "'\(value)'" : "an Identifier without Qualifier=\"OIDAsURN\""
            findings.invalid(
                "time-mark-policy",
                "a time-mark needs the BDOC 2.1 signature policy (urn:oid:1.3.6.1.4.1.10015.1000.3.2.1 or …3.2.3); found \(found)"
            )
        }
    }

    /// The responder's TM policy and, only when it has one, the nonce (the reference's order).
    private func checkResponder(
        of response: OCSPResponse, candidates: [Certificate], label: String, signatureValue: XMLElement?,
        findings: inout FindingList
    ) {
        let responder = response.signerCertificate(among: candidates)
        let policies = responder?.policies ?? []
        guard !options.timeMarkResponderPolicies.isDisjoint(with: policies) else {
            let accepted = options.timeMarkResponderPolicies.sorted().joined(separator: ", ")
            findings.invalid(
                "time-mark-responder-policy",
                "\(label): the responder \(responder?.subject ?? "(certificate not found)") is not a time-mark responder: its certificate policies ("
                    + (policies.isEmpty ? "none" : policies.joined(separator: ", "))
                    + ") hold none of \(accepted) (see --tm-responder-policy)")
            return
        }
        guard var nonce = response.nonceExtensionValue else {
            findings.invalid("time-mark-nonce-missing", "\(label) has no nonce, so nothing binds it to this signature")
            return
        }
        // OpenSSL writes the nonce wrapped once more in an OCTET STRING; SK's 2013 responders did not.
        if nonce.count >= 2, nonce[nonce.startIndex] == Self.nonceWrapTag,
            Int(nonce[nonce.startIndex + 1]) == nonce.count - 2
        {
            nonce = nonce.dropFirst(2)
        }
        guard let info = try? DigestInfo(der: Data(nonce)), let algorithm = info.algorithm else {
            findings.invalid(
                "time-mark-nonce-missing",
                "\(label): the nonce is not a DigestInfo with SHA-1, SHA-224, SHA-256, SHA-384 or SHA-512 over the SignatureValue"
            )
            return
        }
        // reported with the SignatureValue
        guard let signatureValue, let value = XMLBase64.decode(signatureValue.text) else { return }
        if !ConstantTime.equal(Digest.compute(algorithm, over: value).bytes, info.digest) {
            findings.invalid(
                "time-mark-nonce-mismatch",
                "\(label): the nonce is not the \(algorithm) digest of this signature's SignatureValue, so the time-mark belongs to another signature"
            )
        }
    }
}
