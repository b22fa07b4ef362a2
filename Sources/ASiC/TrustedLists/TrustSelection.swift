import FoundationEssentials
import TamgaCore

/// Which trusted lists judge a container: the one policy `tamga verify` and a library user's
/// `Container.validate(_:selecting:)` share, so that the two cannot reach different verdicts.
///
/// The source is one of: PEM anchors alone (no list), one file (a national list, or a list of
/// lists whose national lists lie beside it or in the cache), or the trust cache that
/// `tamga trust update` fills. A list of lists is first read only for the countries the
/// container's signers name (a full EU cache is tens of MB to parse and check); when that does
/// not settle the verdict, every list is read and the container judged again, so that the
/// verdict is the one the whole set gives.
public struct TrustSelection: Sendable {
    public enum Source: Sendable {
        /// PEM anchors only (`ValidationOptions.trust`): no trusted list.
        case anchors
        /// A trusted list file and the certificates allowed to sign it (`--tsl`, `--tsl-cert`).
        case file(path: String, signers: [Certificate])
        /// The trust cache (nil when there is none to read, e.g. no home folder).
        case cache
    }

    public var source: Source
    /// Lists past their NextUpdate are used, each with a notice (`--allow-expired-trust`).
    public var allowExpired: Bool
    /// The trust cache: the source itself for `.cache`; for `.file`, where a list of lists' pivot
    /// lists and national lists are looked for when they are not beside the file.
    public var cache: TrustCache?

    public init(source: Source, allowExpired: Bool = false, cache: TrustCache?) {
        self.source = source
        self.allowExpired = allowExpired
        self.cache = cache
    }

    /// The trust a validation runs with: the list (nil with PEM anchors only), the notices for
    /// the report, what to tell the user about lists that could not be used (one line each), and
    /// whether only some territories of a list of lists were read.
    public struct Resolved: Sendable {
        public var list: TrustedList?
        public var notices: [TrustNotice] = []
        public var problems: [String] = []
        public var isSubset = false
    }

    /// The lists for `territories` (nil: all of them) at `now`. Throws when a `--tsl` file cannot
    /// be read or is not a list its signers signed; an unusable national list of a list of lists
    /// is a problem line instead, and the others are still used.
    public func resolve(territories: Set<String>?, now: Date = Date()) throws -> Resolved {
        let set: TrustedListSet
        switch source {
        case .anchors:
            return Resolved()
        case .cache:
            guard let cached = try cache?.load(now: now, allowExpired: allowExpired, territories: territories) else {
                return Resolved(
                    notices: [.noTrustConfigured], problems: ["tamga: \(TrustedListError.noTrustConfigured)"])
            }
            set = cached
        case .file(let path, let signers):
            guard let data = TrustCache.readCapped(path) else {
                throw CoreError.unreadableFile(path: path, reason: "no such file or not readable")
            }
            // A signer that is not allowed may still be one a pivot list announces, for a list of lists.
            var single: TrustedList? = nil
            do {
                single = try TrustedList(data: data, signers: signers, now: now, allowExpired: allowExpired)
            } catch TrustedListError.untrustedSigner {}
            if let single, single.kind == .national {
                return Resolved(list: single, notices: single.isExpired(at: now) ? [Self.expiredNotice(single)] : [])
            }
            // The files beside the list of lists were given with it; the cache may hold another's lists.
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            let cache = self.cache
            let pivots: (String) -> Data? = { uri in
                if let name = URL(string: uri)?.lastPathComponent, !name.isEmpty, name != "/",
                    let bytes = TrustCache.readCapped(folder.appendingPathComponent(name).path)
                {
                    return bytes
                }
                return cache?.pivot(uri)
            }
            set = try TrustedListSet.load(
                listOfLists: data, signers: signers, now: now, allowExpired: allowExpired,
                signerError: .untrustedSigner, name: URL(fileURLWithPath: path).lastPathComponent,
                pivots: pivots, territories: territories
            ) { pointer in
                if let name = pointer.locationFileName {
                    let beside = folder.appendingPathComponent(name).path
                    if let bytes = TrustCache.readCapped(beside) { return (bytes, beside) }
                }
                guard let cache, let bytes = TrustCache.readCapped(cache.path(pointer.cacheFileName)) else {
                    return nil
                }
                return (bytes, cache.path(pointer.cacheFileName))
            }
        }
        var resolved = Resolved(
            list: set.union, notices: set.expiredInUse.map(Self.expiredNotice), isSubset: territories != nil)
        for entry in set.entries {
            if let error = entry.error {
                resolved.problems.append(
                    "tamga: trust: the \(entry.pointer.territory) list (\(entry.source ?? entry.pointer.location)) was not used: \(error) [\(error.code)]"
                )
            }
        }
        if set.lists.isEmpty && territories == nil {
            resolved.problems.append(
                "tamga: trust: no national list of the list of lists is usable; run `tamga trust update`")
        }
        return resolved
    }

    static func expiredNotice(_ list: TrustedList) -> TrustNotice {
        let name = list.kind == .listOfLists ? "list of trusted lists" : "\(list.territory) trusted list"
        let when = list.nextUpdate.map { "expired on \(XSDDateTime.format($0))" } ?? "has no NextUpdate"
        return .expiredListUsed("the \(name) \(when); used because of --allow-expired-trust")
    }
}

extension Container {
    /// Validates with the trusted lists `selection` gives (`options.trustedList` and
    /// `options.trustNotices` are replaced by the selection's). With anchors in `options.trust`
    /// a list of lists is read whole; else first only the territories the signers name, and whole
    /// when those do not make the container VALID. Returns the report and the trust it ran with
    /// (whose `problems` a caller shows).
    public func validate(
        _ options: ValidationOptions, selecting selection: TrustSelection, now: Date = Date()
    ) throws -> (report: ValidationReport, trust: TrustSelection.Resolved) {
        func judge(_ resolved: TrustSelection.Resolved) -> ValidationReport {
            var options = options
            options.trustedList = resolved.list
            options.trustNotices = resolved.notices
            return validate(options)
        }
        let territories = options.trust.anchors.isEmpty ? trustTerritories() : []
        var resolved = try selection.resolve(territories: territories.isEmpty ? nil : territories, now: now)
        var report = judge(resolved)
        if resolved.isSubset, ![.valid, .warning, .nonQSCD].contains(report.status) {
            resolved = try selection.resolve(territories: nil, now: now)
            report = judge(resolved)
        }
        return (report, resolved)
    }
}
