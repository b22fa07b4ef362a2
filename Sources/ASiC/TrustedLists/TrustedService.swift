import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// One TSPService of a trusted list: its type, certificates (pooled over its history) and
/// its status over time, each status with the qualifiers it carried.
struct TrustedService: Sendable {
    enum Kind: Sendable, Hashable {
        case certificateAuthority, ocsp, timeStamping

        /// The stable name in `tamga trust` output.
        var name: String {
            switch self {
            case .certificateAuthority: "ca"
            case .ocsp: "ocsp"
            case .timeStamping: "tsa"
            }
        }
    }

    struct Period: Sendable {
        let start: Date
        let granted: Bool
        let qualifications: [Qualification]
    }

    /// An `ecc:QualificationElement`: qualifier URIs applied when the criteria match.
    struct Qualification: Sendable {
        let qualifiers: [String]
        let assertAll: Bool
        let keyUsage: [(bit: Certificate.KeyUsage, set: Bool)]
        let policies: [String]

        func matches(_ certificate: Certificate) -> Bool {
            let usage = certificate.keyUsage ?? []
            let policies = Set(certificate.policies)
            let results =
                keyUsage.map { usage.contains($0.bit) == $0.set } + self.policies.map { policies.contains($0) }
            guard !results.isEmpty else { return true }
            return assertAll ? results.allSatisfy { $0 } : results.contains(true)
        }
    }

    let kind: Kind
    let certificates: [Certificate]
    /// Newest first.
    let periods: [Period]

    static let typePrefix = "http://uri.etsi.org/TrstSvc/Svctype/"
    static let grantedStatuses: Set<String> = [
        "http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/granted",
        "http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/recognisedatnationallevel",
        "http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/undersupervision",
        "http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/supervisionincessation",
        "http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/accredited",
        "http://uri.etsi.org/TrstSvc/TrustedList/Svcstatus/setbynationallaw",
        "http://uri.etsi.org/TrstSvc/eSigDir-1999-93-EC-TrustedList/Svcstatus/undersupervision",
    ]
    static let keyUsageNames: [String: Certificate.KeyUsage] = [
        "digitalSignature": .digitalSignature, "nonRepudiation": .nonRepudiation, "keyEncipherment": .keyEncipherment,
        "dataEncipherment": .dataEncipherment, "keyAgreement": .keyAgreement, "keyCertSign": .keyCertSign,
        "crlSign": .crlSign,
    ]

    /// Nil for service types tamga does not use (CA/PKC, plain OCSP, CRL, …), which the
    /// reference drops as well.
    init?(_ element: XMLElement) {
        let ns = TrustedList.namespace
        guard let information = element.child("ServiceInformation", in: ns),
            let type = information.child("ServiceTypeIdentifier", in: ns)?.text.trimmed()
        else { return nil }
        switch type {
        case Self.typePrefix + "CA/QC": kind = .certificateAuthority
        case Self.typePrefix + "Certstatus/OCSP/QC": kind = .ocsp
        case Self.typePrefix + "TSA/QTST": kind = .timeStamping
        default: return nil
        }
        // The current information and each history instance of the same type.
        let instances =
            [information]
            + (element.child("ServiceHistory", in: ns)?.children("ServiceHistoryInstance", in: ns) ?? [])
            .filter { $0.child("ServiceTypeIdentifier", in: ns)?.text.trimmed() == type }
        var certificates: [Certificate] = []
        var periods: [Period] = []
        for instance in instances {
            for identity in instance.children("ServiceDigitalIdentity", in: ns) {
                for id in identity.children("DigitalId", in: ns) {
                    if let text = id.child("X509Certificate", in: ns)?.text, let der = XMLBase64.decode(text),
                        let certificate = try? Certificate(der: der), !certificates.contains(certificate)
                    {
                        certificates.append(certificate)
                    }
                }
            }
            guard let status = instance.child("ServiceStatus", in: ns)?.text.trimmed(),
                let start = instance.child("StatusStartingTime", in: ns).flatMap({
                    XSDDateTime.parse($0.text.trimmed())
                })
            else { continue }
            let extensions = instance.child("ServiceInformationExtensions", in: ns)?.children("Extension", in: ns) ?? []
            // A critical ExpiredCertsRevocationInfo drops the instance, as the reference does.
            if extensions.contains(where: {
                $0.attribute("Critical") == "true" && $0.child("ExpiredCertsRevocationInfo", in: ns) != nil
            }) {
                continue
            }
            let qualifications = extensions.compactMap { $0.child("Qualifications", in: TrustedList.eccNamespace) }
                .flatMap { $0.children("QualificationElement", in: TrustedList.eccNamespace) }
                .map(Self.qualification)
            periods.append(
                Period(start: start, granted: Self.grantedStatuses.contains(status), qualifications: qualifications))
        }
        guard !certificates.isEmpty, !periods.isEmpty else { return nil }
        self.certificates = certificates
        self.periods = periods.sorted { $0.start > $1.start }
    }

    private static func qualification(_ element: XMLElement) -> Qualification {
        let ecc = TrustedList.eccNamespace
        let qualifiers =
            element.child("Qualifiers", in: ecc)?.children("Qualifier", in: ecc).compactMap { $0.attribute("uri") }
            ?? []
        let criteria = element.child("CriteriaList", in: ecc)
        var keyUsage: [(Certificate.KeyUsage, Bool)] = []
        for bit in criteria?.children("KeyUsage", in: ecc).flatMap({ $0.children("KeyUsageBit", in: ecc) }) ?? [] {
            if let name = bit.attribute("name"), let usage = keyUsageNames[name] {
                keyUsage.append((usage, bit.text.trimmed() == "true"))
            }
        }
        let policies =
            criteria?.children("PolicySet", in: ecc).flatMap { $0.children("PolicyIdentifier", in: ecc) }
            .compactMap { $0.child("Identifier", in: XMLNamespace.xades)?.text.trimmed() }
            .map { $0.hasPrefix("urn:oid:") ? String($0.dropFirst(8)) : $0 } ?? []
        return Qualification(
            qualifiers: qualifiers, assertAll: criteria?.attribute("assert") != "atLeastOne",
            keyUsage: keyUsage, policies: policies)
    }

    /// The latest status that started at or before `time` decides.
    private func period(at time: Date) -> Period? { periods.first { $0.start <= time } }

    func isTrusted(at time: Date) -> Bool { period(at: time)?.granted ?? false }

    /// Qualifier URIs (suffixes after `…/SvcInfoExt/`) that apply to `certificate` at `time`.
    func qualifiers(at time: Date, for certificate: Certificate) -> Set<String> {
        guard let period = period(at: time) else { return [] }
        let prefix = "http://uri.etsi.org/TrstSvc/TrustedList/SvcInfoExt/"
        return Set(
            period.qualifications.filter { $0.matches(certificate) }.flatMap(\.qualifiers)
                .map { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : $0 })
    }
}
