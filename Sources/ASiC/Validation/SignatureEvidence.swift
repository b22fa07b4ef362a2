import FoundationEssentials
import TamgaCore

/// The evidence a signature carries, as a validation report lists it for a reader who wants to
/// see it (SiVa's `certificates`, `timeAssertionMessageImprint`, `ocspResponseCreationTime` and
/// `archiveTimestamps`): the certificates that signed each part, with the signer's issuer, and
/// the time-stamps' and OCSP's own facts. Gathered only when `ValidationOptions.collectEvidence`
/// asks (the validation service does; `verify` does not print it), after the checks, from the
/// same elements they read: nothing here decides a verdict.
public struct SignatureEvidence: Sendable, Codable, Equatable {
    public struct ReportedCertificate: Sendable, Codable, Equatable {
        /// SIGNING, SIGNATURE_TIMESTAMP, REVOCATION, ARCHIVE_TIMESTAMP or CONTENT_TIMESTAMP (SiVa's words).
        public let type: String
        public let commonName: String
        public let der: Data
        /// The issuer's certificate, for the signer's: found among the signature's own
        /// certificates, the given ones and the trusted list's CAs.
        public var issuer: Issuer? = nil

        public struct Issuer: Sendable, Codable, Equatable {
            public let commonName: String
            public let der: Data
        }
    }

    /// One archive time-stamp: when, by whom, whether it verified, and the token itself.
    public struct ArchiveTimeStamp: Sendable, Codable, Equatable {
        public let genTime: Date
        public let signedBy: String
        /// The TSA certificate's country (C), "" when it has none.
        public let country: String
        public let passed: Bool
        public let token: Data
    }

    public var certificates: [ReportedCertificate] = []
    /// The signature time-stamp's MessageImprint (DER), or a time-mark's OCSP nonce extension value.
    public var timeAssertionMessageImprint: Data? = nil
    /// producedAt of the OCSP response about the signer.
    public var ocspProducedAt: Date? = nil
    public var archiveTimeStamps: [ArchiveTimeStamp] = []
    /// An ASiC-S token's legal level (SiVa's `timestampLevel`): QTSA when a trusted list's
    /// qualified time-stamping service (the only kind tamga reads from a list) vouched for it,
    /// N/A otherwise (PEM anchors, or a token that did not verify).
    public var timestampLevel: String? = nil
    /// The claimed place of signing by part (`City`, `StateOrProvince`, `PostalCode`,
    /// `CountryName`, `StreetAddress`): a claim, listed as the signer wrote it.
    public var productionPlace: [String: String] = [:]

    public init() {}

    /// The name a report gives a certificate: its CN, else its whole subject.
    static func name(_ certificate: Certificate) -> String {
        certificate.commonName ?? certificate.subject
    }

    static func reported(_ certificate: Certificate, _ type: String) -> ReportedCertificate {
        ReportedCertificate(type: type, commonName: name(certificate), der: certificate.der)
    }

    /// The certificate that signed a time-stamp token: the one end-entity certificate it
    /// carries (a TSA's), else its first.
    static func signer(of token: TimeStampToken) -> Certificate? {
        let carried = token.certificates
        return carried.first { !$0.isCA } ?? carried.first
    }

    /// DER of a MessageImprint (RFC 3161): the digest algorithm, with NULL parameters as TSAs
    /// write them, and the digest.
    static func messageImprint(_ token: TimeStampToken) -> Data? {
        // A MessageImprint is a DigestInfo: the algorithm with NULL parameters, then the hash
        // (as long as the token has it, which need not be the algorithm's length).
        guard let algorithm = token.imprintAlgorithm, token.imprint.count < 128 else { return nil }
        let identifier = algorithm.algorithmIdentifierDER
        let header = [0x30, UInt8(identifier.count + 2 + token.imprint.count)] + identifier
        return Data(header + [0x04, UInt8(token.imprint.count)]) + token.imprint
    }

