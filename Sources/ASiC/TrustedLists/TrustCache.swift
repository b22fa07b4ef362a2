import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// The trusted lists `tamga trust update` keeps: `$XDG_CACHE_HOME/tamga/trust/` (else
/// `~/.cache/tamga/trust/`), holding the list of lists under its URL's file name
/// (`eu-lotl.xml`), each national list as `<territory>.xml` (the reference's cache names),
/// `trust.json` (where the LOTL came from) and, only when `--lotl-cert` replaced the built-in
/// EU signers, `lotl-signers.pem`.
///
/// Every file is replaced atomically (written beside, then renamed), and only after its
/// signature was checked: a failed download never replaces a good list. The lists are checked
/// again whenever they are loaded, so a changed cache file is refused, not trusted.
public struct TrustCache: Sendable {
    /// What the last `trust update` used.
    public struct State: Codable, Sendable {
        public var lotlURL: String
        public var lotlFile: String
        /// True when `lotl-signers.pem` holds the operator's LOTL signers.
        public var customSigners: Bool
        public var updated: Date
    }

    public let directory: URL
    static let stateFile = "trust.json"
    public static let signersFile = "lotl-signers.pem"

    public init(directory: URL) { self.directory = directory }

    /// The cache folder for an environment: `XDG_CACHE_HOME` (absolute), else `HOME/.cache`;
    /// nil when neither is set.
    public init?(environment: [String: String]) {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            directory = URL(fileURLWithPath: xdg).appendingPathComponent("tamga/trust")
        } else if let home = environment["HOME"], !home.isEmpty {
            directory = URL(fileURLWithPath: home).appendingPathComponent(".cache/tamga/trust")
        } else {
            return nil
        }
    }

    public func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    public func state() -> State? {
        guard let data = read(Self.stateFile) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(State.self, from: data)
    }

    func saveState(_ state: State) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try write(try encoder.encode(state), named: Self.stateFile)
    }

    /// The LOTL signers in force: the operator's (`lotl-signers.pem`) or the built-in EU set.
    public func listOfListsSigners(_ state: State) throws -> [Certificate] {
        guard state.customSigners else { return EULOTLSigners.certificates }
        guard let data = read(Self.signersFile) else {
            throw TrustedListError.malformed(
                "\(path(Self.signersFile)) is missing: run `tamga trust update --lotl-cert PEM` again")
        }
        return try Certificate.parseAll(pem: data)
    }

    /// A cache file's bytes, or nil when absent.
    func read(_ name: String) -> Data? { Self.readCapped(path(name)) }

    /// A file's bytes, at most one more than a list may have (so `TrustedList` refuses it as too
    /// large without a hostile file being read whole); nil when it cannot be opened.
    public static func readCapped(_ path: String) -> Data? {
        FileBytes.read(path, limit: TrustedList.maximumSize + 1).map { Data($0) }
    }

    /// Writes beside, fsyncs and renames (`AtomicOutputFile`): a reader sees the old file or the
    /// new one, never a part, and an interrupted update leaves no temporary file behind.
    func write(_ data: Data, named name: String) throws {
        let target = directory.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try AtomicFile.write(Array(data), to: target.path)
        } catch {
            throw TrustCacheError.writeFailed(path: target.path, reason: "\(error)")
        }
    }

    /// A list's cache name: its URL's last path segment (`eu-lotl.xml`,
    /// `eu-lotl-pivot-341.xml`), made safe.
    public static func fileName(for url: URL) -> String {
        let name = String(
            url.lastPathComponent.unicodeScalars.filter {
                ($0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0)) || $0 == "-" || $0 == "_"
                    || $0 == "."
            })
        guard !name.isEmpty, !name.hasPrefix("."), name != stateFile, name != signersFile else { return "eu-lotl.xml" }
        return name.hasSuffix(".xml") ? name : name + ".xml"
    }

    /// A cached pivot list by its URI (checked again by whoever uses it).
    public func pivot(_ uri: String) -> Data? {
        URL(string: uri).flatMap { read(Self.fileName(for: $0)) }
    }

    /// The cached lists, checked: nil when `trust update` never ran here.
    /// - Parameter territories: read only these national lists (nil: all of them).
    public func load(
        now: Date = Date(), allowExpired: Bool = false, territories: Set<String>? = nil
    ) throws -> TrustedListSet? {
        guard let state = state() else { return nil }
        guard let data = read(state.lotlFile) else {
            throw TrustedListError.malformed(
                "the cached list of lists \(path(state.lotlFile)) is missing: run `tamga trust update`")
        }
        return try TrustedListSet.load(
            listOfLists: data, signers: try listOfListsSigners(state), now: now, allowExpired: allowExpired,
            name: state.lotlFile, pivots: pivot, territories: territories
        ) { pointer in
            read(pointer.cacheFileName).map { ($0, path(pointer.cacheFileName)) }
        }
    }
}
