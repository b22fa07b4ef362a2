import FoundationEssentials
import Glibc
import TamgaCore

/// `tamga trust update`: downloads the list of lists and the national lists it points to into
/// a `TrustCache`, checking each before it replaces the cached file (the LOTL with the pinned
/// signers, each national list with the certificates its pointer names). A failed download or
/// check keeps the last good list and says so.
public struct TrustedListUpdater: Sendable {
    /// One line of the report: one list.
    public struct Line: Codable, Sendable {
        public enum Result: String, Codable, Sendable {
            /// Downloaded, checked, and written (new or changed).
            case updated
            /// Downloaded and checked; the same bytes as the cached list.
            case unchanged
            /// The download or the check failed; the cached list, still good, stays.
            case kept
            /// The download or the check failed and there is no good cached list.
            case failed
            /// A pointer tamga does not follow (no signer certificate named).
            case skipped
        }
        public let territory: String
        public let url: String
        /// The cache file; nil for a skipped pointer.
        public let file: String?
        public let result: Result
        /// Of the list now in the cache (new or kept).
        public let sequenceNumber: Int?
        public let issued: String?
        public let nextUpdate: String?
        /// Services per kind (`ca`, `ocsp`, `tsa`); for the list of lists, the pointers followed.
        public let services: [String: Int]?
        /// Why it failed or was skipped: a stable code and a message.
        public let error: Problem?
        /// A list accepted past its NextUpdate (`allowExpired`): `trust-list-expired`.
        public var warning: Problem? = nil
    }

    public struct Problem: Codable, Sendable {
        public let code: String
        public let message: String
    }

    public var transport: HTTPTransport
    public let cache: TrustCache
    public let signers: [Certificate]
    /// The operator's LOTL signers as PEM (`--lotl-cert`), stored in the cache; nil for the built-in EU set.
    public let customSignersPEM: Data?
    /// Only these territories (GR given as EL); nil for all.
    public var territories: Set<String>?
    /// Accept lists past their NextUpdate (`--allow-expired-trust`), each with a warning on its
    /// line: a publisher late with its next list, or an offline mirror kept for old archives.
    /// `verify` still uses such a list only when given `--allow-expired-trust` itself.
    public var allowExpired = false

    public init(cache: TrustCache, signers: [Certificate], customSignersPEM: Data?, transport: HTTPTransport) {
        self.cache = cache
        self.signers = signers
        self.customSignersPEM = customSignersPEM
        // A list is read only up to the size a list may have: a 50 MB answer stops there.
        var transport = transport
        transport.maximumResponseSize = TrustedList.maximumSize
        self.transport = transport
    }

