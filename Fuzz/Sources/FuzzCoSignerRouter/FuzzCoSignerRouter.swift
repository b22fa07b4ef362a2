import CoSigner
import Foundation
import FuzzSupport
import HTTPService
import TamgaCore
import Threshold

/// The co-signer's request router in process (no socket), over a real SQLite file, behind the
/// operations router: the input
/// picks a route and carries the headers, the query and the body. Any answer is fine; a trap is
/// not.
///
/// Every `/v3/mobile/*` call is attested (a signature by the device key enrolled with the
/// token, over a live nonce and the request), which random bytes never produce: without help no
/// device handler would ever run. So the harness enrolls one real device at start (over
/// loopback, as a phone would), keeps its token and key, opens a few relying-party sessions
/// for it, and lets a flag byte of the input ask for the real token, a valid attestation of
/// exactly the request it sends, the relying party's real API key, or a service with
/// attestation off (as `cosigner serve --no-attestation` would run).
struct Rig {
    /// Attestation required, as deployed.
    let service: CoSignerService
    /// The same database with attestation off.
    let open: CoSignerService
    let device: DeviceAttestation
    let token: String
    let rpKey: String
    /// The enrolled key's id (hex), put where a body says `{k}`.
    let keyID: String
    /// Session ids the routes with `{s}` can name: SIGN sessions, an AUTH session.
    let sessions: [String]
}

extension Rig {
    /// Inputs change the database (sessions opened, PIN tries counted, a key locked by a failed
    /// finish), and the limits then answer 429/423 to everything: every 256 inputs the rig's
    /// sessions go back to PENDING, the others are removed, PIN tries and locks are cleared.
    func resetNow() {
        inputs += 1
        guard inputs % 256 == 0 else { return }
        let database = service.store.database
        let fixed = sessions.map { "'\($0)'" }.joined(separator: ",")
        _ = try? database.execute("DELETE FROM sessions WHERE id NOT IN (\(fixed))")
        _ = try? database.execute("UPDATE sessions SET state = 'PENDING', signature = NULL")
        _ = try? database.execute("UPDATE pin_guards SET unconfirmed = 0, attempt = NULL")
        _ = try? database.execute("UPDATE keys SET locked = 0")
    }
}

nonisolated(unsafe) var inputs = 0  // libFuzzer calls the target from one thread

/// Waits for an async call from the synchronous fuzz callback's start-up.
final class Outcome<T>: @unchecked Sendable {  // unchecked: written once before the semaphore is signalled
    var value: Result<T, Error>?
}

func blocking<T>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Outcome<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do { outcome.value = .success(try await body()) } catch { outcome.value = .failure(error) }
        done.signal()
    }
    done.wait()
    guard let value = outcome.value else { throw CoreError.malformedText(field: "fuzz start-up", reason: "no result") }
    return try value.get()
}

