import CoSigner
// tamga-bench — in-process timings for bench/ scripts (not installed).
//   tamga-bench card-sign READER RUNS PIN2   time IDCardSigner.sign(digest:) per signature;
//                                            prints one line per run: seconds
//   tamga-bench pkcs11-sign MODULE LABEL KEY-ID PIN RUNS
//                                            module load, first signature (with login), then
//                                            RUNS signatures through PKCS11Signer and RUNS raw
//                                            C_SignInit+C_Sign on the same key, interleaved in
//                                            blocks; prints "name seconds" lines
//   tamga-bench cosigner URL DB RUNS [KEY]    against a running co-signer: enrollment, approve
//                                            latency, 8-client throughput (DB a file or a
//                                            postgresql:// URI; KEY defaults to DB.key)
//                                            TAMGA_BENCH_WATCH="name=pid …" adds the CPU
//                                            seconds per signature of those processes, of
//                                            this one and of the whole machine in the
//                                            throughput phase ("cpu-NAME seconds" lines)
//   tamga-bench threshold RUNS                enrollment and signing between both parties,
//                                            in process; prints "name seconds" lines
import Foundation
import IDCard
import PKCS11
import TamgaCore
import Threshold

struct FixedPIN: PINProvider {
    let pin: String
    func pin(for request: PINRequest) async throws -> SecretBytes { SecretBytes(Array(pin.utf8)) }
}

struct FixedTokenPIN: TokenPINProvider {
    let pin: String
    func pin(for request: TokenPINRequest) async throws -> SecretBytes { SecretBytes(Array(pin.utf8)) }
}

