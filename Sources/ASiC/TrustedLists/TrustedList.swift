import Foundation
import TamgaCore

/// An ETSI TS 119 612 national trusted list, read offline: its signature is checked against a
/// pinned certificate *before* its content is used, it must not be past NextUpdate, and it
/// yields, for any time, the certificates of the CA/QC, OCSP/QC and TSA/QTST services that
/// were in a granted state then, with their qualifiers (trust.md §4).
public struct TrustedList: Sendable {
    public let territory: String
    public let sequenceNumber: Int
    public let issued: Date?
    public let nextUpdate: Date?
    let services: [TrustedService]

    static let namespace = "http://uri.etsi.org/02231/v2#"
    static let eccNamespace = "http://uri.etsi.org/TrstSvc/SvcInfoExt/eSigDir-1999-93-EC-TrustedList/#"
    static let genericTypes: Set<String> = [
        "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUgeneric",
        "http://uri.etsi.org/TrstSvc/TSLType/generic",
        "http://uri.etsi.org/TrstSvc/eSigDir-1999-93-EC-TrustedList/TSLType/generic",
    ]

    /// Reads and checks a list.
    /// - Parameters:
    ///   - signers: the certificates allowed to sign it (pinned by the operator, `--tsl-cert`).
    ///   - now: the time against NextUpdate.
    public init(data: Data, signers: [Certificate], now: Date = Date()) throws {
        let document = try XMLDocument(data: data, name: "trusted list", limits: .trustedList)
        guard let root = document.root, root.is("TrustServiceStatusList", in: Self.namespace) else {
            throw TrustedListError.malformed("the root element is not TrustServiceStatusList")
        }
        try TrustedListSignature.verify(root: root, document: document, signers: signers)
        guard let scheme = root.child("SchemeInformation", in: Self.namespace) else {
            throw TrustedListError.malformed("no SchemeInformation")
        }
        func text(_ name: String) -> String? { scheme.child(name, in: Self.namespace)?.text.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard let type = text("TSLType"), Self.genericTypes.contains(type) else {
            throw TrustedListError.unsupported("only national (generic) trusted lists are read, not \(text("TSLType") ?? "an untyped list")")
        }
        territory = text("SchemeTerritory") ?? "?"
        sequenceNumber = Int(text("TSLSequenceNumber") ?? "") ?? 0
        issued = text("ListIssueDateTime").flatMap(XAdESTime.parse)
        nextUpdate = scheme.child("NextUpdate", in: Self.namespace)?.child("dateTime", in: Self.namespace)
            .flatMap { XAdESTime.parse($0.text.trimmingCharacters(in: .whitespacesAndNewlines)) }
        if let nextUpdate, nextUpdate < now {
            throw TrustedListError.expired(nextUpdate)
        }
        var services: [TrustedService] = []
        for provider in root.child("TrustServiceProviderList", in: Self.namespace)?.children("TrustServiceProvider", in: Self.namespace) ?? [] {
            for service in provider.child("TSPServices", in: Self.namespace)?.children("TSPService", in: Self.namespace) ?? [] {
                if let parsed = TrustedService(service) { services.append(parsed) }
            }
        }
        self.services = services
    }

    /// Certificates of the services of `kinds` that were trusted at `time`.
    func certificates(of kinds: Set<TrustedService.Kind>, at time: Date) -> [Certificate] {
        services.filter { kinds.contains($0.kind) && $0.isTrusted(at: time) }.flatMap(\.certificates)
    }

    /// The qualifiers that the CA/QC service which issued `certificate` applied to it at `time`.
    func qualifiers(for certificate: Certificate, issuedBy issuer: Certificate?, at time: Date) -> Set<String> {
        guard let service = services.first(where: { service in
            service.kind == .certificateAuthority && service.isTrusted(at: time)
                && service.certificates.contains(where: { $0 == issuer || $0.isIssuer(of: certificate) })
        }) else { return [] }
        return service.qualifiers(at: time, for: certificate)
    }
}

/// Why a trusted list cannot be used.
public enum TrustedListError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case unsupported(String)
    case signatureInvalid(String)
    case untrustedSigner
    case expired(Date)

    public var code: String {
        switch self {
        case .malformed: "tsl-malformed"
        case .unsupported: "tsl-unsupported"
        case .signatureInvalid: "tsl-signature-invalid"
        case .untrustedSigner: "tsl-signer-not-pinned"
        case .expired: "tsl-expired"
        }
    }

    public var description: String {
        switch self {
        case .malformed(let why): "The trusted list cannot be read: \(why)."
        case .unsupported(let why): "The trusted list is not usable: \(why)."
        case .signatureInvalid(let why): "The trusted list's signature does not verify (\(why)); it was not used."
        case .untrustedSigner: "The trusted list is not signed by the pinned certificate (--tsl-cert); it was not used."
        case .expired(let date): "The trusted list expired (NextUpdate \(XSDDateTime.format(date))); get a current one."
        }
    }
}
