import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// Where a PIN or password comes from, in order: `--pin-file FILE`, the `TAMGA_PIN`
/// environment variable, or a prompt on the controlling terminal with echo off.
/// The secret is asked once; tamga never retries a PIN on the user's behalf.
struct SecretInput {
    let pinFile: String?
    let environment: [String: String]
    static let environmentVariable = "TAMGA_PIN"

    enum Failure: Error, CustomStringConvertible {
        case cancelled, noTerminal, unreadable(String), mismatch
        var description: String {
            switch self {
            case .cancelled: "Cancelled at the PIN prompt; nothing was signed."
            case .noTerminal:
                "A PIN or password is needed but there is no terminal to ask on: use --pin-file FILE or TAMGA_PIN."
            case .unreadable(let path): "Cannot read the PIN file \(path)."
            case .mismatch: "The two new PINs differ; nothing was changed."
            }
        }
    }

    func read(prompt: String) throws -> SecretBytes {
        if let pinFile {
            // read(2) rather than a file API that wants a regular file: process substitution
            // (/dev/fd/N) is a pipe; "-" is standard input, as for most tools.
            guard var bytes = Self.readSecretFile(pinFile) else { throw Failure.unreadable(pinFile) }
            // One trailing newline is the file's line end, not part of the PIN.
            if bytes.last == 0x0A { bytes.removeLast() }
            if bytes.last == 0x0D { bytes.removeLast() }
            return SecretBytes(consuming: &bytes)
        }
        if let value = environment[Self.environmentVariable] {
            var bytes = Array(value.utf8)
            return SecretBytes(consuming: &bytes)
        }
        return try promptWithoutEcho(prompt)
    }

    /// The most a PIN file may hold: two PINs or a password with their line ends, far below it.
    static let maximumFileSize = 4096

