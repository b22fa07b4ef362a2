import FoundationEssentials
import Glibc

/// The verdict on a container and each of its signatures. Expected outcomes (a bad digest,
/// an untrusted chain) are findings here, not thrown errors.
public struct ValidationReport: Sendable, Codable, Equatable {
    /// Ordered as the reference orders them: the most severe status wins.
    public enum Status: String, Sendable, Codable, Comparable {
        case valid = "VALID"
        case warning = "WARNING"
        /// Valid, but the trusted list does not make it a qualified signature (QC on a QSCD).
        case nonQSCD = "NON_QSCD"
        /// Every check that could be made passed, but trust could not be established.
        case unknown = "UNKNOWN"
        case invalid = "INVALID"

        private var rank: Int {
            switch self {
            case .valid: 0
            case .warning: 1
            case .nonQSCD: 2
            case .unknown: 3
            case .invalid: 4
            }
        }
        public static func < (a: Status, b: Status) -> Bool { a.rank < b.rank }
    }

    /// One observation; `code` is stable (see docs/cli.md), `message` is for people.
    public struct Finding: Sendable, Codable, Equatable {
        public let code: String
        public let severity: Status
        public let message: String
    }

    public struct SignatureResult: Sendable, Codable, Equatable {
        public let file: String
        public let id: String?
        /// The signer's certificate subject, the full RFC 4514 name.
        public let signer: String?
        public let signerSerial: String?
        /// The signer's claimed time (SigningTime): not evidence.
        public let signingTime: String?
        /// genTime of the signature time-stamp: the time the signature provably existed; for a
        /// time-mark, producedAt of the OCSP response used.
        public let timeStampTime: String?
        public let signatureMethod: String?
        /// B, T, LT or LTA, from the unsigned properties present; TM for a BDOC 2.1 time-mark,
        /// TM-A for one with archive time-stamps (INVALID, as in SiVa).
        public let profile: String
        public let status: Status
        public let findings: [Finding]
        /// ASiC-S time-stamp renewals (archive manifests), oldest first; nil elsewhere.
        public var archiveTimeStamps: [ArchiveTimeStamp]? = nil
        /// The signer's claimed roles (SignerRole), as written; nil when there are none.
        public var claimedRoles: [String]? = nil
        /// The claimed place of signing (SignatureProductionPlace), as written; nil when absent.
        public var productionPlace: String? = nil
        /// The signer as a person reads it (`DistinguishedName.readableName`): `GN SN, code`.
        public var signerName: String? = nil
        /// What the trusted list says of the signer's certificate at the time that counts (the
        /// certificate's own QC statements where no listed service issued it); nil where it was
        /// not judged: no trusted list, or a chain that was not trusted.
        public var qualification: SignerQualification? = nil
        /// A detached signature (hashcode validation) only: the given data files it covers.
        public var signedDataFiles: [String]? = nil
        /// The evidence the signature carries, when `ValidationOptions.collectEvidence` asked
        /// for it (not in `verify --json`).
        public var evidence: SignatureEvidence? = nil
    }

    /// A signer's certificate as eIDAS qualifies it: the basis of SiVa's `signatureLevel`.
    public struct SignerQualification: Sendable, Codable, Equatable {
        /// A qualified certificate (QC).
        public let qualified: Bool
        /// Its key on a qualified signature or seal creation device.
        public let qscd: Bool
        /// For electronic seals (a legal person), not signatures.
        public let seal: Bool

        public init(qualified: Bool, qscd: Bool, seal: Bool) {
            self.qualified = qualified
            self.qscd = qscd
            self.seal = seal
        }
    }

    /// One renewal of an ASiC-S time-stamp token: the manifest, its token, the TSA and time.
    public struct ArchiveTimeStamp: Sendable, Codable, Equatable {
        public let manifest: String
        public let file: String
        public let timeStampTime: String
        public let tsa: String?
    }

    public let container: String
    public let status: Status
    public let dataFiles: [String]
    public let findings: [Finding]
    public let signatures: [SignatureResult]
    /// "ASiC-E" or "ASiC-S".
    public var containerType: String? = nil

    public var isValid: Bool { status == .valid || status == .warning || status == .nonQSCD }
}

extension ValidationReport.SignatureResult {
    private enum ETSIKeys: String, CodingKey { case indication, subIndication }

    /// The fields as declared, plus ETSI's `indication` and `subIndication` (`ETSIIndication`):
    /// the same words the validation service reports, from the same mapping. Decoding ignores
    /// them (they follow from `status` and `findings`).
    public func encode(to encoder: Encoder) throws {
        var fields = encoder.container(keyedBy: CodingKeys.self)
        try fields.encode(file, forKey: .file)
        try fields.encodeIfPresent(id, forKey: .id)
        try fields.encodeIfPresent(signer, forKey: .signer)
        try fields.encodeIfPresent(signerSerial, forKey: .signerSerial)
        try fields.encodeIfPresent(signingTime, forKey: .signingTime)
        try fields.encodeIfPresent(timeStampTime, forKey: .timeStampTime)
        try fields.encodeIfPresent(signatureMethod, forKey: .signatureMethod)
        try fields.encode(profile, forKey: .profile)
        try fields.encode(status, forKey: .status)
        try fields.encode(findings, forKey: .findings)
        try fields.encodeIfPresent(archiveTimeStamps, forKey: .archiveTimeStamps)
        try fields.encodeIfPresent(claimedRoles, forKey: .claimedRoles)
        try fields.encodeIfPresent(productionPlace, forKey: .productionPlace)
        try fields.encodeIfPresent(signerName, forKey: .signerName)
        try fields.encodeIfPresent(qualification, forKey: .qualification)
        let verdict = ETSIIndication(self)
        var etsi = encoder.container(keyedBy: ETSIKeys.self)
        try etsi.encode(verdict.indication.rawValue, forKey: .indication)
        try etsi.encodeIfPresent(verdict.subIndication, forKey: .subIndication)
    }
}

/// Collects findings while one signature or the container is checked.
struct FindingList {
    private(set) var items: [ValidationReport.Finding] = []
    mutating func add(_ code: String, _ severity: ValidationReport.Status, _ message: String) {
        items.append(.init(code: code, severity: severity, message: message))
    }
    mutating func invalid(_ code: String, _ message: String) { add(code, .invalid, message) }
    mutating func warning(_ code: String, _ message: String) { add(code, .warning, message) }
    var status: ValidationReport.Status { items.map(\.severity).max() ?? .valid }

    /// At most `limit` findings, most severe first, plus one that counts the rest.
    func capped(_ limit: Int) -> [ValidationReport.Finding] {
        guard items.count > limit else { return items }
        let kept = items.enumerated().sorted { ($0.element.severity, -$0.offset) > ($1.element.severity, -$1.offset) }
            .prefix(limit).map(\.element)
        return kept + [
            .init(
                code: "more-findings", severity: kept.first?.severity ?? .invalid,
                message: "\(items.count - limit) more findings were left out")
        ]
    }
}