func seconds(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

@concurrent func measurePKCS11(
    module path: String, label: String, keyID: String, pin: String, runs: Int
) async throws -> [String] {
    var lines: [String] = []
    var start = DispatchTime.now().uptimeNanoseconds
    let modules = try PKCS11Tokens.modules(path: path)
    let token = try PKCS11Tokens.choose(label: label, in: modules)
    lines.append("module-load \(seconds(since: start))")
    let id = stride(from: 0, to: keyID.count, by: 2).map { UInt8(keyID.dropFirst($0).prefix(2), radix: 16)! }
    let signer = try PKCS11Signer(token: token, keyID: id, pinProvider: FixedTokenPIN(pin: pin))
    let digest = Digest.compute(signer.algorithm.digest, over: Data("tamga bench".utf8))
    start = DispatchTime.now().uptimeNanoseconds
    _ = try await signer.sign(digest: digest)
    lines.append("first-signature-with-login \(seconds(since: start))")
    // The raw loop: the same session state (the token is logged in for the whole process).
    let session = try token.module.openSession(token.slot)
    guard let key = try session.objects().keys.first(where: { $0.id == id }) else {
        throw PKCS11Error.keyNotFound(token: label, id: keyID)
    }
    guard signer.algorithm.isECDSA else { throw PKCS11Error.unsupportedKey("the bench compares ECDSA keys") }
    let input = Array(digest.bytes)
    let block = max(1, runs / 10)
    var done = 0
    while done < runs {
        let count = min(block, runs - done)
        for _ in 0..<count {
            start = DispatchTime.now().uptimeNanoseconds
            _ = try await signer.sign(digest: digest)
            lines.append("signer \(seconds(since: start))")
        }
        for _ in 0..<count {
            start = DispatchTime.now().uptimeNanoseconds
            _ = try session.signRaw(input, key: key, mechanism: .ecdsa)
            lines.append("raw \(seconds(since: start))")
        }
        done += count
    }
    return lines
}

/// Enrollment and signing between both parties in this process (no network): one line per run,
/// "enroll SECONDS" or "sign SECONDS" / "sign-pool SECONDS", plus the floor (one CRT decryption).
@concurrent func measureThreshold(runs: Int) async throws -> [String] {
    var lines: [String] = []
    let random = SystemRandom()
    let clientPID = Transcript.taggedHash("bench", [Array("client".utf8)]),
        serverPID = Transcript.taggedHash("bench", [Array("server".utf8)])
    let ringPedersen = try RingPedersenSecret.generate(random: random)
    let server = try ServerParty(pid: serverPID, ringPedersen: ringPedersen)
    var share: (ClientKeyShare, ServerKeyShare)? = nil
    var pin: [UInt8]? = nil
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        let client = try ClientEnrollment(pid: clientPID, pinnedRingPedersen: pin)
        let complete = try client.complete(server.enrollInit(client.initRequest))
        let (response, serverShare) = try server.enrollComplete(clientNonce: client.initRequest.clientNonce, complete)
        share = (try client.finish(response), serverShare)
        lines.append("\(pin == nil ? "enroll-first-contact" : "enroll") \(seconds(since: start))")
        pin = server.ringPedersenFingerprint
    }
    guard let (clientShare, serverShare) = share else { return lines }
    // What each enrollment proof costs its prover (the device) and its verifier (the co-signer),
    // on the enrolled key and the server's parameters (so that what Π^mod and Π^fac add shows).
    func time(_ name: String, _ work: () throws -> Void) rethrows {
        let start = DispatchTime.now().uptimeNanoseconds
        try work()
        lines.append("\(name) \(seconds(since: start))")
    }
    let sid = Transcript.taggedHash("bench", [Array("sid".utf8)])
    let key = clientShare.secretKey, n = key.publicKey.n
    for _ in 0..<runs {
        var blum: PaillierBlumProof?, fac: NoSmallFactorProof?, nProof: PaillierModulusProof?
        try time("pimod-prove") { blum = try PaillierBlumProof.prove(secretKey: key, sid: sid, random: random) }
        try time("pimod-verify") { try blum?.verify(n: n, sid: sid) }
        try time("pifac-prove") {
            fac = try NoSmallFactorProof.prove(
                n0: n, p: key.p, q: key.q, ringPedersen: ringPedersen.parameters, sid: sid, pid: clientPID,
                random: random)
        }
        try time("pifac-verify") {
            try fac?.verify(n0: n, ringPedersen: ringPedersen.parameters, sid: sid, pid: clientPID)
        }
        try time("nicorrectkey-prove") { nProof = try PaillierModulusProof.prove(secretKey: key, sid: sid) }
        try time("nicorrectkey-verify") { try nProof?.verify(n: n, sid: sid) }
    }
    /// One whole signature, both parties in process: commit, prove, finish.
    func sign(_ label: String) throws -> Double {
        let digest = Array(Digest.compute(.sha256, over: Data(label.utf8)).bytes)
        let start = DispatchTime.now().uptimeNanoseconds
        let signing = try ClientSigning(share: clientShare.publicShare, digest: digest, guard: NoGuard())
        let prove = try signing.prove(server.signCommit(serverShare, signing.commitRequest))
        let c3 = try server.signProve(serverShare, prove)
        let signature = try signing.finish(c3, secretKey: clientShare.secretKey)
        _ = try server.signFinish(serverShare, .init(signature: signature))
        return seconds(since: start)
    }
    for index in 0..<runs { lines.append("sign \(try sign("bench \(index)"))") }
    try serverShare.pool.fill(runs, random: random)
    for index in 0..<runs { lines.append("sign-pool \(try sign("pool \(index)"))") }
    let c = try clientShare.secretKey.publicKey.encrypt(BigInt(UInt(12345)), random: random, label: "bench")
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try clientShare.secretKey.decrypt(c)
        lines.append("decrypt \(seconds(since: start))")
    }
    return lines
}