    /// The bytes of a PIN file (or standard input for `-`), read into one buffer that is wiped
    /// before it is freed; nil when it cannot be read or is larger than `maximumFileSize`.
    static func readSecretFile(_ path: String) -> [UInt8]? {
        let descriptor = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { if descriptor != 0 { close(descriptor) } }
        var buffer = [UInt8](repeating: 0, count: maximumFileSize + 1)
        defer { buffer.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
        var filled = 0
        while filled < buffer.count {
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return Glibc.read(descriptor, base + filled, raw.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            filled += count
        }
        guard filled <= maximumFileSize else { return nil }
        return Array(buffer[0..<filled])
    }

    /// A new secret (a PIN being set): from `--pin-file` or `TAMGA_PIN` as usual, or asked twice
    /// on the terminal; the two must match.
    func readNew(prompt: String) throws -> SecretBytes {
        if pinFile != nil || environment[Self.environmentVariable] != nil { return try read(prompt: prompt) }
        let new = try promptWithoutEcho(prompt)
        let again = try promptWithoutEcho("Repeat it: ")
        guard new.withUnsafeBytes({ a in again.withUnsafeBytes { b in a.elementsEqual(b) } }) else {
            throw Failure.mismatch
        }
        return new
    }

    static let newPINEnvironmentVariable = "TAMGA_NEW_PIN"

    /// A current secret and a new one, for PIN changes: `--pin-file` holds two lines (current,
    /// new), or `TAMGA_PIN` and `TAMGA_NEW_PIN`, or three prompts (current, new, new again; the
    /// two new ones must match or nothing is sent).
    func readChange(currentPrompt: String, newPrompt: String) throws -> (current: SecretBytes, new: SecretBytes) {
        if let pinFile {
            let both = try read(prompt: currentPrompt)
            return try both.withUnsafeBytes { raw in
                let lines = raw.split(separator: 0x0A, omittingEmptySubsequences: false).map { line -> [UInt8] in
                    var bytes = Array(line)
                    if bytes.last == 0x0D { bytes.removeLast() }
                    return bytes
                }
                guard lines.count == 2 else {
                    throw Failure.unreadable("\(pinFile) (it must hold two lines: the current PIN, then the new one)")
                }
                var current = lines[0], new = lines[1]
                return (SecretBytes(consuming: &current), SecretBytes(consuming: &new))
            }
        }
        if let current = environment[Self.environmentVariable], let new = environment[Self.newPINEnvironmentVariable] {
            var a = Array(current.utf8), b = Array(new.utf8)
            return (SecretBytes(consuming: &a), SecretBytes(consuming: &b))
        }
        let current = try promptWithoutEcho(currentPrompt)
        let new = try promptWithoutEcho(newPrompt)
        let again = try promptWithoutEcho("Repeat the new one: ")
        let same = new.withUnsafeBytes { a in again.withUnsafeBytes { b in a.elementsEqual(b) } }
        guard same else { throw Failure.mismatch }
        return (current, new)
    }

    /// Asks on the terminal which of `choices` to use; nil when there is no terminal.
    func choose(_ question: String, from choices: [String]) throws -> String? {
        guard pinFile == nil, environment[Self.environmentVariable] == nil else { return nil }
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var text = question + "\n"
        for (index, choice) in choices.enumerated() { text += "  \(index + 1)) \(choice)\n" }
        text += "Number (Enter cancels): "
        _ = text.withCString { write(fd, $0, strlen($0)) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(fd, &byte, 1) == 1, byte != 0x0A { line.append(byte) }
        guard let number = Int(String(decoding: line, as: UTF8.self).trimmedSpaces()),
            choices.indices.contains(number - 1)
        else { throw Failure.cancelled }
        return choices[number - 1]
    }

    private func promptWithoutEcho(_ prompt: String) throws -> SecretBytes {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure.noTerminal }
        defer { close(fd) }
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else { throw Failure.noTerminal }
        var silent = original
        // No echo; and no signals from the keyboard, so Ctrl-C arrives as a byte we handle
        // (restoring the terminal) instead of killing tamga with echo still off.
        // Byte at a time (no line editing): tamga handles Enter, backspace, Ctrl-C and Ctrl-D itself.
        silent.c_lflag &= ~tcflag_t(ECHO | ISIG | ICANON)
        withUnsafeMutableBytes(of: &silent.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        TerminalRestore.save(fd: fd, settings: original)
        defer { TerminalRestore.clear() }
        // Echo goes off (and type-ahead is discarded) before the prompt appears, as getpass does,
        // so nothing typed after the prompt can ever be shown.
        tcsetattr(fd, TCSAFLUSH, &silent)
        defer { tcsetattr(fd, TCSAFLUSH, &original) }
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1024)  // no reallocation, so no stray copies of the secret
        defer { wipe(&buffer) }
        var byte: UInt8 = 0
        while true {
            let n = Glibc.read(fd, &byte, 1)
            if n <= 0 { throw Failure.cancelled }  // EOF (Ctrl-D) or error
            if byte == 0x0A || byte == 0x0D {
                _ = write(fd, "\n", 1)
                break
            }
            if byte == 0x03 || byte == 0x04 { throw Failure.cancelled }  // Ctrl-C, Ctrl-D
            if byte == 0x7F || byte == 0x08 {
                if !buffer.isEmpty {
                    buffer[buffer.count - 1] = 0
                    buffer.removeLast()
                }
                continue
            }
            guard buffer.count < 1024 else { throw Failure.unreadable("the terminal (input too long)") }
            buffer.append(byte)
        }
        byte = 0
        return SecretBytes(buffer)
    }
}

/// The terminal settings to put back if tamga is interrupted while a prompt has echo off.
enum TerminalRestore {
    private static let lock = Lock()
    nonisolated(unsafe) private static var saved: (Int32, termios)?  // guarded by `lock`

    static func save(fd: Int32, settings: termios) { lock.withLock { saved = (fd, settings) } }
    static func clear() { lock.withLock { saved = nil } }
    /// Called by the interrupt handler.
    static func restore() {
        lock.withLock {
            if let (fd, original) = saved {
                var settings = original
                tcsetattr(fd, TCSANOW, &settings)
            }
        }
    }
}
