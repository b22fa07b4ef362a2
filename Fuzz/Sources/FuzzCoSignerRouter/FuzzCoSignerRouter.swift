import CoSigner
import Foundation
import FuzzSupport
import TamgaCore
import Threshold

/// The co-signer's request router in process (no socket), over a real SQLite file, behind the
/// operations router `cosigner serve --metrics` uses (health, ready, metrics, and every path
/// turned into a route pattern for the metrics): the input picks a route and carries the
/// headers, a path suffix and the body. Any answer is fine; a trap is not.
let service: CoSignerService = {
    do {
        let store = try CoSignerStore(path: FuzzSupport.scratch.appendingPathComponent("cosigner.db").path, serverKey: [UInt8](repeating: 7, count: 32))
        // The golden transcript's ring-Pedersen primes: generating safe primes takes seconds.
        let transcript = try JSONSerialization.jsonObject(with: Data(contentsOf: FuzzSupport.fixture("threshold/transcript.json"))) as? [String: Any]
        let primes = transcript?["ringPedersen"] as? [String: String]
        guard let p = primes?["p"].flatMap(BigInt.init(hex:)), let q = primes?["q"].flatMap(BigInt.init(hex:)) else {
            throw CoreError.malformedText(field: "Fixtures/threshold/transcript.json", reason: "no ring-Pedersen primes")
        }
        let party = try ServerParty(pid: Transcript.taggedHash("fuzz", [[1]]), ringPedersen: try RingPedersenSecret(p: p, q: q, random: SystemRandom()))
        _ = try store.addRelyingParty(name: "Fuzz Bank")
        _ = try store.issueEnrollmentCode(documentNumber: "38001085718")
        return CoSignerService(store: store, party: party, errorLog: { _ in })
    } catch {
        FileHandle.standardError.write(Data("fuzz: cannot start the co-signer: \(error)\n".utf8))
        exit(2)
    }
}()

let routes: [(String, String)] = [
    ("GET", "/v3/attestation/challenge"), ("POST", "/v3/enrollment/init"), ("POST", "/v3/enrollment/complete"),
    ("POST", "/v3/rp/session"), ("GET", "/v3/rp/session/"), ("POST", "/v3/mobile/session"), ("GET", "/v3/mobile/pending/38001085718"),
    ("GET", "/v3/mobile/session/"), ("GET", "/v3/mobile/activity/38001085718"), ("POST", "/v3/mobile/session/x/sign/commit"),
    ("POST", "/v3/mobile/session/x/sign/prove"), ("POST", "/v3/mobile/session/x/sign/finish"), ("POST", "/v3/mobile/certificate/session"),
    ("POST", "/v3/mobile/certificate"), ("GET", "/v3/health"), ("GET", "/v3/ready"), ("GET", "/metrics"),
]

let router = OperationsRouter(service: service, metrics: CoSignerMetrics())

/// Input: one byte route, then `header-value\n` for X-Device-Token, X-Attestation,
/// Authorization, a path suffix, then the body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCoSignerRouter(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    guard let selector = bytes.first else { return 0 }
    var rest = bytes.dropFirst()
    func line() -> String {
        let end = rest.firstIndex(of: 0x0a) ?? rest.endIndex
        let text = String(decoding: rest[rest.startIndex..<end], as: UTF8.self)
        rest = end < rest.endIndex ? rest[(end + 1)...] : rest[end...]
        return text
    }
    let token = line(), attestation = line(), authorization = line(), suffix = line()
    let (method, path) = routes[Int(selector) % routes.count]
    var headers: [String: String] = [:]
    if !token.isEmpty { headers["x-device-token"] = token }
    if !attestation.isEmpty { headers["x-attestation"] = attestation }
    if !authorization.isEmpty { headers["authorization"] = authorization }
    _ = router.handle(HTTPRequest(method: method, path: path + suffix, headers: headers, body: Array(rest)))
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzCoSignerRouter_main`.
@_cdecl("FuzzCoSignerRouter_main")
public func FuzzCoSignerRouterMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzCoSignerRouter)
}
