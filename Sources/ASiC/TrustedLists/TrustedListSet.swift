import Foundation
import TamgaCore

/// A list of lists and the national lists it points to, each checked with the certificates
/// its pointer names, as one source of trust: the union of the national lists' services.
/// A national list that cannot be used is left out with the reason (the reference logs it and
/// goes on); a list of lists that cannot be used is an error.
public struct TrustedListSet: Sendable {
    /// One followed pointer and what became of it.
    public struct Entry: Sendable {
        public let pointer: TrustedListPointer
        /// Where the list was read from (a cache file or a file beside the LOTL); nil when none was found.
        public let source: String?
        public let list: TrustedList?
        public let error: TrustedListError?
    }

    public let listOfLists: TrustedList
    public let entries: [Entry]
    /// The lists in use although past their NextUpdate (only with `allowExpired`).
    public let expiredInUse: [TrustedList]

    public var lists: [TrustedList] { entries.compactMap(\.list) }
    /// All usable national lists as one; nil when none is usable.
    public var union: TrustedList? { TrustedList(union: lists) }

    /// Checks a list of lists with `signers`, then each national list that `national` finds
    /// for its followed pointers (nil: no file for that territory, silently absent as in the
    /// reference's lazy loading).
    public static func load(listOfLists data: Data, signers: [Certificate], now: Date = Date(), allowExpired: Bool = false,
                            signerError: TrustedListError = .listOfListsSignerNotPinned,
                            national: (TrustedListPointer) -> (data: Data, source: String)?) throws -> TrustedListSet {
        let top = try checkListOfLists(data, signers: signers, now: now, allowExpired: allowExpired, signerError: signerError)
        var entries: [Entry] = []
        var expired: [TrustedList] = top.isExpired(at: now) ? [top] : []
        for pointer in top.pointers where pointer.isFollowed {
            guard let (bytes, source) = national(pointer) else {
                entries.append(Entry(pointer: pointer, source: nil, list: nil, error: nil))
                continue
            }
            do {
                let list = try checkNational(bytes, pointer: pointer, now: now, allowExpired: allowExpired)
                if list.isExpired(at: now) { expired.append(list) }
                entries.append(Entry(pointer: pointer, source: source, list: list, error: nil))
            } catch let error as TrustedListError {
                entries.append(Entry(pointer: pointer, source: source, list: nil, error: error))
            } catch {
                entries.append(Entry(pointer: pointer, source: source, list: nil, error: .malformed("\(error)")))
            }
        }
        return TrustedListSet(listOfLists: top, entries: entries, expiredInUse: expired)
    }

    /// A list of lists checked with the pinned signers; a national list here is refused.
    public static func checkListOfLists(_ data: Data, signers: [Certificate], now: Date = Date(), allowExpired: Bool = false,
                                        signerError: TrustedListError = .listOfListsSignerNotPinned) throws -> TrustedList {
        let list: TrustedList
        do {
            list = try TrustedList(data: data, signers: signers, now: now, allowExpired: allowExpired)
        } catch TrustedListError.untrustedSigner {
            throw signerError
        } catch TrustedListError.expired(_, let date) {
            throw TrustedListError.expired(territory: "EU list of lists", nextUpdate: date)
        }
        guard list.kind == .listOfLists else { throw TrustedListError.unexpectedKind(territory: list.territory, expected: .listOfLists) }
        return list
    }

    /// A national list checked with the certificates its pointer names; a list of lists here is
    /// refused, so pointers are followed one level deep and cannot loop.
    public static func checkNational(_ data: Data, pointer: TrustedListPointer, now: Date = Date(), allowExpired: Bool = false) throws -> TrustedList {
        let list: TrustedList
        do {
            list = try TrustedList(data: data, signers: pointer.signers, now: now, allowExpired: allowExpired)
        } catch TrustedListError.untrustedSigner {
            throw TrustedListError.signerNotInPointer(territory: pointer.territory)
        } catch TrustedListError.expired(_, let date) {
            throw TrustedListError.expired(territory: pointer.territory, nextUpdate: date)
        }
        guard list.kind == .national else { throw TrustedListError.unexpectedKind(territory: pointer.territory, expected: .national) }
        return list
    }
}
