import FoundationEssentials
import Glibc
import TamgaCore

extension Container {
    /// What `container ls` shows for a signature, read without verifying anything.
    public struct SignatureSummary: Sendable, Codable, Equatable {
        public let file: String
        public let id: String?
        public let signer: String?
        public let signingTime: String?
        /// The signer's claimed roles and place of signing (nil when absent).
        public var claimedRoles: [String]? = nil
        public var productionPlace: String? = nil
        /// The signer (for a time-stamp token, the TSA) as a person reads it: `GN SN, code`.
        public var signerName: String? = nil
    }

    /// Light summaries of the signatures (no checks: use `validate` for a verdict).
    public func signatureSummaries() -> [SignatureSummary] {
        (kind == .ddoc ? ddocSignatureSummaries() : xadesSignatureSummaries() + timeStampSummaries()).map { summary in
            var named = summary
            named.signerName = summary.signer.map(DistinguishedName.readableName(rfc4514:))
            return named
        }
    }

    /// ASiC-S: the token signature (id = TSTInfo serial, signer = the TSA, time = genTime).
    private func timeStampSummaries() -> [SignatureSummary] {
        guard let entry = timeStampEntry else { return [] }
        guard let reader, let bytes = try? reader.read(entry, limit: TimeStampSignatureValidator.tokenLimit),
            let token = try? TimeStampToken(der: bytes)
        else {
            return [SignatureSummary(file: entry.name, id: nil, signer: nil, signingTime: nil)]
        }
        let certificates = token.certificates
        let tsa = certificates.first { !$0.isCA } ?? certificates.first
        return [
            SignatureSummary(
                file: entry.name, id: token.serialNumber, signer: tsa?.subject,
                signingTime: XSDDateTime.format(token.genTime))
        ]
    }

    private func xadesSignatureSummaries() -> [SignatureSummary] {
        signatures.flatMap { file -> [SignatureSummary] in
            guard let document = try? XMLDocument(data: file.data, name: file.name), let root = document.root else {
                return [SignatureSummary(file: file.name, id: nil, signer: nil, signingTime: nil)]
            }
            return root.children("Signature", in: XMLNamespace.ds).map { signature in
                let der = signature.child("KeyInfo", in: XMLNamespace.ds)?.child("X509Data", in: XMLNamespace.ds)?
                    .child("X509Certificate", in: XMLNamespace.ds).flatMap { XMLBase64.decode($0.text) }
                var time: String? = nil
                signature.walk { if $0.is("SigningTime", in: XMLNamespace.xades) { time = $0.text } }
                let claims = ClaimedProperties(signature: signature)
                return SignatureSummary(
                    file: file.name, id: signature.attribute("Id"),
                    signer: der.flatMap { try? Certificate(der: $0) }?.subject, signingTime: time,
                    claimedRoles: claims.roles.isEmpty ? nil : claims.roles, productionPlace: claims.productionPlace)
            }
        }
    }
}
