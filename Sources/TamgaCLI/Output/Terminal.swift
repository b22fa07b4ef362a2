import ASiC
import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

#if canImport(Glibc)
import Glibc
#endif

/// Where output goes. Tests capture it; the binary writes to the real streams.
public final class Terminal: @unchecked Sendable {  // unchecked: written from one task at a time
    private let writeOut: (String) -> Void
    private let writeErr: (String) -> Void
    /// True when stderr is a terminal: only then is progress drawn.
    let interactiveErrors: Bool

    public init(out: @escaping (String) -> Void, err: @escaping (String) -> Void, interactiveErrors: Bool) {
        writeOut = out
        writeErr = err
        self.interactiveErrors = interactiveErrors
    }

    /// The process's stdout and stderr.
    public static func standard() -> Terminal {
        Terminal(
            out: { FileDescriptorOutput.write($0, to: FileDescriptorOutput.standardOutput) },
            err: { FileDescriptorOutput.write($0, to: FileDescriptorOutput.standardError) },
            interactiveErrors: isatty(2) == 1)
    }

    // Paths given as bytes that are not UTF-8 are printed as typed (RawArguments), not as the
    // descriptor paths that stand for them.
    func line(_ text: String = "") { writeOut(RawArguments.restoringNames(text) + "\n") }
    func error(_ text: String) { writeErr(RawArguments.restoringNames(text) + "\n") }
    /// A self-overwriting status line on stderr (only call when `interactiveErrors`); "" clears it.
    func status(_ text: String) { writeErr("\r\u{1B}[K" + text) }

    func json<T: Encodable>(_ value: T) {
        writeJSON((try? Self.encodedJSON(value)) ?? Data("{}".utf8))
    }

    /// What `json` prints for `value`: pretty-printed, keys sorted, `/` as it is (also the input
    /// of `compare --report`, which must read what `--json` shows).
    static func encodedJSON<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return collapsingEmptyCollections(try encoder.encode(value))
    }

    /// `[]` and `{}` for the empty arrays and objects that the pretty-printer writes over three
    /// lines (`[\n\n  ]`). Only outside strings, whose line breaks are escapes.
    static func collapsingEmptyCollections(_ json: Data) -> Data {
        let bytes = [UInt8](json)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0, inString = false
        while index < bytes.count {
            let byte = bytes[index]
            output.append(byte)
            index += 1
            if inString {
                if byte == UInt8(ascii: "\\"), index < bytes.count {
                    output.append(bytes[index])
                    index += 1
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = true
                continue
            }
            guard byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") else { continue }
            var next = index
            while next < bytes.count,
                [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains(bytes[next])
            { next += 1 }
            if next < bytes.count, bytes[next] == (byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")) {
                output.append(bytes[next])
                index = next + 1
            }
        }
        return Data(output)
    }

    /// JSON text out on stdout: terminal-safe, with the names given as bytes restored.
    private func writeJSON<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        writeOut(
            RawArguments.restoringNames(Self.terminalSafeJSON(String(decoding: bytes, as: UTF8.self)), json: true)
                + "\n")
    }

    /// A typed JSON tree (`JSON.Value`) written as `json` writes an Encodable: pretty-printed,
    /// keys sorted. For what must answer fast (`readers`): it needs none of the Codable
    /// machinery's generic metadata, nor the dynamic casts of an `Any` tree, which a short
    /// command otherwise spends a good part of its time building at its first JSON output.
    func json(_ value: JSON.Value) {
        writeJSON(
            Self.collapsingEmptyCollections(Data(JSON.data(value, options: [.prettyPrinted, .withoutEscapingSlashes]))))
    }

    /// One compact JSON object on one line (for streams of events).
    func jsonLine<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        writeJSON((try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    /// JSON with the characters `TerminalText.isUnsafe` names written as `\uXXXX`. The encoder
    /// escapes C0 controls but passes DEL, C1 controls and bidirectional overrides through raw,
    /// which rearrange the JSON on a screen; as escapes the decoded strings stay exactly the
    /// same. (They can only occur inside strings, and all of them are in the BMP.)
    static func terminalSafeJSON(_ json: String) -> String {
        // Only DEL, C1 and the bidirectional and separator characters are escaped here (the C0
        // ones are escaped by the encoder, or are the layout's own line ends), and all of them are
        // ≥ 0x7F: plain ASCII, the usual case, is returned as it is without a scalar loop.
        if json.utf8.allSatisfy({ $0 < 0x7F }) { return json }
        guard json.unicodeScalars.contains(where: { TerminalText.isUnsafe($0) && $0.value > 0x1F }) else { return json }
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if TerminalText.isUnsafe(scalar) && scalar.value > 0x1F {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out.append(
                    contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// This terminal, printing each line through `TamgaCommandLine.printable`: for reports that
    /// quote a container (names, ids, signer names, findings).
    var escaping: EscapingLines { EscapingLines(terminal: self) }

    struct EscapingLines {
        let terminal: Terminal
        func line(_ text: String = "") { terminal.line(TamgaCommandLine.printable(text)) }
    }

    /// A progress handler drawing one self-overwriting line on stderr, or nil when stderr is not
    /// a terminal or the user asked for quiet.
    func progress(quiet: Bool) -> ProgressHandler? {
        guard interactiveErrors, !quiet else { return nil }
        var lastShown = -1
        var lastItem = ""
        let write = writeErr
        return { event in
            guard event.total >= 8 << 20 else { return }  // small files finish before a bar helps
            let percent = Int(event.completed * 100 / max(event.total, 1))
            if percent == lastShown && event.item == lastItem { return }
            lastShown = percent
            lastItem = event.item
            let line =
                "\r\(event.phase.rawValue) \(TerminalText.escaped(event.item)): \(percent)% (\(ByteCount.format(event.completed)) of \(ByteCount.format(event.total)))"
            write(line + (event.completed == event.total ? "\n" : ""))
        }
    }
}

enum ByteCount {
    static func format(_ bytes: UInt64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : NumberText.fixed(value, digits: 1) + " " + units[unit]
    }
}
