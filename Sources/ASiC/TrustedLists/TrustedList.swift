import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// An ETSI TS 119 612 trusted list, read offline: its signature is checked against the
/// certificates allowed to sign it *before* its content is used, it must not be past NextUpdate
/// (unless the caller allows expired lists), and then it is one of two kinds (docs/design/trust.md §4):
///
/// - a national (generic) list yields, for any time, the certificates of the CA/QC, OCSP/QC and
///   TSA/QTST services that were in a granted state then, with their qualifiers;
/// - a list of lists (the EU LOTL) yields the pointers to the national lists, each with the
///   certificates allowed to sign that list. Its own services, if any, are ignored.
///
/// Parsing and the signature check happen once per process for the same bytes and signers
/// (`TrustedListMemo`): a verify that reads thirty cached lists pays for each once.
public struct TrustedList: Sendable {
    public enum Kind: String, Sendable, Codable { case national, listOfLists = "list-of-lists" }

    public let kind: Kind
    public let territory: String
    public let sequenceNumber: Int
    public let issued: Date?
    public let nextUpdate: Date?
    /// The pointers of a list of lists (empty for a national list), in document order, with
    /// the ones tamga follows already chosen (`TrustedListPointer.isFollowed`).
    public let pointers: [TrustedListPointer]
    /// `SchemeInformationURI` values: the EU LOTL names its pivot lists there.
    public let schemeInformationURIs: [String]
    let services: [TrustedService]

    static let namespace = "http://uri.etsi.org/02231/v2#"
    static let additionalTypesNamespace = "http://uri.etsi.org/02231/v2/additionaltypes#"
    static let eccNamespace = "http://uri.etsi.org/TrstSvc/SvcInfoExt/eSigDir-1999-93-EC-TrustedList/#"
    static let genericTypes: Set<String> = [
        "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUgeneric",
        "http://uri.etsi.org/TrstSvc/TSLType/generic",
        "http://uri.etsi.org/TrstSvc/eSigDir-1999-93-EC-TrustedList/TSLType/generic",
    ]
    static let listOfListsTypes: Set<String> = [
        "http://uri.etsi.org/TrstSvc/TrustedList/TSLType/EUlistofthelists",
        "http://uri.etsi.org/TrstSvc/TSLType/schemes",
    ]
    /// Larger documents are refused before libxml2 sees them. The biggest EU national lists are
    /// a few MB; 32 MiB leaves room without letting a hostile file cost much memory.
    public static let maximumSize = 32 << 20

    /// Reads and checks a list.
    /// - Parameters:
    ///   - signers: the certificates allowed to sign it (pinned by the operator, `--tsl-cert`,
    ///     the EU LOTL signers, or the certificates a LOTL pointer names).
    ///   - now: the time against NextUpdate.
    ///   - allowExpired: accept a list past its NextUpdate (validating archives offline);
    ///     `isExpired(at:)` still tells, so the caller can say so.
    public init(data: Data, signers: [Certificate], now: Date = Date(), allowExpired: Bool = false) throws {
        self = try TrustedListMemo.shared.list(data: data, signers: signers)
        if !allowExpired, isExpired(at: now) {
            throw TrustedListError.expired(territory: territory, nextUpdate: nextUpdate)
        }
    }

    /// Past NextUpdate, or without one (the reference counts an empty NextUpdate as expired).
    public func isExpired(at now: Date) -> Bool {
        guard let nextUpdate else { return true }
        return nextUpdate < now
    }

