import ASiC
import FoundationEssentials

/// SiVa's two validation policies (docs/siva.md §Policies). Both judge a signature as tamga's
/// `verify` does (LT at least, the DigiDoc rules); they differ in the legal level they accept.
/// POLv3 passes every TOTAL-PASSED signature whatever its level; POLv4, SiVa's default, passes
/// qualified signatures (QESIG), qualified seals (QESEAL) and qualified seals off a QSCD
/// (ADESEAL_QC), passes ADESIG_QC with a warning, and fails any other level.
public enum SiVaPolicy: String, Sendable, CaseIterable {
    case polv3 = "POLv3"
    case polv4 = "POLv4"

    public static let `default` = SiVaPolicy.polv4

    /// The policy a request names, case-insensitively as SiVa matches them.
    public init?(name: String) {
        guard let policy = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            return nil
        }
        self = policy
    }

    public var url: String { "http://open-eid.github.io/SiVa/siva3/appendix/validation_policy/#\(rawValue)" }

    /// SiVa's own texts, word for word: clients show them.
    public var description: String {
        switch self {
        case .polv3:
            "Policy for validating Electronic Signatures and Electronic Seals regardless of the legal type of the signature or seal (according to Regulation (EU) No 910/2014, aka eIDAS), i.e. the fact that the electronic signature or electronic seal is either Advanced electronic Signature (AdES), AdES supported by a Qualified Certificate (AdES/QC) or a Qualified electronic Signature (QES) does not change the total validation result of the signature. Signatures which are not compliant with ETSI standards (referred by Regulation (EU) No 910/2014) may produce unknown or invalid validation result. Validation process is based on eIDAS Article 32, Commission Implementing Decision (EU) 2015/1506 and referred ETSI standards."
        case .polv4:
            "Policy according most common requirements of Estonian Public Administration, to validate Qualified Electronic Signatures and Electronic Seals with Qualified Certificates (according to Regulation (EU) No 910/2014, aka eIDAS). I.e. signatures that have been recognized as Advanced electronic Signatures (AdES) and AdES supported by a Qualified Certificate (AdES/QC) do not produce a positive validation result, with exception for seals, where AdES/QC and above will produce positive result. Signatures and Seals which are not compliant with ETSI standards (referred by eIDAS) may produce unknown or invalid validation result. Validation process is based on eIDAS Article 32 and referred ETSI standards."
        }
    }

    static let levelTooLow = "Signature/seal level do not meet the minimal level required by applied policy"
    static let notQualifiedLevel = "The signature is not in the Qualified Electronic Signature level"

    /// What the policy makes of a TOTAL-PASSED signature at `level`: passed or not, and the
    /// error or warning it adds. A signature without a level (DDOC) is not judged by level.
    func judge(level: String?) -> (passes: Bool, error: String?, warning: String?) {
        guard self == .polv4, let level else { return (true, nil, nil) }
        switch level {
        case "QESIG", "QESEAL", "ADESEAL_QC": return (true, nil, nil)
        case "ADESIG_QC": return (true, nil, Self.notQualifiedLevel)
        default: return (false, Self.levelTooLow, nil)
        }
    }
}
