import FoundationEssentials
import Glibc
import HTTPService
import TamgaCore
import TamgaSupport
import Threshold

/// The co-signer's HTTP API (first slice: enrollment and signing sessions; documented in
/// docs/cosigner-api.md). JSON bodies; protocol messages in `WireFormat`'s fixed-width hex.
/// Every `/v3/mobile/*` call carries `X-Device-Token`, issued at enrollment and stored as a hash.
/// Sessions live in the database (state, digest, deadline, result), and so does the
/// cryptographic state of an open signing session (k2, then r) and of a pending enrollment,
/// sealed with the server key: any instance on the database answers any step, a restart ends
/// nothing, and every state move is a compare-and-set on the row (the loser answers 409).
public final class CoSignerService: @unchecked Sendable {  // unchecked: the store and the party serialise themselves
    public let store: CoSignerStore
    public let party: ServerParty
    let random: RandomSource
    public let sessionLifetime: TimeInterval
    /// Issues the certificates of enrolled keys (after the device proves possession by a
    /// threshold signature over its certificate request); nil: no certificates.
    public let certificateAuthority: CertificateAuthority?
    /// Whether every device call must be signed with the device key (`DeviceAttestation`).
    /// Off only for development, like the seed's `SMARTID_REQUIRE_ATTESTATION=false`.
    public let requireAttestation: Bool
    let nonces: AttestationNonces
    /// Where a request that failed inside the co-signer (answered 500) is reported, one line
    /// each; standard error unless told otherwise.
    let errorLog: @Sendable (String) -> Void
    /// Bounds on what relying parties can open: a person's device must still be able to list
    /// what waits for it, and one relying party cannot fill the database.
    public struct SessionLimits: Sendable {
        /// Open (pending or in progress) sessions of one relying party.
        public var perRelyingParty: Int
        /// Pending sessions waiting for one person, from every relying party together; a
        /// relying party with none waiting for the person may open one past it (below).
        public var perPerson: Int
        /// Pending sessions one relying party may have waiting for one person: its own share,
        /// well below `perPerson`, so that no relying party can fill a person's list alone.
        /// Document numbers are guessable; without it, one relying party opening 200 sessions
        /// for a number held the person's 20 for every relying party for a session's lifetime,
        /// again and again. With it, one relying party fills at most its share, and
        /// the total refuses only relying parties that already have a session waiting: however
        /// many fill the rest, a relying party with none waiting always gets its first one, so
        /// one can only block itself. The total is then bounded by the registered relying
        /// parties (the operator's `add-rp`), each at most one past `perPerson`.
        public var perPersonPerRelyingParty: Int
        /// Sessions one relying party may open per second, sustained, and in one burst.
        public var creationRate: Double
        public var creationBurst: Double
        public init(
            perRelyingParty: Int = 1_000, perPerson: Int = 20, perPersonPerRelyingParty: Int = 5,
            creationRate: Double = 100, creationBurst: Double = 500
        ) {
            self.perRelyingParty = perRelyingParty
            self.perPerson = perPerson
            self.perPersonPerRelyingParty = perPersonPerRelyingParty
            self.creationRate = creationRate
            self.creationBurst = creationBurst
        }
    }
    public let limits: SessionLimits
    let creationBuckets: RateLimiter
    /// The co-signer's half of every PIN check (counts, lockout, the OPRF secrets).
    let pinGuards: PINGuards
    /// The most sessions one page of `GET /v3/mobile/pending/…` lists.
    static let pendingPageLimit = 50

    public init(
        store: CoSignerStore, party: ServerParty, random: RandomSource = SystemRandom(),
        sessionLifetime: TimeInterval = 300,
        certificateAuthority: CertificateAuthority? = nil, requireAttestation: Bool = true,
        limits: SessionLimits = SessionLimits(),
        errorLog: @escaping @Sendable (String) -> Void = { line in
            FileDescriptorOutput.write(line + "\n", to: FileDescriptorOutput.standardError)
        },
        pinLimits: PINLimits = PINLimits()
    ) {
        pinGuards = PINGuards(store: store, limits: pinLimits, random: random)
        self.errorLog = errorLog
        self.limits = limits
        creationBuckets = RateLimiter(rate: limits.creationRate, burst: limits.creationBurst)
        self.store = store
        self.party = party
        self.random = random
        self.sessionLifetime = sessionLifetime
        self.certificateAuthority = certificateAuthority
        self.requireAttestation = requireAttestation
        nonces = AttestationNonces(serverKey: store.serverKey, database: store.database, random: random)
    }

    struct Failure: Error {
        let status: Int, code: String, message: String
    }