let rig: Rig = {
    do {
        let store = try CoSignerStore(
            path: FuzzSupport.scratch.appendingPathComponent("cosigner.db").path,
            serverKey: [UInt8](repeating: 7, count: 32))
        // The golden transcript's ring-Pedersen primes: generating safe primes takes seconds.
        let transcript =
            try JSONSerialization.jsonObject(with: Data(contentsOf: FuzzSupport.fixture("threshold/transcript.json")))
            as? [String: Any]
        let primes = transcript?["ringPedersen"] as? [String: String]
        guard let p = primes?["p"].flatMap(BigInt.init(hex:)), let q = primes?["q"].flatMap(BigInt.init(hex:)) else {
            throw CoreError.malformedText(
                field: "Fixtures/threshold/transcript.json", reason: "no ring-Pedersen primes")
        }
        let party = try ServerParty(
            pid: Transcript.taggedHash("fuzz", [[1]]),
            ringPedersen: try RingPedersenSecret(p: p, q: q, random: SystemRandom()))
        // The test CA, so that the certificate routes run instead of answering 501.
        let authority = try CertificateAuthority(
            certificatePEM: Data(contentsOf: FuzzSupport.fixture("pki/issuing-ca.cert.pem")),
            keyPEM: Data(contentsOf: FuzzSupport.fixture("pki/issuing-ca.key.pem")))
        // Sessions that outlive any campaign, so that `{s}` still names a live one hours later.
        let lifetime: TimeInterval = 10 * 365 * 86_400
        let service = CoSignerService(
            store: store, party: party, sessionLifetime: lifetime, certificateAuthority: authority, errorLog: { _ in })
        let open = CoSignerService(
            store: store, party: party, sessionLifetime: lifetime, certificateAuthority: authority,
            requireAttestation: false, errorLog: { _ in })
        let rpKey = try store.addRelyingParty(name: "Fuzz Bank")
        _ = try store.issueEnrollmentCode(documentNumber: "38001085718")  // one left for the enrollment routes

        // One device enrolled the real way, over loopback.
        let device = DeviceAttestation(
            key: try DeviceKey(file: FuzzSupport.scratch.appendingPathComponent("device.key").path))
        let server = try HTTPServer { service.handle($0) }
        defer { server.stop() }
        let code = try store.issueEnrollmentCode(documentNumber: "38001085718")
        guard let base = URL(string: "http://127.0.0.1:\(server.port)") else {
            throw CoreError.malformedText(field: "fuzz start-up", reason: "no loopback URL")
        }
        let client = ThresholdClient(server: base, transport: HTTPTransport(timeout: 60), attestation: device)
        let (share, registration) = try blocking {
            try await client.enrollShare(
                code: code, role: .sign, clientPID: Transcript.taggedHash("fuzz-device", [[1]]))
        }
        // The auth key too (the same code, the same device): AUTH sessions need it.
        _ = try blocking {
            try await client.enrollShare(
                code: code, role: .auth, clientPID: Transcript.taggedHash("fuzz-device", [[2]]))
        }

        // Sessions for that key: three SIGN, one AUTH (by document number).
        var sessions: [String] = []
        let bodies: [[String: Any]] =
            (0..<3).map { index in
                [
                    "keyID": WireFormat.hex(share.keyID),
                    "digest": WireFormat.hex([UInt8](repeating: UInt8(index + 1), count: 32)),
                    "displayText": "fuzz \(index)",
                ]
            } + [
                [
                    "kind": "AUTH", "documentNumber": "38001085718",
                    "rpChallenge": Data(repeating: 9, count: 32).base64EncodedString(), "displayText": "log in",
                ]
            ]
        for body in bodies {
            let began = trace ? Date() : nil
            let answer = service.handle(
                HTTPRequest(
                    method: "POST", path: "/v3/rp/session", headers: ["authorization": "Bearer \(rpKey)"],
                    body: Array(try JSONSerialization.data(withJSONObject: body))))
            guard let object = (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any],
                let id = object["sessionID"] as? String
            else {
                throw CoreError.malformedText(
                    field: "fuzz start-up",
                    reason: "no session: \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            }
            sessions.append(id)
        }
        return Rig(
            service: service, open: open, device: device, token: registration.deviceToken, rpKey: rpKey,
            keyID: WireFormat.hex(share.keyID),
            sessions: sessions)
    } catch {
        FileHandle.standardError.write(Data("fuzz: cannot start the co-signer: \(error)\n".utf8))
        exit(2)
    }
}()

let trace = ProcessInfo.processInfo.environment["FUZZ_ROUTER_TRACE"] != nil

/// Every route the router has (CoSignerService.route and routeDevice); `{s}` is a session id.
let routes: [(String, String)] = [
    ("GET", "/v3/attestation/challenge"), ("POST", "/v3/enrollment/init"), ("POST", "/v3/enrollment/complete"),
    ("POST", "/v3/rp/session"), ("GET", "/v3/rp/session/{s}"),
    ("POST", "/v3/mobile/session"), ("GET", "/v3/mobile/pending/38001085718"), ("GET", "/v3/mobile/session/{s}"),
    ("GET", "/v3/mobile/activity/38001085718"), ("POST", "/v3/mobile/session/{s}/sign/commit"),
    ("POST", "/v3/mobile/session/{s}/sign/prove"), ("POST", "/v3/mobile/session/{s}/sign/finish"),
    ("POST", "/v3/mobile/session/{s}/sign/abandon"), ("POST", "/v3/mobile/certificate/session"),
    ("POST", "/v3/mobile/certificate"),
    ("POST", "/v3/mobile/pin/evaluate"), ("POST", "/v3/mobile/pin/confirm"),
    ("GET", "/v3/health"), ("GET", "/v3/ready"), ("GET", "/metrics"),
]

/// Requests go through the operations router `cosigner serve --metrics` puts in front of the
/// service (health, ready, metrics, and every path turned into a route pattern for the metrics).
let routers = (
    attested: OperationsRouter(service: rig.service, metrics: CoSignerMetrics()),
    open: OperationsRouter(service: rig.open, metrics: CoSignerMetrics())
)

/// Input: a route byte; a flag byte (bit 0: the enrolled device's token and a valid
/// attestation of this request, bit 1: its token only, bit 2: the relying party's API key,
/// bit 3: the service with attestation off, bits 4–6: which session `{s}` names, none past the
/// last); then `value\n` for X-Device-Token, X-Attestation, Authorization, a path suffix and
/// the query (`limit=…&offset=…`); then the body (`{k}`: the key id, `{s}`: the session id).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCoSignerRouter(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let rig = rig  // set up on the first call (FuzzSupport.run makes one before fuzzing)
    rig.resetNow()
    let bytes = FuzzSupport.bytes(data, size)
    guard bytes.count >= 2 else { return 0 }
    let selector = bytes[0], flags = bytes[1]
    var rest = bytes.dropFirst(2)
    func line() -> String {
        let end = rest.firstIndex(of: 0x0a) ?? rest.endIndex
        let text = String(decoding: rest[rest.startIndex..<end], as: UTF8.self)
        rest = end < rest.endIndex ? rest[(end + 1)...] : rest[end...]
        return text
    }
    var token = line(), attestation = line(), authorization = line()
    let suffix = line(), queryText = line()
    let (method, template) = routes[Int(selector) % routes.count]
    let session = Int(flags >> 4 & 0x07)
    let sessionID = session < rig.sessions.count ? rig.sessions[session] : ""
    // `{k}` and `{s}` in a UTF-8 body become the enrolled key's id and the session's, which
    // random bytes would never hit.
    var body = Array(rest)
    if body.contains(UInt8(ascii: "{")), let text = String(bytes: body, encoding: .utf8),
        text.contains("{k}") || text.contains("{s}")
    {
        body = Array(
            text.replacingOccurrences(of: "{k}", with: rig.keyID).replacingOccurrences(of: "{s}", with: sessionID).utf8)
    }
    let path = template.replacingOccurrences(of: "{s}", with: sessionID) + suffix
    let service = flags & 0x08 != 0 ? rig.open : rig.service
    if flags & 0x03 != 0 { token = rig.token }
    if flags & 0x01 != 0 {
        // A fresh nonce from the challenge route, then this exact request signed with it.
        let challenge = service.handle(
            HTTPRequest(method: "GET", path: "/v3/attestation/challenge", headers: [:], body: []))
        if let object = (try? JSONSerialization.jsonObject(with: Data(challenge.body))) as? [String: Any],
            let hex = object["nonce"] as? String, let nonce = Hex.bytes(hex, count: 32),
            let signed = try? rig.device.header(nonce: nonce, method: method, path: path, body: body)
        {
            attestation = signed
        }
    }
    if flags & 0x04 != 0 { authorization = "Bearer \(rig.rpKey)" }
    var headers: [String: String] = [:]
    if !token.isEmpty { headers["x-device-token"] = token }
    if !attestation.isEmpty { headers["x-attestation"] = attestation }
    if !authorization.isEmpty { headers["authorization"] = authorization }
    var query: [String: String] = [:]
    for pair in queryText.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2, ["limit", "offset"].contains(String(parts[0])) {
            query[String(parts[0])] = String(parts[1])
        }
    }
    let began = trace ? Date() : nil
    let router = flags & 0x08 != 0 ? routers.open : routers.attested
    let answer = router.handle(HTTPRequest(method: method, path: path, headers: headers, body: body, query: query))
    if trace {
        // FUZZ_ROUTER_TRACE=1 ./FuzzCoSignerRouter FILES…: which handler each input reached.
        FileHandle.standardError.write(
            Data(
                "route \(method) \(template) -> \(answer.status) \(Int(-(began ?? Date()).timeIntervalSinceNow * 1000)) ms \(String(decoding: answer.body.prefix(120), as: UTF8.self))\n"
                    .utf8))
    }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzCoSignerRouter_main`.
@_cdecl("FuzzCoSignerRouter_main")
public func FuzzCoSignerRouterMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzCoSignerRouter)
}