    /// Updates the cache; `progress` hears about each download before it starts.
    public func update(listOfLists url: URL, now: Date = Date(), progress: (String) -> Void = { _ in }) async -> [Line]
    {
        var lines: [Line] = []
        let lotlFile = TrustCache.fileName(for: url)
        progress("list of lists \(url.absoluteString)")
        let previousState = cache.state()
        let previous: TrustedList? = {
            guard let state = previousState, state.lotlFile == lotlFile, let data = cache.read(lotlFile) else {
                return nil
            }
            return try? TrustedListSet.checkListOfLists(
                data, signers: signers, now: now, allowExpired: allowExpired, name: lotlFile,
                pivots: cache.pivot)
        }()
        var top: TrustedList
        var topPointers = 0
        do {
            let data = try await transport.get(url, service: "list of trusted lists")
            // A LOTL signed by a new signer: fetch the pivot lists it names, one level per round.
            var pivots: [String: Data] = [:]
            var checked: TrustedList? = nil
            for _ in 0...TrustedListSet.maximumPivotDepth {
                do {
                    checked = try TrustedListSet.checkListOfLists(
                        data, signers: signers, now: now, allowExpired: allowExpired, name: lotlFile,
                        pivots: { pivots[$0] ?? cache.pivot($0) })
                    break
                } catch TrustedListError.pivotUnavailable(let uri) {
                    guard let pivotURL = URL(string: uri), pivotURL.scheme == "http" || pivotURL.scheme == "https"
                    else {
                        throw TrustedListError.pivotUnavailable(uri)
                    }
                    progress("pivot list of lists \(uri)")
                    pivots[uri] = try await transport.get(pivotURL, service: "pivot list of lists")
                }
            }
            guard let checked else { throw TrustedListError.pivotDepth(TrustedListSet.maximumPivotDepth) }
            try Self.refuseRollback(checked, previous: previous)
            top = checked
            for (uri, pivot) in pivots {
                if let pivotURL = URL(string: uri) { try cache.write(pivot, named: TrustCache.fileName(for: pivotURL)) }
            }
            let same = cache.read(lotlFile) == data
            if !same { try cache.write(data, named: lotlFile) }
            if let customSignersPEM { try cache.write(customSignersPEM, named: TrustCache.signersFile) }
            try cache.saveState(
                TrustCache.State(
                    lotlURL: url.absoluteString, lotlFile: lotlFile,
                    customSigners: customSignersPEM != nil, updated: now))
            topPointers = top.pointers.filter(\.isFollowed).count
            lines.append(
                Self.line(
                    "EU", url.absoluteString, lotlFile, same ? .unchanged : .updated, top, ["pointers": topPointers],
                    nil,
                    now: now))
        } catch {
            guard let previous else {
                lines.append(Self.line("EU", url.absoluteString, lotlFile, .failed, nil, nil, error))
                return lines
            }
            top = previous
            lines.append(
                Self.line(
                    "EU", url.absoluteString, lotlFile, .kept, previous,
                    ["pointers": previous.pointers.filter(\.isFollowed).count], error))
        }

        let pointers = top.pointers.filter { pointer in
            // PDF copies and the LOTL's pointer to itself are not lists to report on.
            pointer.mimeType == TrustedListPointer.xmlMimeType && !TrustedList.listOfListsTypes.contains(pointer.type)
                && (territories.map { $0.contains(pointer.territory) } ?? true)
        }
        for (index, pointer) in pointers.enumerated() {
            guard pointer.isFollowed, let location = URL(string: pointer.location),
                location.scheme == "http" || location.scheme == "https"
            else {
                lines.append(
                    Line(
                        territory: pointer.territory, url: pointer.location, file: nil, result: .skipped,
                        sequenceNumber: nil,
                        issued: nil, nextUpdate: nil, services: nil,
                        error: Problem(
                            code: "tsl-pointer-skipped",
                            message: pointer.skipReason ?? "the TSLLocation is not an http(s) URL")))
                continue
            }
            progress("\(pointer.territory) (\(index + 1)/\(pointers.count)) \(pointer.location)")
            let file = pointer.cacheFileName
            let cached = cache.read(file)
            let previous = cached.flatMap {
                try? TrustedListSet.checkNational($0, pointer: pointer, now: now, allowExpired: allowExpired)
            }
            do {
                let data = try await transport.get(location, service: "trusted list \(pointer.territory)")
                let list = try TrustedListSet.checkNational(
                    data, pointer: pointer, now: now, allowExpired: allowExpired)
                try Self.refuseRollback(list, previous: previous)
                let same = cached == data
                if !same { try cache.write(data, named: file) }
                lines.append(
                    Self.line(
                        pointer.territory, pointer.location, file, same ? .unchanged : .updated, list,
                        list.serviceCounts, nil,
                        now: now))
            } catch {
                lines.append(
                    Self.line(
                        pointer.territory, pointer.location, file, previous == nil ? .failed : .kept,
                        previous, previous?.serviceCounts, error))
            }
        }
        return lines
    }

    /// An older list than the good one cached (lower TSLSequenceNumber) is refused, although
    /// validly signed and current: a replayed list could bring back a withdrawn service. The
    /// reference only logs the sequence number.
    static func refuseRollback(_ list: TrustedList, previous: TrustedList?) throws {
        if let previous, list.sequenceNumber < previous.sequenceNumber {
            throw TrustedListError.rollback(
                territory: list.territory, sequenceNumber: list.sequenceNumber, cached: previous.sequenceNumber)
        }
    }

    /// - Parameter now: given for a list just accepted, which is then checked for expiry (only
    ///   an `allowExpired` update accepts an expired one) and warned about.
    private static func line(
        _ territory: String, _ url: String, _ file: String, _ result: Line.Result, _ list: TrustedList?,
        _ services: [String: Int]?, _ error: Error?, now: Date? = nil
    ) -> Line {
        var line = Line(
            territory: territory, url: url, file: file, result: result, sequenceNumber: list?.sequenceNumber,
            issued: list?.issued.map(XSDDateTime.format), nextUpdate: list?.nextUpdate.map(XSDDateTime.format),
            services: services, error: error.map(problem))
        if let now, let list, list.isExpired(at: now) {
            let when =
                list.nextUpdate.map { "expired on \(XSDDateTime.format($0)) (its NextUpdate)" }
                ?? "has no NextUpdate, so it counts as expired"
            line.warning = Problem(
                code: "trust-list-expired",
                message:
                    "The \(territory) trusted list \(when); it was cached because of --allow-expired-trust, and verify uses it only with --allow-expired-trust."
            )
        }
        return line
    }

    public static func problem(_ error: Error) -> Problem {
        switch error {
        case let e as TrustedListError: Problem(code: e.code, message: e.description)
        case let e as CoreError: Problem(code: e.code, message: e.description)
        case let e as ContainerError: Problem(code: e.code, message: e.description)
        case let e as TrustCacheError: Problem(code: e.code, message: e.description)
        default: Problem(code: "failure", message: "\(error)")
        }
    }
}
