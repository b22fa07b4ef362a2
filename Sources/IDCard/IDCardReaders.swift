import PCSC

/// Finds the reader holding the ID card to use, the way the DigiDoc clients choose: the one
/// supported card present, or the reader the person named.
public enum IDCardReaders {
    /// A reader with a card tamga signs with.
    public struct Candidate: Sendable {
        public let reader: Reader
        public let cardName: String
        let profile: CardProfile
    }

    /// Every reader with a supported ID card in it.
    public static func candidates(in readers: [Reader]) -> [Candidate] {
        readers.compactMap { reader in
            guard reader.state.contains(.present), let kind = reader.card, let profile = cardProfile(named: kind.name)
            else { return nil }
            return Candidate(reader: reader, cardName: kind.name, profile: profile)
        }
    }

    /// The card to use: in the reader named `name` (exact, else the only reader whose name
    /// contains it), or the only supported card present.
    public static func choose(_ name: String?, context: PCSCContext) throws -> Candidate {
        let readers: [Reader]
        do {
            readers = try context.readers()
        } catch let error as PCSCError {
            throw CardError.from(error)
        }
        guard !readers.isEmpty else { throw CardError.noReaders }
        if let name {
            let matches =
                readers.filter { $0.name == name }.isEmpty
                ? readers.filter { $0.name.contains(name) } : readers.filter { $0.name == name }
            guard matches.count == 1, let reader = matches.first else {
                throw matches.isEmpty
                    ? CardError.readerNotFound(name) : CardError.severalCards(readers: matches.map(\.name).sorted())
            }
            guard reader.state.contains(.present) else { throw CardError.noCard }
            guard let candidate = candidates(in: [reader]).first else {
                throw CardError.unsupportedCard(reader: reader.name, atr: reader.atrHex)
            }
            return candidate
        }
        let found = candidates(in: readers)
        if found.count > 1 { throw CardError.severalCards(readers: found.map(\.reader.name).sorted()) }
        if let only = found.first { return only }
        let present = readers.filter { $0.state.contains(.present) }
        if present.isEmpty { throw CardError.noCard }
        throw CardError.noSupportedCard(found: present.map { "\($0.name): \($0.card?.name ?? "unknown card")" })
    }
}
