import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A private pcscd (on its own socket, via `scripts/pcscd-launch.py`) with vpcd readers and
/// `tamga-vcard` virtual cards on 127.0.0.1, started for a test and stopped by PID.
/// Clients reach it with `PCSCLITE_CSOCK_NAME`, which `environment` holds; in-process tests
/// call `use()` to point this process's PC/SC client at it.
public final class PCSCRig: @unchecked Sendable {  // unchecked: immutable after start; stop() is idempotent
    public struct ReaderSpec {
        public let name: String
        /// One entry per slot (vpcd gives each reader.conf entry two): a tamga-vcard profile, or nil
        /// for an empty slot; a `+t0` suffix runs the card in T=0 style (61xx/GET RESPONSE).
        public let cards: [String?]
        public init(name: String, cards: [String?]) {
            self.name = name
            self.cards = cards
        }
    }

    public static let socketPath = FileManager.default.temporaryDirectory.appendingPathComponent(
        "tamga-pcscd-\(getpid()).comm"
    ).path
    public let folder: URL
    private let basePort: Int
    public let socketPath: String
    private var processes: [Process] = []

    /// - Parameters:
    ///   - readers: reader.conf entries; none gives a pcscd with no readers.
    ///   - startDaemon: false leaves pcscd out (the "service not running" case).
    public init(readers: [ReaderSpec], startDaemon: Bool = true) throws {
        folder = try TestEnvironment.temporaryFolder("pcsc-rig")
        // One socket path per test process: the PC/SC client library reads PCSCLITE_CSOCK_NAME
        // once and keeps it, so every rig in this process must use the same path.
        socketPath = Self.socketPath
        unlink(socketPath)
        let conf = folder.appendingPathComponent("reader.conf.d")
        try FileManager.default.createDirectory(at: conf, withIntermediateDirectories: true)
        // vpcd listens on these ports without SO_REUSEADDR, so its bind fails while any socket
        // holds the port, even one in TIME_WAIT, and then no card can be inserted (CI saw a card
        // wait 10 s for a reader that never listened). So: below the kernel's ephemeral range
        // (32768–60999), where the tests' own outgoing connections never land, and a different
        // block of 20 for each of six rigs in a row in one process, so that a rig's ports are not
        // the ones the rig before it has just closed.
        basePort = 20_000 + (Int(getpid() % 100) * 6 + Self.nextBlock()) * 20
        var cards: [(Int, String)] = []
        for (index, reader) in readers.enumerated() {
            let port = basePort + index * 2
            // One copy of the driver per entry: its slot table is static (docs/design/smartcard.md §5).
            let driver = folder.appendingPathComponent("libifdvpcd-\(index).so").path
            try FileManager.default.copyItem(
                atPath: URL(fileURLWithPath: "/usr/lib/pcsc/drivers/serial/libifdvpcd.so").resolvingSymlinksInPath()
                    .path, toPath: driver)
            try """
            FRIENDLYNAME "\(reader.name)"
            DEVICENAME   /dev/null:0x\(String(port, radix: 16))
            LIBPATH      \(driver)
            CHANNELID    0x\(String(port, radix: 16))

            """.write(to: conf.appendingPathComponent("reader\(index)"), atomically: true, encoding: .utf8)
            cards += reader.cards.enumerated().compactMap { slot, card in card.map { (port + slot, $0) } }
        }
        if startDaemon {
            try start(
                "/usr/bin/python3",
                [
                    TestEnvironment.script("pcscd-launch.py"), socketPath, "--", "/usr/sbin/pcscd", "-f", "-c",
                    conf.path,
                ],
                waitFor: nil)
            // pcscd answers once its socket accepts and the readers are initialised.
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline && !FileManager.default.fileExists(atPath: socketPath) { usleep(50_000) }
            usleep(300_000)
            // Cards connect to vpcd's listening slots: that is inserting them.
            for (port, card) in cards {
                try insertCard(card, port: port)
            }
            if !cards.isEmpty { usleep(1_000_000) }  // pcscd notices a card within about 0.7 s
        }
    }

    private var cardProcesses: [Int: Process] = [:]

    private static let blockLock = NSLock()
    nonisolated(unsafe) private static var rigsStarted = 0
    /// 0…5, one more for each rig this process starts.
    private static func nextBlock() -> Int {
        blockLock.withLock {
            defer { rigsStarted += 1 }
            return rigsStarted % 6
        }
    }

    /// Starts a virtual card in the slot listening on `port` (inserting it). `card` is a
    /// tamga-vcard profile with `+` options: `t0`, `transport` (the transport test applet instead
    /// of the ID-card applet), `pin2-inactive`, `state=FILE` (PIN counters kept in FILE).
    public func insertCard(_ card: String, port: Int) throws {
        let parts = card.split(separator: "+").map(String.init)
        var arguments = ["--port", String(port), "--profile", parts[0]]
        for option in parts.dropFirst() {
            switch option {
            case "t0": arguments.append("--t0")
            case "transport": arguments += ["--applet", "transport"]
            case "pin2-inactive": arguments.append("--pin2-inactive")
            case let state where state.hasPrefix("state="): arguments += ["--state", String(state.dropFirst(6))]
            default:
                throw NSError(
                    domain: "PCSCRig", code: 2,
                    userInfo: [NSLocalizedDescriptionKey: "unknown virtual card option \(option)"])
            }
        }
        cardProcesses[port] = try start(
            TestEnvironment.productsDirectory.appendingPathComponent("tamga-vcard").path,
            arguments, waitFor: "inserted")
    }

    /// Kills the card in the slot on `port` (removing it from the reader).
    public func removeCard(port: Int) {
        guard let process = cardProcesses.removeValue(forKey: port) else { return }
        kill(process.processIdentifier, SIGKILL)
    }

    /// The vpcd port of reader `index` (in the order given), slot `slot`.
    public func port(reader index: Int, slot: Int = 0) -> Int { basePort + index * 2 + slot }

    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PCSCLITE_CSOCK_NAME"] = socketPath
        return environment
    }

    /// Points this process's PC/SC client library at the rig.
    public func use() { setenv("PCSCLITE_CSOCK_NAME", socketPath, 1) }

    @discardableResult
    private func start(_ executable: String, _ arguments: [String], waitFor prefix: String?) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        // A card that cannot start says why on stderr: kept for the error (a file, so that
        // nobody has to drain a pipe while the card runs).
        let errorLog = folder.appendingPathComponent("start-\(processes.count).err")
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        process.standardError = prefix == nil ? FileHandle.nullDevice : try FileHandle(forWritingTo: errorLog)
        try process.run()
        processes.append(process)
        if let prefix {
            let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            guard line.hasPrefix(prefix) else {
                let said = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
                throw NSError(
                    domain: "PCSCRig", code: 1,
                    userInfo: [
                        NSLocalizedDescriptionKey: "\(executable) \(arguments.joined(separator: " ")): \(line)\(said)"
                    ])
            }
        }
        return process
    }

    /// Stops every process the rig started (pcscd first), by PID, and removes its folder.
    public func stop() {
        for process in processes.reversed() { TestEnvironment.terminate(process, grace: 5) }
        processes.removeAll()
        unlink(socketPath)
        TestEnvironment.removeFolder(folder)
    }

    deinit { stop() }
}
