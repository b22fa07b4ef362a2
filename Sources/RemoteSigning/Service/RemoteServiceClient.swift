import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// JSON over HTTPS to one service, with its HTTP statuses turned into `RemoteSigningError`, and
/// the long-poll loop both services share (`GET …/session/{id}?timeoutMs=N` until COMPLETE).
struct RemoteServiceClient: Sendable {
    let service: String
    let configuration: RemoteServiceConfiguration
    let transport: HTTPTransport
    /// What an HTTP status means for this service (documented codes, and a v3 problem body's
    /// error code), for the error message.
    let statusMeaning: @Sendable (Int, ProblemDetails?) -> String
    /// The id of the last session started (for logs and tests).
    let lastSession = LastSession()

    final class LastSession: @unchecked Sendable {  // unchecked: `value` behind `lock`
        private let lock = Lock()
        private var value: String?
        var id: String? { lock.withLock { value } }
        func set(_ id: String) { lock.withLock { value = id } }
    }

    init(
        service: String, configuration: RemoteServiceConfiguration,
        statusMeaning: @escaping @Sendable (Int, ProblemDetails?) -> String
    ) throws {
        self.service = service
        self.configuration = configuration
        self.transport = try configuration.transport()
        self.statusMeaning = statusMeaning
    }

    /// A refusal the caller turns into its own error (e.g. 404 at a certificate choice: not a
    /// client); nil leaves it `serviceRefused`.
    typealias Refusal = @Sendable (_ status: Int, _ problem: ProblemDetails?) -> RemoteSigningError?

    /// The relying party's identity, in every request body.
    var relyingParty: [String: Any] {
        ["relyingPartyUUID": configuration.relyingPartyUUID, "relyingPartyName": configuration.relyingPartyName]
    }

    func url(_ path: String) -> URL {
        path.split(separator: "/").reduce(configuration.url) { $0.appendingPathComponent(String($1)) }
    }

    func post(_ path: String, _ body: [String: Any], refusal: Refusal? = nil) async throws -> [String: Any] {
        var merged = relyingParty
        for (key, value) in body { merged[key] = value }
        let data = Data(try JSON.data(merged))
        return try await exchange("POST", url(path), data, refusal: refusal)
    }

    func get(_ url: URL) async throws -> [String: Any] { try await exchange("GET", url, nil, refusal: nil) }

    private func exchange(_ method: String, _ url: URL, _ body: Data?, refusal: Refusal?) async throws -> [String: Any]
    {
        let answer = try await transport.requestAnyStatus(
            method: method, url: url, body: body,
            headers: ["Content-Type": "application/json", "Accept": "application/json, application/problem+json"],
            service: service)
        guard answer.status == 200 else {
            let problem = ProblemDetails(answer.body)
            if let refusal, let error = refusal(answer.status, problem) { throw error }
            throw RemoteSigningError.serviceRefused(
                service: service, status: answer.status,
                meaning: statusMeaning(answer.status, problem) + (problem?.said ?? ""))
        }
        guard let object = (try? JSON.parse(answer.body)) as? [String: Any] else {
            throw RemoteSigningError.malformedResponse(service: service, detail: "the answer is not a JSON object")
        }
        return object
    }

