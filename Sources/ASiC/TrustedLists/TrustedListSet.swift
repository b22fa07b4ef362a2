import Dispatch
import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

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
    public static func load(
        listOfLists data: Data, signers: [Certificate], now: Date = Date(), allowExpired: Bool = false,
        signerError: TrustedListError = .listOfListsSignerNotPinned, name: String = "eu-lotl.xml",
        pivots: ((String) -> Data?)? = nil, territories: Set<String>? = nil,
        national: @Sendable (TrustedListPointer) -> (data: Data, source: String)?
    ) throws -> TrustedListSet {
        let top = try checkListOfLists(
            data, signers: signers, now: now, allowExpired: allowExpired, signerError: signerError,
            name: name, pivots: pivots)
        // The national lists are independent: read and check them on every core, as the
        // reference does (the LOTL, parsed above on this thread, has initialised libxml2).
        // With `territories`, only those lists are read at all (the reference also reads only
        // the countries it meets); the rest are not in `entries`.
        let followed = top.pointers.filter {
            $0.isFollowed && (territories?.contains($0.territory.uppercased()) ?? true)
        }
        let slots = Slots<Entry>(count: followed.count)
        DispatchQueue.concurrentPerform(iterations: followed.count) { index in
            let pointer = followed[index]
            guard let (bytes, source) = national(pointer) else {
                slots.set(index, Entry(pointer: pointer, source: nil, list: nil, error: nil))
                return
            }
            do {
                let list = try checkNational(bytes, pointer: pointer, now: now, allowExpired: allowExpired)
                slots.set(index, Entry(pointer: pointer, source: source, list: list, error: nil))
            } catch let error as TrustedListError {
                slots.set(index, Entry(pointer: pointer, source: source, list: nil, error: error))
            } catch {
                slots.set(index, Entry(pointer: pointer, source: source, list: nil, error: .malformed("\(error)")))
            }
        }
        let entries = slots.values
        let expired =
            (top.isExpired(at: now) ? [top] : []) + entries.compactMap(\.list).filter { $0.isExpired(at: now) }
        return TrustedListSet(listOfLists: top, entries: entries, expiredInUse: expired)
    }

    /// How many pivot lists deep a list of lists may lead (the reference's recursion limit).
    public static let maximumPivotDepth = 3

    /// A list of lists checked with the pinned signers; a national list here is refused.
    ///
    /// When its signer is not pinned and `pivots` is given, the EU's pivot mechanism applies
    /// (docs/design/asics-tm-names.md §5): the first `SchemeInformationURI` (xml:lang en) containing "pivot"
    /// names an earlier LOTL version that must itself check (recursively, at most
    /// `maximumPivotDepth` deep, ending at a pinned signer); the certificates its pointer to the
    /// list of lists names may then sign this one. Stricter than the reference, which allows the
    /// certificates of every pointer of the pivot. Pivots are historical lists, so their own
    /// NextUpdate is not checked.
    /// - Parameters:
    ///   - name: the list's file name (`eu-lotl.xml`); a pivot does not lead to itself.
    ///   - pivots: the bytes of a pivot list by URI, nil when not at hand
    ///     (`TrustedListError.pivotUnavailable` then names the URI to fetch).
    public static func checkListOfLists(
        _ data: Data, signers: [Certificate], now: Date = Date(), allowExpired: Bool = false,
        signerError: TrustedListError = .listOfListsSignerNotPinned, name: String = "eu-lotl.xml",
        pivots: ((String) -> Data?)? = nil, depth: Int = 0
    ) throws -> TrustedList {
        let list: TrustedList
        do {
            list = try TrustedList(data: data, signers: signers, now: now, allowExpired: allowExpired)
        } catch TrustedListError.untrustedSigner {
            guard let pivots else { throw signerError }
            guard depth < maximumPivotDepth else { throw TrustedListError.pivotDepth(maximumPivotDepth) }
            guard let uri = try pivotURIs(data, name: name).first else { throw signerError }
            guard let pivotData = pivots(uri) else { throw TrustedListError.pivotUnavailable(uri) }
            let pivot = try checkListOfLists(
                pivotData, signers: signers, now: now, allowExpired: true, signerError: signerError,
                name: URL(string: uri)?.lastPathComponent ?? uri, pivots: pivots, depth: depth + 1)
            let announced = pivot.pointers.filter { TrustedList.listOfListsTypes.contains($0.type) }.flatMap(\.signers)
            do {
                list = try TrustedList(data: data, signers: announced, now: now, allowExpired: allowExpired)
            } catch TrustedListError.untrustedSigner {
                throw signerError
            }
        } catch TrustedListError.expired(_, let date) {
            throw TrustedListError.expired(territory: "EU list of lists", nextUpdate: date)
        }
        guard list.kind == .listOfLists else {
            throw TrustedListError.unexpectedKind(territory: list.territory, expected: .listOfLists)
        }
        return list
    }

    /// The pivot URIs a list of lists names, newest first, read before its signature is known
    /// to be good: they only say where to look, and what is found there must check on its own.
    static func pivotURIs(_ data: Data, name: String) throws -> [String] {
        guard data.count <= TrustedList.maximumSize else { throw TrustedListError.tooLarge(data.count) }
        let document = try XMLDocument(data: data, name: "list of lists")
        let uris =
            document.root?.child("SchemeInformation", in: TrustedList.namespace)?
            .child("SchemeInformationURI", in: TrustedList.namespace)?.children("URI", in: TrustedList.namespace)
            .filter { ($0.attribute("lang", namespace: "http://www.w3.org/XML/1998/namespace") ?? "en") == "en" }
            .map { $0.text.trimmed() } ?? []
        // A pivot's own name (before the first dot) is not followed again.
        let stem = name.contains("pivot") ? String(name.split(separator: ".").first ?? "") : ""
        return uris.filter { $0.contains("pivot") && (stem.isEmpty || !$0.contains(stem)) }
    }

    /// A national list checked with the certificates its pointer names; a list of lists here is
    /// refused, so pointers are followed one level deep and cannot loop.
    public static func checkNational(
        _ data: Data, pointer: TrustedListPointer, now: Date = Date(), allowExpired: Bool = false
    ) throws -> TrustedList {
        let list: TrustedList
        do {
            list = try TrustedList(data: data, signers: pointer.signers, now: now, allowExpired: allowExpired)
        } catch TrustedListError.untrustedSigner {
            throw TrustedListError.signerNotInPointer(territory: pointer.territory)
        } catch TrustedListError.expired(_, let date) {
            throw TrustedListError.expired(territory: pointer.territory, nextUpdate: date)
        }
        guard list.kind == .national else {
            throw TrustedListError.unexpectedKind(territory: pointer.territory, expected: .national)
        }
        return list
    }
}

/// Results written from `concurrentPerform`, one slot per index.
private final class Slots<Value>: @unchecked Sendable {  // unchecked: every access holds `lock`
    private let lock = Lock()
    private var storage: [Value?]

    init(count: Int) { storage = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: Value) { lock.withLock { storage[index] = value } }

    var values: [Value] { lock.withLock { storage.compactMap { $0 } } }
}