    /// What one XAdES signature carries: its signer (with the issuer found in `pool`), the
    /// signature time-stamps, the OCSP responses, the archive time-stamps (with whether each
    /// verified, from `archiveVerdicts`, in document order).
    static func collect(
        signer: Certificate?, qualifying: XMLElement?, pool: [Certificate], archiveVerdicts: [Bool]
    ) -> SignatureEvidence {
        var evidence = SignatureEvidence()
        if let signer {
            var signing = reported(signer, "SIGNING")
            if let issuer = pool.first(where: { $0 != signer && $0.isIssuer(of: signer) }) {
                signing.issuer = .init(commonName: name(issuer), der: issuer.der)
            }
            evidence.certificates.append(signing)
        }
        let properties = qualifying?.child("UnsignedProperties", in: XMLNamespace.xades)?
            .child("UnsignedSignatureProperties", in: XMLNamespace.xades)
        guard let properties else { return evidence }
        for element in properties.children("SignatureTimeStamp", in: XMLNamespace.xades).prefix(1) {
            guard let token = token(in: element) else { continue }
            evidence.timeAssertionMessageImprint = messageImprint(token)
            if let tsa = Self.signer(of: token) { evidence.certificates.append(reported(tsa, "SIGNATURE_TIMESTAMP")) }
        }
        var responders: [Certificate] = []
        for values in properties.children("RevocationValues", in: XMLNamespace.xades).prefix(1) {
            let encoded =
                values.child("OCSPValues", in: XMLNamespace.xades)?.children(
                    "EncapsulatedOCSPValue", in: XMLNamespace.xades) ?? []
            for value in encoded.prefix(LongTermValidator.maximumOCSPResponses) {
                guard let der = XMLBase64.decode(value.text), let response = try? OCSPResponse(der: der),
                    response.isSuccessful
                else { continue }
                if evidence.ocspProducedAt == nil { evidence.ocspProducedAt = response.producedAt }
                // A time-mark has no time-stamp: its OCSP nonce is the time assertion.
                if evidence.timeAssertionMessageImprint == nil,
                    properties.children("SignatureTimeStamp", in: XMLNamespace.xades).isEmpty,
                    let nonce = response.nonceExtensionValue
                {
                    evidence.timeAssertionMessageImprint = nonce
                }
                if let responder = response.signerCertificate(among: pool) ?? response.responderCertificates.first,
                    !responders.contains(responder)
                {
                    responders.append(responder)
                    evidence.certificates.append(reported(responder, "REVOCATION"))
                }
            }
        }
        let archives = properties.children("ArchiveTimeStamp", in: XMLNamespace.xades141).prefix(
            LongTermValidator.maximumArchiveTimeStamps)
        for (index, element) in archives.enumerated() {
            guard let token = token(in: element),
                let encoded = element.children("EncapsulatedTimeStamp", in: XMLNamespace.xades).first,
                let der = XMLBase64.decode(encoded.text)
            else { continue }
            let tsa = Self.signer(of: token)
            if let tsa { evidence.certificates.append(reported(tsa, "ARCHIVE_TIMESTAMP")) }
            let country = tsa.flatMap { try? DistinguishedName(rfc4514: $0.subject) }?.firstValue(oid: "2.5.4.6") ?? ""
            evidence.archiveTimeStamps.append(
                .init(
                    genTime: token.genTime, signedBy: tsa.map(name) ?? "", country: country,
                    passed: index < archiveVerdicts.count && archiveVerdicts[index], token: der))
        }
        return evidence
    }

    private static func token(in element: XMLElement) -> TimeStampToken? {
        let encapsulated = element.children("EncapsulatedTimeStamp", in: XMLNamespace.xades)
        guard encapsulated.count == 1, let der = XMLBase64.decode(encapsulated[0].text) else { return nil }
        return try? TimeStampToken(der: der)
    }
}
