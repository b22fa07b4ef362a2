import FoundationEssentials
import TamgaSupport

/// What the server says about connections, bounded however many there are. libmicrohttpd writes
/// a line per event (an attack probe got 20,347 lines, one per refused connection), and the
/// gate refuses and shuts connections by the thousand under an attack: a log that grows with the
/// attacker's rate fills the disk and hides everything else.
///
/// - libmicrohttpd's lines: the first `repeatsShown` of each shape (the line with its numbers
///   blanked: descriptors, addresses, sizes) in an interval are written, the rest counted; lines
///   about clients closing, resetting or timing out (every slow client the deadline cuts) are
///   not written at all, as before.
/// - The gate's refusals: the first of each kind in an interval is written, with its address.
/// - At the end of each interval in which anything was held back, refused or shut, one summary:
///   `cosigner: 20347 connections refused in the last minute (too-many-connections-from-address
///   20000, proxy-header-missing 347); 1200 shut (1100 past the request deadline, 100 for a new
///   client)` and `cosigner: 512 more lines like "libmicrohttpd: …" in the last minute`.
final class ConnectionLog: @unchecked Sendable {  // unchecked: the counts behind `lock`
    let interval: TimeInterval
    let repeatsShown: Int
    /// Distinct line shapes tracked in one interval; further ones are counted together.
    static let shapesTracked = 32
    private let write: @Sendable (String) -> Void
    private let lock = Lock()
    private var windowStart: Date
    private var shapes: [String: (shown: Int, held: Int, example: String)] = [:]
    private var otherLinesHeld = 0
    private var refusals: [String: Int] = [:]
    private var shutAtDeadline = 0
    private var shutForNewcomers = 0

    init(
        interval: TimeInterval = 60, repeatsShown: Int = 3, now: Date = Date(),
        write: @escaping @Sendable (String) -> Void
    ) {
        self.interval = interval
        self.repeatsShown = repeatsShown
        self.write = write
        windowStart = now
    }

    /// One line from libmicrohttpd's log (or, with `source`, another part of the server's).
    func library(_ line: String, from source: String = "libmicrohttpd", now: Date = Date()) {
        let text = String(
            line.unicodeScalars.prefix(300).filter { $0 != "\n" && $0 != "\r" }.map {
                $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?"
            })
        if text.contains("closed") || text.contains("Connection reset") || text.contains("timed out") { return }
        flush(now: now)
        let shape = source + ": " + Self.shape(of: text)
        let shown: Bool = lock.withLock {
            if var known = shapes[shape] {
                if known.shown < repeatsShown { known.shown += 1 } else { known.held += 1 }
                shapes[shape] = known
                return known.held == 0
            }
            guard shapes.count < Self.shapesTracked else {
                otherLinesHeld += 1
                return false
            }
            shapes[shape] = (1, 0, source + ": " + text)
            return true
        }
        if shown { write(source + ": " + text) }
    }

    /// A connection the gate refused, from `address`.
    func refused(_ refusal: ConnectionRefusal, from address: IPAddress, now: Date = Date()) {
        flush(now: now)
        let first: Bool = lock.withLock {
            refusals[refusal.code, default: 0] += 1
            return refusals[refusal.code] == 1
        }
        if first {
            write(
                "cosigner: refused a connection from \(address): \(refusal.code) (\(refusal.message)); more are counted until the next summary"
            )
        }
    }

    /// Connections shut: past their request deadline, or to let a new client in.
    func shut(atDeadline: Int = 0, forNewcomers: Int = 0, now: Date = Date()) {
        guard atDeadline > 0 || forNewcomers > 0 else { return flush(now: now) }
        lock.withLock {
            shutAtDeadline += atDeadline
            shutForNewcomers += forNewcomers
        }
        flush(now: now)
    }

    /// Writes the interval's summaries once it is over (`force`: now, for the part of one).
    func flush(now: Date = Date(), force: Bool = false) {
        let lines: [String] = lock.withLock {
            let elapsed = now.timeIntervalSince(windowStart)
            guard force || elapsed >= interval else { return [] }
            let span =
                abs(elapsed - 60) < 1 && !force ? "the last minute" : "the last \(max(1, Int(elapsed.rounded()))) s"
            var lines: [String] = []
            let refused = refusals.values.reduce(0, +)
            let shut = shutAtDeadline + shutForNewcomers
            if refused > 0 || shut > 0 {
                var parts: [String] = []
                if refused > 0 {
                    let kinds = refusals.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map {
                        "\($0.key) \($0.value)"
                    }
                    parts.append(
                        "\(refused) connection\(refused == 1 ? "" : "s") refused in \(span) (\(kinds.joined(separator: ", ")))"
                    )
                }
                if shut > 0 {
                    parts.append(
                        "\(shut) shut\(refused == 0 ? " in \(span)" : "") (\(shutAtDeadline) past the request deadline, \(shutForNewcomers) for a new client)"
                    )
                }
                lines.append("cosigner: " + parts.joined(separator: "; "))
            }
            for (_, shape) in shapes.sorted(by: { $0.value.example < $1.value.example }) where shape.held > 0 {
                lines.append(
                    "cosigner: \(shape.held) more line\(shape.held == 1 ? "" : "s") like \"\(shape.example)\" in \(span)"
                )
            }
            if otherLinesHeld > 0 {
                lines.append("cosigner: \(otherLinesHeld) more log lines of other kinds in \(span)")
            }
            windowStart = now
            shapes = [:]
            otherLinesHeld = 0
            refusals = [:]
            shutAtDeadline = 0
            shutForNewcomers = 0
            return lines
        }
        lines.forEach(write)
    }

    /// The line with every run of digits as `N`: lines that differ in a descriptor, an address
    /// or a size are the same kind of line.
    static func shape(of line: String) -> String {
        var result = ""
        var inDigits = false
        for character in line {
            if character.isASCII, character.isNumber {
                if !inDigits { result.append("N") }
                inDigits = true
            } else {
                result.append(character)
                inDigits = false
            }
        }
        return result
    }
}
