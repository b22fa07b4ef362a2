import Foundation
import PCSC

/// `tamga readers`
struct ReadersCommand: Command {
    static let path = ["readers"]
    static let abstract = "Lists smart-card readers: state, ATR, the card recognised, the token media family."
    static let usage = "[--json]"
    static let help = """
    One line per reader: name, state (empty, present, in-use, exclusive, mute), the card's ATR,
    the card recognised from it, and the CryptoPro media family when the reader or card is a
    Rutoken (the serial part of a media name needs the token itself: see tamga tokens).
    Exit codes: 0 listed (also when there are no readers), 3 pcscd not running.
    """
    static let flags: Set<String> = GlobalOptions.flags
    static let options: Set<String> = []

    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("readers takes no arguments") }
        global = GlobalOptions(arguments)
    }

    struct Listing: Encodable {
        struct Entry: Encodable {
            let name: String
            let state: String
            let atr: String?
            let card: String?
            let mediaFamily: String?
        }
        let readers: [Entry]
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        let readers = try PCSCContext().readers()
        let listing = Listing(readers: readers.map {
            .init(name: $0.name, state: $0.state.summary, atr: $0.atr.isEmpty ? nil : $0.atrHex, card: $0.card?.name,
                  mediaFamily: $0.mediaFamily)
        })
        if global.json {
            context.terminal.json(listing)
        } else if readers.isEmpty {
            context.terminal.line("No smart-card reader is connected. Plug one in and run tamga readers again.")
        } else {
            for entry in listing.readers {
                var line = "\(entry.name): \(entry.state)"
                if let atr = entry.atr { line += ", ATR \(atr)" }
                line += entry.card.map { ", \($0)" } ?? (entry.atr == nil ? "" : ", unknown card")
                if let family = entry.mediaFamily { line += ", media \(family)_…" }
                context.terminal.line(line)
            }
        }
        return .success
    }
}