/// Against a running `tamga cosigner serve` (URL, its database file): enrollment latency, the
/// device's approve latency (commit → prove → finish), and sustained signatures per second with
/// 8 concurrent clients. Prints "name value" lines.
@concurrent func measureCoSigner(url: URL, database: String, key: String, runs: Int) async throws -> [String] {
    var lines: [String] = []
    let store = try CoSignerStore(url: database, serverKey: CoSignerStore.serverKey(file: key))
    let apiKey = try store.addRelyingParty(name: "bench \(UUID().uuidString.prefix(8))")
    let client = ThresholdClient(server: url)
    /// Each simulated device has its own device key (in memory: a throwaway file) and client.
    func enroll(_ document: String) async throws -> (ClientKeyShare, String, ThresholdClient) {
        let code = try store.issueEnrollmentCode(documentNumber: document)
        let keyFile = NSTemporaryDirectory() + "tamga-bench-device-\(UUID().uuidString).key"
        defer { unlink(keyFile) }
        let device = ThresholdClient(server: url, attestation: DeviceAttestation(key: try DeviceKey(file: keyFile)))
        let (share, registration) = try await device.enrollShare(
            code: code, role: .sign, clientPID: Transcript.taggedHash("bench", [Array(document.utf8)]))
        return (share, registration.deviceToken, device)
    }
    var devices: [(ClientKeyShare, String, ThresholdClient)] = []
    for index in 0..<8 {
        let start = DispatchTime.now().uptimeNanoseconds
        devices.append(try await enroll("bench-\(UUID().uuidString)-\(index)"))
        lines.append("enroll \(seconds(since: start))")
    }
    func signOnce(_ device: (ClientKeyShare, String, ThresholdClient), _ label: String) async throws -> Double {
        let digest = Array(Digest.compute(.sha256, over: Data(label.utf8)).bytes)
        let session = try await client.call(
            "POST", "v3/rp/session",
            ["keyID": WireFormat.hex(device.0.keyID), "digest": WireFormat.hex(digest), "displayText": label],
            apiKey: apiKey)
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try await device.2.approve(
            sessionID: session["sessionID"] as? String ?? "", digest: digest, share: device.0.publicShare,
            token: device.1, guard: NoGuard()
        ) { device.0.secretKey }
        return seconds(since: start)
    }
    for index in 0..<runs { lines.append("approve \(try await signOnce(devices[0], "approve \(index)"))") }
    lines += try await measurePINUnlock(devices[0], runs: runs)
    let total = 500
    let watched = CPUWatch(ProcessInfo.processInfo.environment["TAMGA_BENCH_WATCH"] ?? "")
    let before = watched.sample()
    let start = DispatchTime.now().uptimeNanoseconds
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (index, device) in devices.enumerated() {
            group.addTask {
                for n in 0..<(total / 8 + (index < total % 8 ? 1 : 0)) {
                    _ = try await signOnce(device, "load \(index) \(n)")
                }
            }
        }
        try await group.waitForAll()
    }
    lines.append("throughput \(Double(total) / seconds(since: start))")
    for (name, seconds) in watched.sample().difference(from: before) {
        lines.append("cpu-\(name) \(seconds / Double(total))")
    }
    return lines
}

/// CPU time (user + system) of named processes, of this process and of the whole machine, read
/// from /proc: where a phase's CPU went, for the bench scripts' breakdowns (Linux only).
struct CPUWatch {
    struct Sample {
        var seconds: [(String, Double)]
        func difference(from earlier: Sample) -> [(String, Double)] {
            zip(seconds, earlier.seconds).map { ($0.0, $0.1 - $1.1) }
        }
    }
    let processes: [(name: String, pid: String)]
    init(_ specification: String) {
        processes = specification.split(separator: " ").compactMap { item in
            let parts = item.split(separator: "=", maxSplits: 1)
            return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
        }
    }
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
    /// utime + stime of one process (fields 14 and 15 of /proc/PID/stat, counted after the
    /// command name's closing parenthesis); 0 when it is gone.
    static func processSeconds(_ pid: String) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / ticksPerSecond
    }
    /// Busy time of all CPUs (everything in /proc/stat's first line but idle and iowait).
    static func machineSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let first = stat.split(separator: "\n").first
        else { return 0 }
        let values = first.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard values.count > 4 else { return 0 }
        return (values.reduce(0, +) - values[3] - values[4]) / ticksPerSecond
    }
    func sample() -> Sample {
        guard !processes.isEmpty else { return Sample(seconds: []) }
        return Sample(
            seconds: processes.map { ($0.name, Self.processSeconds($0.pid)) }
                + [("client", Self.processSeconds("self")), ("machine", Self.machineSeconds())])
    }
}

