import FoundationEssentials
import Glibc

/// A change seen by `ReaderMonitor`.
public struct ReaderEvent: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The reader was present when watching started.
        case present = "reader-present"
        case readerAdded = "reader-added"
        case readerRemoved = "reader-removed"
        case cardInserted = "card-inserted"
        case cardRemoved = "card-removed"
        /// Another state bit changed (in use, exclusive, mute).
        case stateChanged = "state-changed"
    }

    public let kind: Kind
    public let reader: Reader

    public var description: String {
        var text = "\(kind.rawValue): \(reader.name) (\(reader.state.summary)"
        if let card = reader.card {
            text += ", \(card.name)"
        } else if !reader.atr.isEmpty {
            text += ", ATR \(reader.atrHex)"
        }
        return text + ")"
    }
}
