import FoundationEssentials
import Glibc
import TamgaSupport

/// A reader as listed: its PC/SC name, state, the card's ATR and what that card is.
public struct Reader: Sendable, Hashable {
    public let name: String
    public let state: ReaderState
    /// The ATR of the card in the reader; empty when there is none.
    public let atr: [UInt8]

    public init(name: String, state: ReaderState, atr: [UInt8]) {
        self.name = name
        self.state = state
        self.atr = atr
    }

    /// The card, recognised from the ATR with `CardRegistry`.
    public var card: CardRegistry.CardKind? { atr.isEmpty ? nil : CardRegistry.recognize(atr) }

    /// The CryptoPro media family this reader stands for: from the card when it is recognised
    /// (an eID card in a reader named like a token has none), else from the reader's name.
    public var mediaFamily: String? {
        if let card { return card.mediaFamily }
        return ReaderName(name).mediaFamily
    }

    public var atrHex: String { NumberText.hex(bytes: atr) }
}
