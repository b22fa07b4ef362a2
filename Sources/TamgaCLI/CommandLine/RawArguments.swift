import FoundationEssentials
import Glibc
import TamgaSupport

#if canImport(Glibc)
import Glibc
#endif

/// The command line as the kernel gave it: bytes. Swift decodes `argv` as UTF-8 and replaces
/// what is not (a file name with byte 0xFF, from an old Latin-1 archive) with U+FFFD, which
/// names no file: `tamga verify` of such a file said "no such file", and `container create`
/// of such a name wrote a file under another name. A path that is not UTF-8 is reached here
/// through a descriptor instead: its folder (`/proc/self/fd/N/NAME`, which writes beside the
/// file also work in) when only the folder's name is not UTF-8, else the file itself
/// (`/proc/self/fd/N`, for reading). What is printed shows the original name with each
/// byte that is not UTF-8 as `\xFF`.
enum RawArguments {
    struct Substitute {
        /// The original, each byte that is not UTF-8 written `\xFF`.
        let shown: String
        /// The last path segment as a data file name (U+FFFD for such bytes: ZIP names are UTF-8).
        let fileName: String
    }

    /// Linux's O_PATH (a descriptor that only names a file), which Glibc's Swift overlay leaves
    /// out (it is _GNU_SOURCE).
    private static let openPathOnly: Int32 = 0o10000000

    private static let lock = Lock()
    nonisolated(unsafe) private static var substitutes: [String: Substitute] = [:]  // guarded by `lock`
    /// Lossy decodings of arguments that are not UTF-8 and name nothing, with how to show them.
    nonisolated(unsafe) private static var unusable: [String: String] = [:]  // guarded by `lock`

    /// Why `words` cannot be run, when one of them is neither UTF-8 nor an existing path.
    static func refusal(_ words: [String]) -> String? {
        let table = lock.withLock { unusable }
        guard !table.isEmpty else { return nil }  // the usual case: every argument was UTF-8
        guard let word = words.first(where: { table[$0] != nil }), let shown = table[word] else { return nil }
        return "\(shown) is not UTF-8 and names no existing file: tamga reads text as UTF-8 and cannot create a file "
            + "under such a name (give the new file a UTF-8 name; existing files and folders with such names are found)"
    }

    /// The arguments of this process, each byte string that is not UTF-8 replaced as above.
    static func processArguments() -> [String] {
        (0..<Int(CommandLine.argc)).map { index in
            guard let pointer = CommandLine.unsafeArgv[index] else { return "" }
            return decode(
                Array(
                    UnsafeBufferPointer(
                        start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                        count: strlen(pointer))))
        }
    }

    /// One argument: itself when it is UTF-8; a descriptor path when it names an existing file or
    /// a file in an existing folder; else (text, or a new file whose own name is not UTF-8) the
    /// lossy decoding, which a command refusing or mis-naming is no worse than before.
    static func decode(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        let lossy = String(decoding: bytes, as: UTF8.self)
        let slash = bytes.lastIndex(of: 0x2F)
        let folder = slash.map { $0 == 0 ? [0x2F] : Array(bytes[..<$0]) } ?? [0x2E]
        let name = slash.map { Array(bytes[($0 + 1)...]) } ?? bytes
        let fileName = String(decoding: name, as: UTF8.self)
        if let validName = String(validating: name, as: UTF8.self), !validName.isEmpty {
            // Only the folder's name is not UTF-8: its descriptor stands for it, so the file and
            // the temporary and lock files written beside it are reached by their own names.
            guard let fd = open(folder, openPathOnly | O_DIRECTORY | O_CLOEXEC), fd >= 0 else { return lossy }
            return register("/proc/self/fd/\(fd)/\(validName)", Substitute(shown: shown(bytes), fileName: validName))
        }
        guard let fd = open(bytes, openPathOnly | O_CLOEXEC), fd >= 0 else {
            // Text, or a file to create: neither can be had under this name (a new file would be
            // named with U+FFFD instead). Commands refuse it (`refusal`).
            lock.withLock { unusable[lossy] = shown(bytes) }
            return lossy
        }
        return register("/proc/self/fd/\(fd)", Substitute(shown: shown(bytes), fileName: fileName))
    }

    private static func open(_ path: [UInt8], _ flags: Int32) -> Int32? {
        (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.baseAddress.map { Glibc.open(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self), flags) }
        }
    }

    private static func register(_ path: String, _ substitute: Substitute) -> String {
        lock.withLock { substitutes[path] = substitute }
        return path
    }

    /// `bytes` as text, each byte of an invalid UTF-8 sequence as `\xHH` (and a backslash
    /// doubled, so that the escape cannot be forged by a name).
    static func shown(_ bytes: [UInt8]) -> String {
        var out = ""
        var index = 0
        while index < bytes.count {
            // The longest valid UTF-8 sequence starting here (1–4 bytes), else one raw byte.
            var taken = false
            for length in 1...4 where index + length <= bytes.count {
                if let text = String(validating: bytes[index..<(index + length)], as: UTF8.self) {
                    out += text == "\\" ? "\\\\" : text
                    index += length
                    taken = true
                    break
                }
            }
            if !taken {
                out += "\\x" + String(bytes[index], radix: 16, uppercase: true).leftPadded(to: 2)
                index += 1
            }
        }
        return out
    }

    /// The data file name for a path given on the command line, when it stands for another name.
    static func fileName(for path: String) -> String? { lock.withLock { substitutes[path]?.fileName } }

    /// `text` with every descriptor path put back as the name the user typed (escaped).
    static func restoringNames(_ text: String, json: Bool = false) -> String {
        let table = lock.withLock { substitutes }
        guard !table.isEmpty, text.contains("/proc/self/fd/") else { return text }
        var result = text
        // Longest first: /proc/self/fd/5/a.asice before /proc/self/fd/5.
        for (path, substitute) in table.sorted(by: { $0.key.count > $1.key.count }) {
            let shown = json ? substitute.shown.replacingAll("\\", with: "\\\\") : substitute.shown
            result = result.replacingAll(path, with: shown)
        }
        return result
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