    /// Polls `path` (a session) until its state is COMPLETE; the whole wait is bounded by the
    /// configuration's overall timeout.
    func pollUntilComplete(_ path: String) async throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(configuration.overallTimeout)
        while true {
            try Task.checkCancellation()
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw RemoteSigningError.timedOut(service: service) }
            // A long poll never outlasts the overall deadline (the services clamp to 1–120 s).
            let milliseconds = Int(min(max(min(configuration.pollSeconds, left), 1), 120) * 1000)
            var components = URLComponents(url: url(path), resolvingAgainstBaseURL: false)!
            components.queryItems = [URLQueryItem(name: "timeoutMs", value: String(milliseconds))]
            let started = Date()
            let status = try await get(components.url!)
            switch status["state"] as? String {
            case "COMPLETE": return status
            case "RUNNING": break
            default:
                throw RemoteSigningError.malformedResponse(
                    service: service, detail: "a session state that is neither RUNNING nor COMPLETE")
            }
            // The long poll normally waited already, so ask again at once, as the services
            // advise; but a service (or proxy) that answers RUNNING at once is not hammered.
            let waited = Date().timeIntervalSince(started)
            if waited < 1 { try await Task.sleep(nanoseconds: UInt64((1 - waited) * 1e9)) }
        }
    }

    /// The session id a start answer names (a UUID; anything else would be pasted into a path),
    /// remembered as the last session.
    func sessionID(_ started: [String: Any]) throws -> String {
        guard let session = started["sessionID"] as? String, !session.isEmpty, session.count <= 64,
            session.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == "-") })
        else {
            throw RemoteSigningError.malformedResponse(service: service, detail: "no session id")
        }
        lastSession.set(session)
        return session
    }

    /// A base64 field as bytes.
    func bytes(_ value: Any?, _ name: String) throws -> Data {
        guard let text = value as? String, let data = (try? Base64.decode(text, field: name)).map({ Data($0) }),
            !data.isEmpty
        else {
            throw RemoteSigningError.malformedResponse(service: service, detail: "\(name) is missing or not base64")
        }
        return data
    }

    /// The subject's serialNumber attribute (the ETSI semantics identifier, e.g. PNOEE-38001085718).
    static func subjectSerialNumber(_ certificate: Certificate) -> String? {
        // RFC 2253 text: attributes split at commas not escaped with a backslash.
        var parts: [String] = [], current = "", escaped = false
        for character in certificate.subject {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            if character == "\\" {
                escaped = true
                current.append(character)
                continue
            }
            if character == "," {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts.first { $0.hasPrefix("serialNumber=") }.map { String($0.dropFirst("serialNumber=".count)) }
    }

    /// A certificate the service sent as base64 DER.
    func certificate(_ value: Any?, _ name: String) throws -> Certificate {
        let der = try bytes(value, name)
        do {
            return try Certificate(der: der)
        } catch {
            throw RemoteSigningError.malformedResponse(service: service, detail: "\(name) is not a certificate")
        }
    }

    /// The checks every returned signature passes before it is used: the algorithm the service
    /// names (`SHA256WithECEncryption`, `sha256WithRSAEncryption`: compared without case), the
    /// r‖s size for EC, and the value under the certificate for this very digest.
    func checkSignature(
        _ signature: [String: Any], algorithm: SignatureAlgorithm, certificate: Certificate, digest: Digest
    ) throws -> Data {
        let value = try bytes(signature["value"], "signature.value")
        guard let hashType = Self.hashType(digest.algorithm) else {
            throw CoreError.digestAlgorithmMismatch(expected: algorithm.digest, actual: digest.algorithm)
        }
        let expected = "\(hashType)With\(algorithm.isECDSA ? "EC" : "RSA")Encryption"
        guard (signature["algorithm"] as? String)?.lowercased() == expected.lowercased() else {
            throw RemoteSigningError.signatureInvalid(
                service: service,
                detail: "algorithm \(signature["algorithm"] as? String ?? "none"), expected \(expected)")
        }
        if let curve = algorithm.curve, value.count != 2 * curve.fieldSize {
            throw RemoteSigningError.signatureInvalid(
                service: service, detail: "\(value.count) bytes, not r‖s of \(curve.rawValue)")
        }
        guard certificate.publicKey.verify(signature: value, digest: digest, algorithm: algorithm) else {
            throw RemoteSigningError.signatureInvalid(
                service: service, detail: "it does not verify under the certificate for this hash")
        }
        return value
    }

    /// The name the services use for a hash algorithm.
    static func hashType(_ digest: DigestAlgorithm) -> String? {
        switch digest {
        case .sha256: "SHA256"
        case .sha384: "SHA384"
        case .sha512: "SHA512"
        default: nil
        }
    }
}