    /// Routes one request; never throws (errors become JSON error bodies with 4xx/5xx). An
    /// attested device call's answer, error or not, carries the device's next nonce.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        var attestedDevice: String?
        var response: HTTPResponse
        do {
            response = try route(request, attestedDevice: &attestedDevice)
        } catch let failure as Failure {
            response = .error(failure.status, code: failure.code, message: failure.message)
        } catch let error as ThresholdError {
            response = .error(422, code: error.code, message: error.description)
        } catch let error as CoreError where error.code == "malformed-text" {
            response = .error(400, code: "bad-request", message: error.description)
        } catch let error as DatabaseError where error.isUnavailable {
            // PostgreSQL down or restarting, a lost connection, a transaction that kept losing to
            // concurrent ones: the client may try again (the pool reconnects by itself).
            errorLog("cosigner: \(request.method) \(Self.printable(request.path)): \(error)")
            let answer = HTTPResponse.error(
                503, code: "database-unavailable",
                message: "the co-signer's database is unavailable just now; try again in a few seconds")
            response = HTTPResponse(
                status: answer.status, headers: answer.headers.merging(["Retry-After": "2"]) { $1 }, body: answer.body)
        } catch {
            // A defect in one handler answers this request and is logged; the server goes on.
            errorLog("cosigner: \(request.method) \(Self.printable(request.path)) failed: \(String(describing: error))")
            response = .error(500, code: "internal", message: "the co-signer failed; see its log")
        }
        if let device = attestedDevice, let nonce = try? nonces.issue(for: device) {
            response = HTTPResponse(
                status: response.status,
                headers: response.headers.merging(["X-Next-Attestation-Nonce": WireFormat.hex(nonce)]) { $1 },
                body: response.body)
        }
        return response
    }

    func route(_ request: HTTPRequest, attestedDevice: inout String?) throws -> HTTPResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        let route = (request.method, parts.count, parts.first == "v3" ? parts.dropFirst().first ?? "" : "")
        // Every /v3/mobile/* call is attested first; its handler gets the caller from here
        // (one token lookup per request).
        if route.2 == "mobile" {
            let caller = try attest(request)
            attestedDevice = caller.device
            return try routeDevice(request, parts: parts, caller: caller)
        }
        switch route {
        case ("GET", 3, "attestation") where parts[2] == "challenge":
            return Self.json(["nonce": WireFormat.hex(try nonces.issue(for: nil)), "expiresIn": Int(nonces.lifetime)])
        case ("POST", 3, "enrollment") where parts[2] == "init": return try enrollInit(request)
        case ("POST", 3, "enrollment") where parts[2] == "complete":
            return try enrollComplete(request, attestedDevice: &attestedDevice)
        case ("POST", 3, "rp") where parts[2] == "session":
            return try createSession(request, relyingParty: relyingParty(request))
        case ("GET", 4, "rp") where parts[2] == "session":
            return try sessionResult(parts[3], relyingParty: relyingParty(request))
        default:
            throw Failure(
                status: 404, code: "not-found", message: "no route \(request.method) \(Self.printable(request.path))")
        }
    }

    /// The `/v3/mobile/*` routes, for a caller already attested.
    func routeDevice(_ request: HTTPRequest, parts: [String], caller: Caller) throws -> HTTPResponse {
        switch (request.method, parts.count) {
        case ("POST", 3) where parts[2] == "session": return try createOwnSession(request, caller)
        case ("GET", 4) where parts[2] == "pending": return try pending(request, caller, document: parts[3])
        case ("GET", 4) where parts[2] == "session": return try sessionInfo(caller, sessionID: parts[3])
        case ("GET", 4) where parts[2] == "activity": return try activity(caller, document: parts[3])
        case ("POST", 6) where parts[2] == "session" && parts[4] == "sign":
            return try signStep(request, caller, sessionID: parts[3], step: parts[5])
        case ("POST", 4) where parts[2] == "certificate" && parts[3] == "session":
            return try certificateSession(request, caller)
        case ("POST", 3) where parts[2] == "certificate": return try issueCertificate(request, caller)
        case ("POST", 4) where parts[2] == "pin" && parts[3] == "evaluate": return try evaluatePIN(request, caller)
        case ("POST", 4) where parts[2] == "pin" && parts[3] == "confirm": return try confirmPIN(request, caller)
        default:
            throw Failure(
                status: 404, code: "not-found", message: "no route \(request.method) \(Self.printable(request.path))")
        }
    }

    /// A path as it may go into a log line or an error message: ASCII printable only, 200 at most.
    static func printable(_ text: String) -> String {
        String(
            text.unicodeScalars.prefix(200).map {
                $0.isASCII && $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?"
            })
    }

    // MARK: Attestation

    /// Who makes a device call: its document number, the keys it may use (those enrolled by
    /// this device — its tokens share one device key — not every key of the document), and its
    /// token's hash.
    struct Caller {
        let document: String
        let keys: Set<String>
        let device: String
    }

    /// Checks a device call: a known `X-Device-Token`, and `X-Attestation` signed by the key
    /// registered with that token over a live nonce and this very request.
    func attest(_ request: HTTPRequest) throws -> Caller {
        guard let token = request.headers["x-device-token"], token.count == 64,
            let row = try store.database.query(
                "SELECT document_number, device_key FROM devices WHERE token_hash = ?",
                [.text(CoSignerStore.hash(token))]
            ).first, let document = row[0].text
        else {
            throw Failure(status: 403, code: "bad-device-token", message: "missing or unknown X-Device-Token")
        }
        let device = CoSignerStore.hash(token)
        if let header = request.headers["x-attestation"] {
            try checkAttestation(header, request: request, deviceKey: row[1].blob ?? [], device: device)
        } else if requireAttestation {
            throw Failure(
                status: 401, code: "attestation-required",
                message:
                    "sign the call with the device key (X-Attestation) over a nonce from GET /v3/attestation/challenge")
        }
        let keys = try store.database.query(
            "SELECT key_id FROM devices WHERE document_number = ? AND device_key = ? AND key_id IS NOT NULL",
            [.text(document), row[1]]
        ).compactMap { $0.first?.text }
        return Caller(document: document, keys: Set(keys), device: device)
    }

    /// The signature first (cheap, and a forged header cannot burn a nonce), then the nonce.
    func checkAttestation(_ header: String, request: HTTPRequest, deviceKey: [UInt8], device: String?) throws {
        guard let (nonce, signature) = DeviceAttestation.parse(header),
            DeviceKey.verify(
                Data(signature),
                message: DeviceAttestation.message(
                    nonce: nonce, method: request.method, path: request.path, body: request.body),
                subjectPublicKeyInfo: Data(deviceKey))
        else {
            throw Failure(
                status: 401, code: "bad-attestation",
                message:
                    "X-Attestation does not verify under this device's key; enroll this device again if its key was lost"
            )
        }
        guard try nonces.consume(nonce, device: device) else {
            throw Failure(
                status: 401, code: "stale-attestation-nonce",
                message:
                    "the attestation nonce is unknown, used or expired; fetch one from GET /v3/attestation/challenge")
        }
    }

    // MARK: JSON

    static func object(_ request: HTTPRequest) throws -> [String: Any] {
        guard let object = (try? JSON.parse(Data(request.body))) as? [String: Any] else {
            throw Failure(status: 400, code: "malformed-json", message: "the body is not a JSON object")
        }
        return object
    }

    static func strings(_ value: Any?) -> [String: String] {
        (value as? [String: Any])?.compactMapValues { $0 as? String } ?? [:]
    }
    static func lists(_ value: Any?) -> [String: [String]] {
        (value as? [String: Any])?.compactMapValues { $0 as? [String] } ?? [:]
    }

    static func json(_ value: [String: Any], status: Int = 200) -> HTTPResponse {
        let body = (try? JSON.data(value)) ?? []
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    static func message(_ object: WireFormat.Object, _ lists: WireFormat.Lists = [:]) -> [String: Any] {
        var combined: [String: Any] = object
        for (key, value) in lists { combined[key] = value }
        return combined
    }

    // MARK: Enrollment

    /// `{code, role, message}`: the code must be valid (it is consumed at `complete`).
    func enrollInit(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try Self.object(request)
        guard let code = body["code"] as? String,
            let role = (body["role"] as? String).flatMap(ShareRole.init(rawValue:))
        else {
            throw Failure(status: 400, code: "bad-request", message: "code and role (auth or sign) are required")
        }
        guard try store.enrollmentCode(code, allows: role) != nil else {
            throw Failure(
                status: 403, code: "bad-enrollment-code",
                message: "the enrollment code is unknown, expired, or already used for a \(role.rawValue) key")
        }
        let message = try WireFormat.decodeEnrollInitRequest(Self.strings(body["message"]))
        let (response, pending) = try party.beginEnrollment(message)
        try store.savePendingEnrollment(pending)
        let (object, lists) = try WireFormat.encode(response)
        return Self.json(["message": Self.message(object, lists)])
    }

    /// `{code, role, clientNonce, deviceKey, message}` → `{message, deviceToken, documentNumber}`.
    /// `deviceKey` is the device's P-256 SubjectPublicKeyInfo (DER hex); `X-Attestation` over a
    /// challenge nonce proves the device holds it. The code, the key and the device are stored
    /// in one transaction.
    func enrollComplete(_ request: HTTPRequest, attestedDevice: inout String?) throws -> HTTPResponse {
        let body = try Self.object(request)
        guard let code = body["code"] as? String,
            let role = (body["role"] as? String).flatMap(ShareRole.init(rawValue:)),
            let nonceText = body["clientNonce"] as? String, let nonce = Hex.bytes(nonceText, count: 32),
            nonceText.count == 64
        else {
            throw Failure(status: 400, code: "bad-request", message: "code, role and clientNonce are required")
        }
        // The code before the attestation: the device key is the caller's own, so a signature
        // under it proves nothing, and using up its nonce is a write (a `used_nonces` row) that
        // anyone could make without a code (a flood test: 300 calls, 300 rows). Looking the code up
        // is a read by its SHA-256, whose time does not depend on how close a guess is. With a
        // good code, the signature is checked before the nonce is used, as for every device.
        guard try store.enrollmentCode(code, allows: role) != nil else {
            throw Failure(
                status: 403, code: "bad-enrollment-code",
                message: "the enrollment code is unknown, expired, or already used for a \(role.rawValue) key")
        }
        let deviceKeyText = body["deviceKey"] as? String ?? ""
        let deviceKey = Hex.bytes(deviceKeyText) ?? []
        if let header = request.headers["x-attestation"] {
            try checkAttestation(header, request: request, deviceKey: deviceKey, device: nil)
        } else if requireAttestation {
            throw Failure(
                status: 401, code: "attestation-required",
                message:
                    "send the device key (deviceKey) and sign the call with it (X-Attestation) over a nonce from GET /v3/attestation/challenge"
            )
        }
        let message = Self.message(Self.strings(body["message"]), Self.lists(body["message"]))
        let complete = try WireFormat.decodeEnrollCompleteRequest(
            message.compactMapValues { $0 as? String }, message.compactMapValues { $0 as? [String] })
        let (response, share) = try party.completeEnrollment(store.takePendingEnrollment(clientNonce: nonce), complete)
        let token = WireFormat.hex(try random.bytes(32, label: "cosigner.device-token"))
        let document: String = try store.database.transaction {
            guard let document = try store.consumeEnrollmentCode(code, role: role) else {
                throw Failure(
                    status: 403, code: "bad-enrollment-code",
                    message: "the enrollment code is unknown, expired, or already used for a \(role.rawValue) key")
            }
            // A new key of a role replaces the old one (a lost phone, a new device): the old key
            // is locked and the devices that enrolled it lose their access.
            let older = try store.database.query(
                "SELECT key_id FROM keys WHERE document_number = ? AND role = ? AND locked = 0",
                [.text(document), .text(role.rawValue)]
            ).compactMap { $0.first?.text }
            for old in older {
                if let id = Hex.bytes(old, count: 32) {
                    try store.lockKey(id, reason: "superseded by a new \(role.rawValue) enrollment")
                }
                try store.database.execute("DELETE FROM devices WHERE key_id = ?", [.text(old)])
            }
            try store.saveKey(share, documentNumber: document, role: role)
            try store.database.execute(
                "INSERT INTO devices (token_hash, document_number, device_key, created_at, key_id) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(CoSignerStore.hash(token)), .text(document), .blob(deviceKey), .integer(CoSignerStore.now()),
                    .text(WireFormat.hex(share.keyID)),
                ])
            return document
        }
        attestedDevice = CoSignerStore.hash(token)
        return Self.json(["message": WireFormat.encode(response), "deviceToken": token, "documentNumber": document])
    }

    // MARK: Relying party

    /// The registered relying party behind `Authorization: Bearer <API key>` (401 otherwise).
    func relyingParty(_ request: HTTPRequest) throws -> String {
        guard let header = request.headers["authorization"], header.hasPrefix("Bearer "),
            let name = try store.relyingParty(apiKey: String(header.dropFirst("Bearer ".count)).trimmedSpaces())
        else {
            throw Failure(
                status: 401, code: "rp-auth-required",
                message:
                    "relying parties authenticate with Authorization: Bearer <API key> (tamga cosigner add-rp NAME)")
        }
        return name
    }

    /// `POST /v3/mobile/session` `{keyID, digest, displayText}` → `{sessionID}`: a device opens a
    /// SIGN session for one of its own keys (tamga sign --with threshold), shown as "this device".
    func createOwnSession(_ request: HTTPRequest, _ caller: Caller) throws -> HTTPResponse {
        let body = try Self.object(request)
        guard let keyText = (body["keyID"] as? String)?.lowercased(), caller.keys.contains(keyText) else {
            throw Failure(status: 404, code: "unknown-key", message: "no such key for this device")
        }
        var own = body
        own["kind"] = "SIGN"
        own.removeValue(forKey: "documentNumber")
        return try createSession(
            HTTPRequest(
                method: request.method, path: request.path, headers: request.headers,
                body: try JSON.data(own)), relyingParty: ReservedNames.thisDevice,
            // Every device's own sessions are "this device": the limits count per person.
            limitedAs: ReservedNames.ownSessionLimiterKey(document: caller.document))
    }

    /// A relying party's session → `{sessionID}`. The key is named by `keyID`, or by
    /// `documentNumber` (then the sign key for SIGN, the auth key for AUTH).
    /// SIGN: `{digest, displayText}`, a SHA-256 digest to sign.
    /// AUTH: `{kind: "AUTH", rpChallenge (base64, 32–64 bytes), displayText}`: the key signs
    /// `AuthenticationChallenge` over the challenge, its own key and the relying party's
    /// registered name.
    /// - Parameter limitedAs: whose rate and open-session limits apply; nil: the relying party's.
    func createSession(
        _ request: HTTPRequest, relyingParty rpName: String, limitedAs own: String? = nil
    ) throws -> HTTPResponse {
        let body = try Self.object(request)
        let kind = (body["kind"] as? String ?? "SIGN").uppercased()
        guard kind == "SIGN" || kind == "AUTH" else {
            throw Failure(status: 400, code: "bad-request", message: "kind is SIGN or AUTH")
        }
        // The name is the registered one, never the body's: it is what the person sees and, for
        // AUTH, what the signature binds.
        let displayText = body["displayText"] as? String ?? ""
        guard displayText.utf8.count <= 1000 else {
            throw Failure(status: 400, code: "bad-request", message: "displayText is longer than 1000 bytes")
        }
        if let why = TerminalText.refusal(in: displayText) {
            throw Failure(
                status: 400, code: "bad-display-text", message: "displayText is shown to a person as it is and \(why)")
        }
        guard creationBuckets.take(own ?? rpName) else {
            throw Failure(
                status: 429, code: "rate-limited",
                message: "\(rpName) opens sessions faster than \(Int(limits.creationRate)) a second; wait and try again"
            )
        }
        let keyID: [UInt8]
        if let keyText = body["keyID"] as? String {
            guard keyText.count == 64, let id = Hex.bytes(keyText, count: 32) else {
                throw Failure(status: 400, code: "bad-request", message: "keyID is 32 bytes hex")
            }
            keyID = id
        } else if let document = body["documentNumber"] as? String {
            guard let id = try store.keyID(documentNumber: document, role: kind == "AUTH" ? .auth : .sign) else {
                throw Failure(
                    status: 404, code: "unknown-key",
                    message: "no \(kind == "AUTH" ? "auth" : "sign") key is enrolled for \(document)")
            }
            keyID = id
        } else {
            throw Failure(status: 400, code: "bad-request", message: "name the key with keyID or documentNumber")
        }
        guard let key = try store.loadKey(keyID) else {
            throw Failure(status: 404, code: "unknown-key", message: "no such key")
        }
        let now = CoSignerStore.now()
        if own == nil {
            let openByParty =
                try store.database.query(
                    """
                    SELECT COUNT(*) FROM sessions WHERE rp_name = ? AND state IN ('PENDING', 'COMMITTED', 'PROVED') AND expires_at >= ?
                    """, [.text(rpName), .integer(now)]
                ).first?.first?.integer ?? 0
            guard openByParty < limits.perRelyingParty else {
                throw Failure(
                    status: 429, code: "too-many-sessions",
                    message: "\(rpName) has \(openByParty) open sessions, the most allowed; let some finish or expire")
            }
        }
        // The person's pending sessions, all and this relying party's (its share: SessionLimits).
        let waiting = try store.database.query(
            """
            SELECT COUNT(*), COALESCE(SUM(CASE WHEN s.rp_name = ? THEN 1 ELSE 0 END), 0) FROM sessions s JOIN keys k ON k.key_id = s.key_id
            WHERE k.document_number = ? AND s.state = 'PENDING' AND s.expires_at >= ?
            """, [.text(rpName), .text(key.documentNumber), .integer(now)]
        ).first
        let waitingForPerson = waiting?[0].integer ?? 0, waitingFromParty = waiting?[1].integer ?? 0
        guard waitingFromParty < limits.perPersonPerRelyingParty else {
            throw Failure(
                status: 429, code: "too-many-sessions",
                message:
                    "\(rpName) has \(waitingFromParty) sessions waiting for this person, its share; let some finish or expire"
            )
        }
        guard waitingForPerson < limits.perPerson || waitingFromParty == 0 else {
            throw Failure(
                status: 429, code: "too-many-sessions",
                message:
                    "\(waitingForPerson) sessions already wait for this person, the most allowed while one of \(rpName)'s waits too"
            )
        }
        guard !key.locked else {
            throw Failure(status: 423, code: "key-locked", message: "the key is locked after a failed signature")
        }
        guard key.role == (kind == "AUTH" ? .auth : .sign) else {
            throw Failure(
                status: 422, code: "wrong-key-role",
                message: "a \(kind) session needs the document's \(kind == "AUTH" ? "auth" : "sign") key")
        }
        let digest: [UInt8]
        var challenge: [UInt8]? = nil
        if kind == "AUTH" {
            guard let text = body["rpChallenge"] as? String,
                let bytes = try? Base64.decode(text, field: "rpChallenge", maximumCount: 64),
                AuthenticationChallenge.allowedSizes.contains(bytes.count)
            else {
                throw Failure(status: 400, code: "bad-request", message: "rpChallenge is 32 to 64 random bytes, base64")
            }
            challenge = bytes
            digest = AuthenticationChallenge.digest(
                rpChallenge: bytes, subjectPublicKeyInfo: TwoPartySigning.subjectPublicKeyInfo(key.share.publicKey),
                rpName: rpName)
        } else {
            guard let digestText = body["digest"] as? String, digestText.count == 64,
                let bytes = Hex.bytes(digestText, count: 32)
            else {
                throw Failure(status: 400, code: "bad-request", message: "a SIGN session needs a 32-byte digest (hex)")
            }
            digest = bytes
        }
        let id = UUID().uuidString.lowercased()
        try store.database.execute(
            """
            INSERT INTO sessions (id, key_id, kind, digest, rp_name, display_text, state, created_at, expires_at, rp_challenge)
            VALUES (?, ?, ?, ?, ?, ?, 'PENDING', ?, ?, ?)
            """,
            [
                .text(id), .text(WireFormat.hex(keyID)), .text(kind), .blob(digest), .text(rpName), .text(displayText),
                .integer(CoSignerStore.now()), .integer(CoSignerStore.now() + Int64(sessionLifetime)),
                challenge.map { .blob($0) } ?? .null,
            ])
        try store.log(key.documentNumber, "session-created", "\(kind) \(id) by \(rpName.isEmpty ? "?" : rpName)")
        // The code the relying party shows its user; the device computes the same from the digest
        // it signs (Smart-ID's rule), so the person can tell this session from any other.
        return Self.json(["sessionID": id, "verificationCode": VerificationCode.smartID(hash: digest)])
    }

    /// `{state, kind}`, and once COMPLETE `signature` (r‖s hex) and the key's `certificate`
    /// (DER hex) when it has one, so the relying party can check the signature itself.
    func sessionResult(_ id: String, relyingParty: String) throws -> HTTPResponse {
        guard
            let row = try store.database.query(
                """
                SELECT s.state, s.signature, s.expires_at, s.kind, k.certificate FROM sessions s JOIN keys k ON k.key_id = s.key_id WHERE s.id = ? AND s.rp_name = ?
                """, [.text(id), .text(relyingParty)]
            ).first
        else {
            throw Failure(status: 404, code: "unknown-session", message: "no such session")
        }
        var state = row[0].text ?? "FAILED"
        if ["PENDING", "COMMITTED", "PROVED"].contains(state), (row[2].integer ?? 0) < CoSignerStore.now() {
            state = "EXPIRED"
        }
        var result: [String: Any] = ["state": state, "kind": row[3].text ?? ""]
        if let signature = row[1].blob {
            result["signature"] = WireFormat.hex(signature)
            if let certificate = row[4].blob { result["certificate"] = WireFormat.hex(certificate) }
        }
        return Self.json(result)
    }

    // MARK: Certificates

    /// `{keyID, request}` (`request`: the to-be-signed DER of the device's certificate request,
    /// hex; `digest`, if sent, must be its SHA-256) → `{sessionID}`: a SIGN session the device
    /// approves like any other, proving it holds the joint key.
    /// The co-signer rebuilds the request itself from what it knows (the enrolled key and the
    /// account's subject, as `issueCertificate` does) and signs only that digest: the session
    /// shows the person "co-signer CA: certificate request", so it must not be a way to have
    /// any other digest signed under that name.
    func certificateSession(_ request: HTTPRequest, _ caller: Caller) throws -> HTTPResponse {
        let document = caller.document
        guard certificateAuthority != nil else {
            throw Failure(status: 501, code: "no-ca", message: "this co-signer issues no certificates")
        }
        let body = try Self.object(request)
        guard let keyText = body["keyID"] as? String, keyText.count == 64, let keyID = Hex.bytes(keyText, count: 32),
            caller.keys.contains(keyText.lowercased())
        else {
            throw Failure(
                status: 400, code: "bad-request", message: "keyID (one of this device's keys) and request are required")
        }
        // A P-256 request's to-be-signed part is a few hundred bytes; 4 KiB bounds the work.
        guard let requestText = body["request"] as? String, requestText.utf8.count <= 8192,
            let sent = Hex.bytes(requestText)
        else {
            throw Failure(
                status: 400, code: "bad-request",
                message: "request (the certificate request's to-be-signed DER, hex, at most 4096 bytes) is required")
        }
        guard let key = try store.loadKey(keyID), key.documentNumber == document else {
            throw Failure(status: 404, code: "unknown-key", message: "no such key for this device")
        }
        let rebuilt = try CertificateRequest(
            subjectPublicKeyInfo: TwoPartySigning.subjectPublicKeyInfo(key.share.publicKey),
            subject: Self.subject(document: document, role: key.role))
        let digest = Array(rebuilt.digest.bytes)
        let claimed = (body["digest"] as? String).map { Hex.bytes($0, count: 32) ?? [] }
        guard Data(sent) == rebuilt.toBeSigned, claimed == nil || claimed == digest else {
            throw Failure(
                status: 422, code: "request-mismatch",
                message:
                    "a certificate session signs only the request this co-signer builds for the key (its subject and public key); build the request with ThresholdClient.certificateSubject and the enrolled key"
            )
        }
        let id = UUID().uuidString.lowercased()
        try store.database.execute(
            """
            INSERT INTO sessions (id, key_id, kind, digest, rp_name, display_text, state, created_at, expires_at)
            VALUES (?, ?, 'SIGN', ?, ?, 'certificate request', 'PENDING', ?, ?)
            """,
            [
                .text(id), .text(keyText.lowercased()), .blob(digest), .text(ReservedNames.certificateAuthority),
                .integer(CoSignerStore.now()), .integer(CoSignerStore.now() + Int64(sessionLifetime)),
            ])
        return Self.json(["sessionID": id])
    }

    /// `{sessionID, request}` (DER hex): the completed session's digest must be the request's,
    /// the request's key the enrolled joint key, its signature valid → `{certificate}` (DER hex).
    func issueCertificate(_ request: HTTPRequest, _ caller: Caller) throws -> HTTPResponse {
        let document = caller.document
        guard let ca = certificateAuthority else {
            throw Failure(status: 501, code: "no-ca", message: "this co-signer issues no certificates")
        }
        let body = try Self.object(request)
        guard let id = body["sessionID"] as? String, let csrText = body["request"] as? String,
            let csr = Hex.bytes(csrText)
        else {
            throw Failure(status: 400, code: "bad-request", message: "sessionID and request are required")
        }
        guard
            let row = try store.database.query("SELECT key_id, digest, state FROM sessions WHERE id = ?", [.text(id)])
                .first,
            row[2].text == "COMPLETE", let keyText = row[0].text, let keyID = Hex.bytes(keyText, count: 32),
            caller.keys.contains(keyText), let key = try store.loadKey(keyID), key.documentNumber == document
        else {
            throw Failure(status: 409, code: "session-not-complete", message: "sign the certificate request first")
        }
        let checked = try CertificateRequest.verify(Data(csr))
        let expectedSPKI = TwoPartySigning.subjectPublicKeyInfo(key.share.publicKey)
        guard checked.valid, checked.subjectPublicKeyInfo == expectedSPKI else {
            throw Failure(
                status: 422, code: "bad-request-signature", message: "the request is not signed by the enrolled key")
        }
        // The request's to-be-signed digest must be the one the session signed.
        let rebuilt = try CertificateRequest(
            subjectPublicKeyInfo: expectedSPKI, subject: Self.subject(document: document, role: key.role))
        guard Array(rebuilt.digest.bytes) == row[1].blob else {
            throw Failure(
                status: 422, code: "request-mismatch", message: "the request is not the one whose digest was signed")
        }
        let certificate = try ca.issue(
            subjectPublicKeyInfo: expectedSPKI, subject: Self.subject(document: document, role: key.role),
            profile: key.role == .sign ? .signing : .authentication)
        try store.database.execute(
            "UPDATE keys SET certificate = ? WHERE key_id = ?", [.blob(Array(certificate.der)), .text(keyText)])
        try store.log(document, "certificate-issued", key.role.rawValue)
        return Self.json(["certificate": WireFormat.hex(Array(certificate.der))])
    }

    static func subject(document: String, role: ShareRole) -> [(String, String)] {
        ThresholdClient.certificateSubject(document: document, role: role)
    }

    // MARK: Device

    func pending(_ request: HTTPRequest, _ caller: Caller, document: String) throws -> HTTPResponse {
        guard caller.document == document else {
            throw Failure(status: 403, code: "bad-device-token", message: "not this device's account")
        }
        let rows = try store.database.query(
            """
            SELECT s.id, s.kind, s.rp_name, s.display_text, s.digest, s.key_id, s.rp_challenge FROM sessions s JOIN keys k ON k.key_id = s.key_id
            WHERE k.document_number = ? AND s.state = 'PENDING' AND s.expires_at >= ? ORDER BY s.created_at
            """, [.text(document), .integer(CoSignerStore.now())]
        ).filter { caller.keys.contains($0[5].text ?? "") }
        // Paged: ?limit=N (at most 50) &offset=M; `next` is the offset of the next page, if any.
        let limit = min(
            max(try Self.pageNumber(request.query["limit"], "limit") ?? Self.pendingPageLimit, 1), Self.pendingPageLimit
        )
        let offset = min(try Self.pageNumber(request.query["offset"], "offset") ?? 0, rows.count)
        let page = rows[offset..<min(offset + limit, rows.count)]
        var answer: [String: Any] = ["total": rows.count]
        if offset + page.count < rows.count { answer["next"] = offset + page.count }
        answer["sessions"] = page.map { row -> [String: Any] in
            var session: [String: Any] = [
                "id": row[0].text ?? "", "kind": row[1].text ?? "", "rpName": row[2].text ?? "",
                "displayText": row[3].text ?? "",
                "digest": WireFormat.hex(row[4].blob ?? []), "keyID": row[5].text ?? "",
            ]
            if let challenge = row[6].blob { session["rpChallenge"] = Data(challenge).base64EncodedString() }
            return session
        }
        return Self.json(answer)
    }

    /// A page's `limit` or `offset`: ASCII decimal digits only, else 400. Swift's `Int` takes a
    /// sign, and "１０" (fullwidth) quietly meaning the first page would hide a client's bug.
    static func pageNumber(_ text: String?, _ name: String) throws -> Int? {
        guard let text else { return nil }
        guard (1...9).contains(text.utf8.count),
            text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let value = Int(text)
        else {
            throw Failure(
                status: 400, code: "bad-request",
                message: "\(name) takes a number of ASCII digits 0-9 (at most 9 of them)")
        }
        return value
    }

    /// One session as the device sees it (it computes what it signs from this itself).
    func sessionInfo(_ caller: Caller, sessionID: String) throws -> HTTPResponse {
        guard
            let row = try store.database.query(
                """
                SELECT s.kind, s.rp_name, s.display_text, s.digest, s.state, s.key_id, s.expires_at, k.document_number, s.rp_challenge, s.created_at FROM sessions s
                JOIN keys k ON k.key_id = s.key_id WHERE s.id = ?
                """, [.text(sessionID)]
            ).first, row[7].text == caller.document, caller.keys.contains(row[5].text ?? "")
        else {
            throw Failure(status: 404, code: "unknown-session", message: "no such session for this device")
        }
        var state = row[4].text ?? "FAILED"
        if ["PENDING", "COMMITTED", "PROVED"].contains(state), (row[6].integer ?? 0) < CoSignerStore.now() {
            state = "EXPIRED"
        }
        var info: [String: Any] = [
            "id": sessionID, "kind": row[0].text ?? "", "rpName": row[1].text ?? "", "displayText": row[2].text ?? "",
            "digest": WireFormat.hex(row[3].blob ?? []), "state": state, "keyID": row[5].text ?? "",
            "createdAt": row[9].integer ?? 0, "expiresAt": row[6].integer ?? 0,
        ]
        if let challenge = row[8].blob { info["rpChallenge"] = Data(challenge).base64EncodedString() }
        return Self.json(info)
    }

    /// The account's activity log (events without secrets), newest first.
    func activity(_ caller: Caller, document: String) throws -> HTTPResponse {
        guard caller.document == document else {
            throw Failure(status: 403, code: "bad-device-token", message: "not this device's account")
        }
        return Self.json([
            "activity": try store.activity(documentNumber: document).map {
                ["event": $0.event, "detail": $0.detail, "at": $0.at.formatted(.iso8601)]
            }
        ])
    }

    /// Ends, without locking, the key's signing sessions open past their deadline (which counts
    /// from commit): a COMMITTED one drops its k2, a PROVED one (its c3 went out and no finish
    /// came back) is EXPIRED. The server alone cannot tell an answer lost on the network (or its
    /// own restart) from an attack, and locking on a timeout would let anyone who drops one
    /// segment force a re-enrollment; the device locks its own share when a c3 it decrypted
    /// fails (ShareGuard), and reports that as `crypto_fail`, which does lock here. Logged, so
    /// the person sees it. Rows from before `open_until` count from the session's own expiry.
    func expireUnfinished(_ keyText: String, document: String) throws {
        let now = CoSignerStore.now()
        let unfinished = try store.database.query(
            """
            SELECT id, state FROM sessions WHERE key_id = ? AND state IN ('COMMITTED', 'PROVED') AND COALESCE(open_until, expires_at + ?) < ?
            """, [.text(keyText), .integer(Int64(sessionLifetime)), .integer(now)])
        for row in unfinished {
            guard let id = row[0].text, let state = row[1].text,
                try store.database.execute(
                    "UPDATE sessions SET state = 'EXPIRED', protocol_state = NULL WHERE id = ? AND state = ?",
                    [.text(id), .text(state)]) == 1
            else { continue }
            try store.log(
                document, "session-expired", "\(id) \(state == "PROVED" ? "after c3, never finished" : "before c3")")
        }
    }

    /// commit / prove / finish for one session. Each step reads the session's sealed state from
    /// its row, computes, and moves the row to the next state with a compare-and-set (`UPDATE …
    /// WHERE id = ? AND state = ?`), so of two instances given the same step at once exactly one
    /// answers and the other says 409; the nonce share k2 leaves the row in the move that
    /// answers prove, so at most one c3 is ever computed for it, by any instance.
    func signStep(_ request: HTTPRequest, _ caller: Caller, sessionID: String, step: String) throws -> HTTPResponse {
        guard
            let row = try store.database.query(
                """
                SELECT s.key_id, s.digest, s.state, s.expires_at, k.document_number, s.protocol_state FROM sessions s JOIN keys k ON k.key_id = s.key_id WHERE s.id = ?
                """, [.text(sessionID)]
            ).first, let keyText = row[0].text, let keyID = Hex.bytes(keyText, count: 32)
        else {
            throw Failure(status: 404, code: "unknown-session", message: "no such session")
        }
        guard row[4].text == caller.document, caller.keys.contains(keyText) else {
            throw Failure(
                status: 403, code: "not-your-session", message: "the session is for a key this device did not enroll")
        }
        // finish and abandon are taken after the session's expiry: a signature whose c3 went
        // out may still be delivered (its finish resent after a lost answer), and a session may
        // always be given up. A PROVED session never finished ends EXPIRED at the key's next
        // commit (expireUnfinished).
        guard step == "finish" || step == "abandon" || (row[3].integer ?? 0) >= CoSignerStore.now() else {
            throw Failure(status: 410, code: "session-expired", message: "the session expired")
        }
        if step == "commit" { try expireUnfinished(keyText, document: caller.document) }
        guard let key = try store.loadKey(keyID), !key.locked else {
            throw Failure(status: 423, code: "key-locked", message: "the key is locked")
        }
        let body = try Self.object(request)
        let message = Self.strings(body["message"])
        let state = row[2].text ?? ""
        let wrongState = { (expected: String) in
            Failure(status: 409, code: "wrong-state", message: "the session is not in state \(expected)")
        }
        /// The compare-and-set: `from` → `to`, the sealed state replaced by `sealed` (nil: dropped).
        func move(from: String, to: String, sealed: [UInt8]? = nil) throws {
            let changed = try store.database.execute(
                "UPDATE sessions SET state = ?, protocol_state = ? WHERE id = ? AND state = ?",
                [.text(to), sealed.map { .blob($0) } ?? .null, .text(sessionID), .text(from)])
            guard changed == 1 else { throw wrongState(from) }
        }
        /// The session's sealed state for `expected` (the state the row was read in).
        func storedState(_ expected: String) throws -> SigningSessionState? {
            try row[5].blob.flatMap {
                try store.openSessionState($0, sessionID: sessionID, keyID: keyID, state: expected)
            }
        }
        let unreadable = Failure(
            status: 422, code: "session-state-unreadable",
            message:
                "the session's stored state does not open for this session (edited, moved or replayed in the database, or sealed with another server key); start a new session"
        )
        switch step {
        case "commit":
            let commit = try WireFormat.decodeSignCommitRequest(message)
            guard commit.keyID == keyID, commit.digest == row[1].blob else {
                throw Failure(
                    status: 422, code: "digest-mismatch", message: "the commit is not for this session's key and digest"
                )
            }
            guard state == "PENDING" else { throw wrongState("PENDING") }
            // A client nonce is good for one session per key: a replayed commit is refused.
            guard
                try store.database.query(
                    "SELECT 1 FROM sessions WHERE key_id = ? AND client_nonce = ?",
                    [.text(keyText), .blob(commit.clientNonce)]
                ).isEmpty
            else {
                throw ThresholdError.unexpectedMessage("sign/commit replayed")
            }
            let (response, committed) = try party.commitSigning(key.share, commit)
            let sealed = try store.sealSessionState(.committed(committed), sessionID: sessionID, keyID: keyID)
            // PENDING → COMMITTED only while no other session of the key is open. The NOT EXISTS
            // answers the common case; the unique index over open states holds it when two
            // instances commit two sessions of one key at the same moment (the loser's UPDATE
            // fails on the index, and it answers 409 with nothing handed out).
            let changed: Int
            do {
                changed = try store.database.execute(
                    """
                    UPDATE sessions SET state = 'COMMITTED', protocol_state = ?, client_nonce = ?, open_until = ?
                    WHERE id = ? AND state = 'PENDING' AND NOT EXISTS (SELECT 1 FROM sessions other WHERE other.key_id = ? AND other.state IN ('COMMITTED', 'PROVED'))
                    """,
                    [
                        .blob(sealed), .blob(commit.clientNonce),
                        .integer(CoSignerStore.now() + Int64(party.sessionLifetime)),
                        .text(sessionID), .text(keyText),
                    ])
            } catch let error as DatabaseError where error.isConstraintViolation {
                changed = 0
            }
            guard changed == 1 else {
                let now = try store.database.query("SELECT state FROM sessions WHERE id = ?", [.text(sessionID)]).first?
                    .first?.text
                guard now == "PENDING" else { throw wrongState("PENDING") }
                throw Failure(
                    status: 409, code: "another-session-open", message: "another signing session of this key is open")
            }
            return Self.json(["message": WireFormat.encode(response)])
        case "cancel":
            try move(from: "COMMITTED", to: "FAILED")
            try store.log(caller.document, "session-declined", sessionID)
            return Self.json(["state": "FAILED"])
        case "abandon":
            return try abandonSession(sessionID, reason: body["reason"] as? String, document: caller.document)
        case "prove":
            guard state == "COMMITTED" else { throw wrongState("COMMITTED") }
            /// No c3 went out (a bad message or a state that does not open): the session
            /// fails, the key stays usable.
            func fail(_ error: Error) throws -> Never {
                if try store.database.execute(
                    "UPDATE sessions SET state = 'FAILED', protocol_state = NULL WHERE id = ? AND state = 'COMMITTED'",
                    [.text(sessionID)]) == 1
                {
                    try store.log(caller.document, "session-failed", "\(sessionID) before c3")
                }
                throw error
            }
            guard case .committed(let committed)? = try storedState("COMMITTED") else { try fail(unreadable) }
            let r: BigInt
            do {
                r = try party.checkProve(key.share, committed, WireFormat.decodeSignProveRequest(message))
            } catch {
                try fail(error)
            }
            // The move that consumes k2 (dropped from the row, r kept for finish): only the
            // request that makes it computes and answers a c3.
            try move(
                from: "COMMITTED", to: "PROVED",
                sealed: store.sealSessionState(.proved(r: r), sessionID: sessionID, keyID: keyID))
            do {
                let c3 = try party.serverCiphertext(key.share, committed, r: r)
                return Self.json(["message": try WireFormat.encode(c3)])
            } catch {
                try store.database.execute(
                    "UPDATE sessions SET state = 'FAILED', protocol_state = NULL WHERE id = ? AND state = 'PROVED'",
                    [.text(sessionID)])
                try store.log(caller.document, "session-failed", "\(sessionID) before c3")
                throw error
            }
        case "finish":
            guard state == "PROVED" else { throw wrongState("PROVED") }
            let finish = try WireFormat.decodeSignFinishRequest(message)  // malformed: 4xx, the session stays PROVED
            // A PROVED row from before the state was stored has none: the signature is then
            // checked under the key and the session's digest only.
            var r: BigInt?
            if row[5].blob != nil {
                guard case .proved(let stored)? = try storedState("PROVED") else { throw unreadable }
                r = stored
            }
            return try finishSession(
                sessionID, keyID: keyID, digest: row[1].blob ?? [], r: r, share: key.share, finish: finish,
                document: caller.document)
        default:
            throw Failure(status: 404, code: "not-found", message: "no step \(step)")
        }
    }

    /// `{reason: "c3-not-received"}`: the device never got (or never decrypted) this session's
    /// c3 — the answer to `prove` or `commit` was lost, the co-signer restarted, or the answer
    /// was unusable — and ends the session. COMMITTED or PROVED → ABANDONED, its stored state
    /// dropped, the key NOT locked: a device that decrypted a c3 which failed its checks sends
    /// `crypto_fail` instead (and locks its own share first). The device must not retry `prove`
    /// for the session (k2 is gone, so there is never a second c3 for it); it starts a new session.
    func abandonSession(_ sessionID: String, reason: String?, document: String) throws -> HTTPResponse {
        guard reason == "c3-not-received" else {
            throw Failure(
                status: 400, code: "bad-request",
                message: "abandon needs reason \"c3-not-received\"; report a failed c3 with finish (crypto_fail)")
        }
        // A conditional UPDATE: a session that already ended is left alone; a prove still
        // computing loses its compare-and-set and releases no c3.
        guard
            let before = try store.database.query("SELECT state FROM sessions WHERE id = ?", [.text(sessionID)]).first?
                .first?.text,
            before == "COMMITTED" || before == "PROVED",
            try store.database.execute(
                "UPDATE sessions SET state = 'ABANDONED', protocol_state = NULL WHERE id = ? AND state = ?",
                [.text(sessionID), .text(before)]) == 1
        else {
            throw Failure(
                status: 409, code: "wrong-state",
                message: "only a committed or proved session can be abandoned; this one is not open")
        }
        try store.log(
            document, "session-abandoned",
            "\(sessionID) \(before == "PROVED" ? "after" : "before") c3: the device did not receive it")
        return Self.json(["state": "ABANDONED"])
    }

    /// The last step: the signature checked under the key and this session's digest, then the
    /// session COMPLETE. A crypto failure reported by the device, or a signature that does not
    /// verify, fails the session and locks the key in one transaction — but only for the
    /// session's first finish (a duplicate after COMPLETE changes nothing).
    func finishSession(
        _ sessionID: String, keyID: [UInt8], digest: [UInt8], r: BigInt?, share: ServerKeyShare,
        finish: ThresholdMessage.SignFinishRequest, document: String
    ) throws -> HTTPResponse {
        let signature: (r: BigInt, s: BigInt)
        do {
            signature = try ServerParty.checkFinish(share, digest: digest, r: r, finish)
        } catch ThresholdError.signatureCheckFailed {
            // Only the signature itself locks: a database error on the way (unavailable, a
            // statement timeout, a cancelled query, a read-only failover) is the service's
            // failure, not evidence against the device, and the device sends finish again.
            let ended = try store.database.transaction { () -> Bool in
                let changed = try store.database.execute(
                    "UPDATE sessions SET state = 'FAILED', protocol_state = NULL WHERE id = ? AND state = 'PROVED'",
                    [.text(sessionID)])
                if changed == 1 { try store.lockKey(keyID, reason: "failed signature in session \(sessionID)") }
                return changed == 1
            }
            guard ended else { throw Failure(status: 409, code: "wrong-state", message: "the session already ended") }
            throw ThresholdError.signatureCheckFailed
        }
        let changed = try store.database.execute(
            "UPDATE sessions SET state = 'COMPLETE', signature = ?, protocol_state = NULL WHERE id = ? AND state = 'PROVED'",
            [.blob(Scalar.encode(signature.r) + Scalar.encode(signature.s)), .text(sessionID)])
        guard changed == 1 else {
            throw Failure(status: 409, code: "wrong-state", message: "the session already ended")
        }
        try store.log(document, "session-signed", sessionID)
        return Self.json(["state": "COMPLETE"])
    }
}