/// The PIN at unlock (docs/threshold-pin.md): the device's share sealed under a PIN hardened by
/// the co-signer, then opened `runs` times. `pin-unlock` is the whole unlock (PBKDF2, the OPRF
/// round trip, the share's checks, the confirmation); `pin-evaluate` (blind, the co-signer's
/// evaluation over HTTP, finalize) and `pin-confirm` (the proof's round trip) are its two round
/// trips, done by hand with the same public API.
func measurePINUnlock(_ device: (ClientKeyShare, String, ThresholdClient), runs: Int) async throws -> [String] {
    var lines: [String] = []
    let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
        "tamga-bench-pin-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let store = try ShareKeyStore(account: "bench", root: root)
    let hardening = CoSignerPINHardening(client: device.2, token: device.1)
    let pin = SecretBytes(Array("24680".utf8))
    try await store.store(device.0, role: .sign, pin: pin, hardening: hardening)
    let salt = Array(try Data(contentsOf: store.folder.appendingPathComponent("sign.share")).dropFirst().prefix(16))
    let input = PINKeys.oprfInput(pin: pin, account: "bench", role: .sign, keyID: device.0.keyID)
    for _ in 0..<runs {
        var start = DispatchTime.now().uptimeNanoseconds
        _ = try await store.unlock(.sign, pin: pin, hardening: hardening)
        lines.append("pin-unlock \(seconds(since: start))")
        start = DispatchTime.now().uptimeNanoseconds
        let blinded = try OPRF.blind(input, random: SystemRandom())
        let answer = try await hardening.evaluate(.init(keyID: device.0.keyID, blinded: blinded.element))
        let hardened = try OPRF.finalize(input, blind: blinded.blind, evaluated: answer.evaluated)
        lines.append("pin-evaluate \(seconds(since: start))")
        var keys = try PINKeys.derive(pin: pin, salt: salt, hardened: hardened)
        start = DispatchTime.now().uptimeNanoseconds
        try await hardening.confirm(
            .init(
                keyID: device.0.keyID, attempt: answer.attempt,
                proof: PINKeys.proof(authKey: keys.authKey, keyID: device.0.keyID, attempt: answer.attempt),
                verifier: nil))
        lines.append("pin-confirm \(seconds(since: start))")
        keys.erase()
    }
    return lines
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "cosigner", arguments.count == 4 || arguments.count == 5, let url = URL(string: arguments[1]),
    let runs = Int(arguments[3])
{
    let key = arguments.count == 5 ? arguments[4] : arguments[2] + ".key"
    for line in try await measureCoSigner(url: url, database: arguments[2], key: key, runs: runs) { print(line) }
    exit(0)
}
if arguments.first == "threshold", arguments.count == 2, let runs = Int(arguments[1]) {
    for line in try await measureThreshold(runs: runs) { print(line) }
    exit(0)
}
if arguments.first == "pkcs11-sign" {
    guard arguments.count == 6, let runs = Int(arguments[5]) else {
        FileHandle.standardError.write(Data("usage: tamga-bench pkcs11-sign MODULE LABEL KEY-ID PIN RUNS\n".utf8))
        exit(2)
    }
    for line in try await measurePKCS11(
        module: arguments[1], label: arguments[2], keyID: arguments[3], pin: arguments[4], runs: runs)
    { print(line) }
    exit(0)
}
guard arguments.count == 4, arguments[0] == "card-sign", let runs = Int(arguments[2]) else {
    FileHandle.standardError.write(
        Data("usage: tamga-bench card-sign READER RUNS PIN2 | pkcs11-sign MODULE LABEL KEY-ID PIN RUNS\n".utf8))
    exit(2)
}
/// The timing loop runs off the main actor, on the executor `sign` itself runs on, so the
/// harness adds no thread hops of its own between two signatures; times are printed at the end.
@concurrent func measure(reader: String, runs: Int, pin: String) async throws -> [Double] {
    let signer = try IDCardSigner(reader: reader, pinProvider: FixedPIN(pin: pin))
    let digest = Digest.compute(signer.algorithm.digest, over: Data("tamga bench".utf8))
    var times: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try await signer.sign(digest: digest)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return times
}
for time in try await measure(reader: arguments[1], runs: runs, pin: arguments[3]) { print(time) }

/// The benchmarks time the protocol, not the device's terminal-abort file: a share guard that
/// keeps no state (never outside a benchmark).
struct NoGuard: ShareGuard {
    func isLocked() throws -> Bool { false }
    func markInFlight() throws {}
    func clearInFlight() throws {}
    func lock() throws {}
    func reset() throws {}
}
