import FoundationEssentials
import Glibc
import TamgaCore

/// Why a trusted list cannot be used. `code` is stable (docs/cli.md, `--json`, exit 3).
public enum TrustedListError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case unsupported(String)
    case signatureInvalid(String)
    /// Signed by a certificate that the caller did not allow (`--tsl-cert`).
    case untrustedSigner
    /// A list of lists signed by a certificate that is not pinned (the EU LOTL signers or `--lotl-cert`).
    case listOfListsSignerNotPinned
    /// A national list signed by a certificate that the LOTL's pointer for it does not name.
    case signerNotInPointer(territory: String)
    case expired(territory: String, nextUpdate: Date?)
    /// Larger than `TrustedList.maximumSize`: refused before parsing.
    case tooLarge(Int)
    /// A list of lists where a national list was expected (or the reverse): pointers are
    /// followed one level deep only, so cycles and deep chains end here.
    case unexpectedKind(territory: String, expected: TrustedList.Kind)
    /// Pivot lists led deeper than `TrustedListSet.maximumPivotDepth` (a cycle, or no end at a pinned signer).
    case pivotDepth(Int)
    /// The list of lists needs a pivot list (its signer is not pinned) that is not at hand.
    case pivotUnavailable(String)
    /// `trust update` downloaded a list older (lower TSLSequenceNumber) than the good one cached.
    case rollback(territory: String, sequenceNumber: Int, cached: Int)
    /// `tamga verify` found no `--trust`, no `--tsl` and no cached lists.
    case noTrustConfigured

    public var code: String {
        switch self {
        case .malformed: "tsl-malformed"
        case .unsupported: "tsl-unsupported"
        case .signatureInvalid: "tsl-signature-invalid"
        case .untrustedSigner: "tsl-signer-not-pinned"
        case .listOfListsSignerNotPinned: "lotl-signer-not-pinned"
        case .signerNotInPointer: "tsl-signer-not-in-pointer"
        case .expired: "tsl-expired"
        case .tooLarge: "tsl-too-large"
        case .unexpectedKind: "tsl-pointer-depth"
        case .noTrustConfigured: "no-trust-configured"
        case .pivotDepth: "lotl-pivot-depth"
        case .pivotUnavailable: "lotl-pivot-unavailable"
        case .rollback: "tsl-rollback"
        }
    }

    public var description: String {
        switch self {
        case .malformed(let why): "The trusted list cannot be read: \(why)."
        case .unsupported(let why): "The trusted list is not usable: \(why)."
        case .signatureInvalid(let why): "The trusted list's signature does not verify (\(why)); it was not used."
        case .untrustedSigner: "The trusted list is not signed by the pinned certificate (--tsl-cert); it was not used."
        case .listOfListsSignerNotPinned:
            "The list of trusted lists is not signed by a pinned LOTL signer (the EU LOTL signers built into tamga, or --lotl-cert); it was not used."
        case .signerNotInPointer(let territory):
            "The \(territory) trusted list is not signed by a certificate that the list of lists names for it; it was not used."
        case .expired(let territory, let date):
            if let date {
                "The \(territory) trusted list expired on \(XSDDateTime.format(date)) (its NextUpdate): `tamga trust update` fetches a newer one once its publisher issues it; --allow-expired-trust (verify and trust update) uses this one anyway, to validate an archive with it."
            } else {
                "The \(territory) trusted list has no NextUpdate, so it counts as expired: --allow-expired-trust (verify and trust update) uses it anyway."
            }
        case .tooLarge(let size):
            "The trusted list is \(size) bytes, more than the \(TrustedList.maximumSize) tamga reads; it was not used."
        case .unexpectedKind(let territory, let expected):
            expected == .national
                ? "The pointer for \(territory) leads to a list of lists, not a national list: tamga follows pointers one level deep only; it was not used."
                : "The list given as a list of lists is a national list (\(territory)): give it with --tsl and its signer with --tsl-cert."
        case .noTrustConfigured: "no trust configured: run `tamga trust update` or give --trust/--tsl."
        case .rollback(let territory, let sequence, let cached):
            "The downloaded \(territory) trusted list has sequence number \(sequence), older than the cached one (\(cached)); the cached list was kept."
        case .pivotDepth(let depth):
            "The list of lists is signed by a certificate that is not pinned, and its pivot lists lead more than \(depth) deep without reaching a pinned signer; it was not used."
        case .pivotUnavailable(let uri):
            "The list of lists is signed by a certificate that is not pinned; the pivot list \(uri) that may announce it is not at hand (run `tamga trust update`, or put the file beside the list of lists)."
        }
    }
}
