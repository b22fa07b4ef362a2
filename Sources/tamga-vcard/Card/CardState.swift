import Foundation

/// One PIN (or PUK) on the card: its value, retry counter and whether the holder has changed it
/// from the transport value (Thales cards refuse PIN2 until it was changed once).
struct PINRecord: Codable {
    var value: String
    var maximumTries: Int
    var triesLeft: Int
    var minimumLength: Int
    var changed: Bool

    var isBlocked: Bool { triesLeft == 0 }

    /// Compares in constant time over the padded template so the emulator does not model a
    /// timing leak real cards do not have.
    func matches(_ candidate: String) -> Bool {
        let a = Array(value.utf8), b = Array(candidate.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<12 { difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0) }
        return difference == 0
    }
}

/// What survives a power cycle: PIN values, retry counters, the changed flags. Written to the
/// `--state` file after each change so a test can remove and re-insert the card (or start a
/// new tamga-vcard on the same file) and find a blocked PIN still blocked.
final class CardState {
    private(set) var pins: [UInt8: PINRecord]
    private let file: URL?

    init(defaults: [UInt8: PINRecord], file: URL?) {
        self.file = file
        if let file, let data = try? Data(contentsOf: file),
            let saved = try? JSONDecoder().decode([String: PINRecord].self, from: data)
        {
            var pins = defaults
            for (key, record) in saved { if let ref = UInt8(key, radix: 16) { pins[ref] = record } }
            self.pins = pins
        } else {
            self.pins = defaults
            save()
        }
    }

    subscript(reference: UInt8) -> PINRecord? {
        get { pins[reference] }
        set {
            pins[reference] = newValue
            save()
        }
    }

    private func save() {
        guard let file else { return }
        let keyed = Dictionary(uniqueKeysWithValues: pins.map { (String(format: "%02X", $0.key), $0.value) })
        guard let data = try? JSONEncoder().encode(keyed) else { return }
        let temporary = file.appendingPathExtension("tmp")
        if (try? data.write(to: temporary)) != nil { _ = rename(temporary.path, file.path) }
    }
}