    /// Parses and checks the signature; no expiry check (the memo keeps the result).
    init(checking data: Data, signers: [Certificate]) throws {
        guard data.count <= Self.maximumSize else { throw TrustedListError.tooLarge(data.count) }
        let document: XMLDocument
        do {
            document = try XMLDocument(data: data, name: "trusted list", limits: .trustedList)
        } catch {
            throw TrustedListError.malformed("\(error)")  // one code for a list, whatever libxml2 says
        }
        guard let root = document.root, root.is("TrustServiceStatusList", in: Self.namespace) else {
            throw TrustedListError.malformed("the root element is not TrustServiceStatusList")
        }
        try TrustedListSignature.verify(root: root, document: document, signers: signers)
        guard let scheme = root.child("SchemeInformation", in: Self.namespace) else {
            throw TrustedListError.malformed("no SchemeInformation")
        }
        func text(_ name: String) -> String? { scheme.child(name, in: Self.namespace)?.text.trimmed() }
        let type = text("TSLType") ?? ""
        if Self.genericTypes.contains(type) {
            kind = .national
        } else if Self.listOfListsTypes.contains(type) {
            kind = .listOfLists
        } else {
            throw TrustedListError.unsupported(
                "the list type \(type.isEmpty ? "(none)" : type) is neither a national list nor a list of lists")
        }
        territory = text("SchemeTerritory") ?? "?"
        sequenceNumber = Int(text("TSLSequenceNumber") ?? "") ?? 0
        issued = text("ListIssueDateTime").flatMap(XSDDateTime.parse)
        nextUpdate = scheme.child("NextUpdate", in: Self.namespace)?.child("dateTime", in: Self.namespace)
            .flatMap { XSDDateTime.parse($0.text.trimmed()) }
        schemeInformationURIs =
            scheme.child("SchemeInformationURI", in: Self.namespace)?.children("URI", in: Self.namespace)
            .map { $0.text.trimmed() } ?? []
        if kind == .listOfLists {
            // Pointers only from a list of lists; its own services are ignored, as the reference does.
            pointers =
                scheme.child("PointersToOtherTSL", in: Self.namespace)?.children("OtherTSLPointer", in: Self.namespace)
                .map(TrustedListPointer.init) ?? []
            services = []
        } else {
            pointers = []
            var services: [TrustedService] = []
            for provider in root.child("TrustServiceProviderList", in: Self.namespace)?.children(
                "TrustServiceProvider", in: Self.namespace) ?? []
            {
                for service in provider.child("TSPServices", in: Self.namespace)?.children(
                    "TSPService", in: Self.namespace) ?? []
                {
                    if let parsed = TrustedService(service) { services.append(parsed) }
                }
            }
            self.services = services
        }
    }

    /// Several national lists as one: the union of their services (a LOTL's lists together).
    /// The territory reads `EE+LV`; sequence number and dates are those of the first list.
    public init?(union lists: [TrustedList]) {
        guard let first = lists.first else { return nil }
        kind = .national
        territory = lists.map(\.territory).joined(separator: "+")
        sequenceNumber = first.sequenceNumber
        issued = first.issued
        nextUpdate = lists.compactMap(\.nextUpdate).min()
        pointers = []
        schemeInformationURIs = []
        services = lists.flatMap(\.services)
    }

    /// How many services of each kind the list keeps (`ca`, `ocsp`, `tsa`).
    public var serviceCounts: [String: Int] {
        var counts = ["ca": 0, "ocsp": 0, "tsa": 0]
        for service in services { counts[service.kind.name, default: 0] += 1 }
        return counts
    }

    /// Certificates of the services of `kinds` that were trusted at `time`.
    func certificates(of kinds: Set<TrustedService.Kind>, at time: Date) -> [Certificate] {
        services.filter { kinds.contains($0.kind) && $0.isTrusted(at: time) }.flatMap(\.certificates)
    }

    /// Certificates of the services of `kinds`, whatever their status at any time.
    func certificates(of kinds: Set<TrustedService.Kind>) -> [Certificate] {
        services.filter { kinds.contains($0.kind) }.flatMap(\.certificates)
    }

    /// The qualifiers that the CA/QC service which issued `certificate` applied to it at `time`.
    func qualifiers(for certificate: Certificate, issuedBy issuer: Certificate?, at time: Date) -> Set<String> {
        issuingService(of: certificate, issuedBy: issuer, at: time)?.qualifiers(at: time, for: certificate) ?? []
    }

    /// The CA/QC service, trusted at `time`, that issued `certificate`.
    private func issuingService(
        of certificate: Certificate, issuedBy issuer: Certificate?, at time: Date
    ) -> TrustedService? {
        services.first { service in
            service.kind == .certificateAuthority && service.isTrusted(at: time)
                && service.certificates.contains(where: { $0 == issuer || $0.isIssuer(of: certificate) })
        }
    }

    /// Whether `certificate` is qualified, on a QSCD, a seal: what the certificate says, as the
    /// qualifiers of the CA/QC service that issued it at `time` amend it (docs/design/trust.md §3–4); nil
    /// when no trusted service on this list issued it.
    public func qualification(
        of certificate: Certificate, issuedBy issuer: Certificate?, at time: Date
    ) -> Certificate.Qualification? {
        guard let service = issuingService(of: certificate, issuedBy: issuer, at: time) else { return nil }
        let qualifiers = service.qualifiers(at: time, for: certificate)
        var qualification = certificate.qualification
        if !qualifiers.isDisjoint(with: ["QCStatement", "QCForESig"]) { qualification.qualified = true }
        if qualifiers.contains("NotQualified") { qualification.qualified = false }
        if !qualifiers.isDisjoint(with: ["QCWithSSCD", "QCWithQSCD"]) { qualification.onQualifiedDevice = true }
        if !qualifiers.isDisjoint(with: ["QCNoSSCD", "QCNoQSCD"]) { qualification.onQualifiedDevice = false }
        if !qualifiers.isDisjoint(with: ["QCForLegalPerson", "QCForESeal"]) { qualification.isSeal = true }
        return qualification
    }
}
