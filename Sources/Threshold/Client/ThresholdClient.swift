import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// The device's side of the co-signer's HTTP API (docs/cosigner-api.md): enrollment, approving
/// a signing session (commit → prove → finish, the PIN only at finish), and the certificate of
/// an enrolled key (a request signed by the threshold key itself).
public struct ThresholdClient: Sendable {
    public let server: URL
    public let transport: HTTPTransport
    /// Signs device calls with the device key; nil only against a co-signer that does not ask.
    public let attestation: DeviceAttestation?
    /// How `finish` and `abandon` are resent when their answer may have been lost.
    public var retry: RetryPolicy

    public init(
        server: URL, transport: HTTPTransport = HTTPTransport(timeout: 30), attestation: DeviceAttestation? = nil,
        retry: RetryPolicy = RetryPolicy()
    ) {
        self.server = server
        self.transport = transport
        self.attestation = attestation
        self.retry = retry
    }

    /// The subject the co-signer's CA writes into a threshold key's certificate; the device builds
    /// its request with the same one, so both sides hash the same to-be-signed bytes.
    public static func certificateSubject(document: String, role: ShareRole) -> [(String, String)] {
        [
            ("C", "EE"), ("serialNumber", "PNOEE-\(document)"),
            ("CN", "THRESHOLD \(role == .sign ? "SIGNING" : "AUTHENTICATION") KEY,\(document)"),
        ]
    }

    /// One JSON call. `token` is the device's (for `/v3/mobile/*`); `apiKey` a relying party's
    /// (for `/v3/rp/*`).
    public func call(
        _ method: String, _ path: String, _ body: [String: Any]?, token: String? = nil, apiKey: String? = nil
    ) async throws -> [String: Any] {
        var headers = ["Content-Type": "application/json", "Accept": "application/json"]
        headers["X-Device-Token"] = token
        headers["Authorization"] = apiKey.map { "Bearer \($0)" }
        let data = try body.map { Data(try JSON.data($0)) }
        // A query (`?limit=…`) stays a query; the path alone is what attestation signs.
        let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var url = server.appendingPathComponent(String(parts[0]))
        if parts.count == 2, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.percentEncodedQuery = String(parts[1])
            url = components.url ?? url
        }
        let answer: Data
        // Only the calls the co-signer checks spend a nonce.
        if let attestation, path.hasPrefix("v3/mobile/") || path == "v3/enrollment/complete" {
            let cached = attestation.takeNonce()
            do {
                answer = try await attested(method, url, data, headers, attestation, nonce: cached)
            } catch CoreError.serviceRefused(_, _, 401, let code, _)
                where cached != nil && code == "stale-attestation-nonce"
            {
                // The kept nonce expired or the co-signer restarted (nonces live in its memory):
                // the call was refused before it did anything, so it is safe to send once more.
                answer = try await attested(method, url, data, headers, attestation, nonce: nil)
            }
        } else {
            let reply = try await transport.requestAnyStatus(
                method: method, url: url, body: data, headers: headers, service: "co-signer")
            answer = try Self.accepted(reply.status, reply.body, url: url)
        }
        guard let object = try JSON.parse(answer) as? [String: Any] else {
            throw ThresholdError.unexpectedMessage("the co-signer's answer is not a JSON object")
        }
        return object
    }

    /// One attested exchange: a nonce (kept, or a fresh challenge), the signed header, and the
    /// next nonce from the answer kept for the following call.
    private func attested(
        _ method: String, _ url: URL, _ body: Data?, _ headers: [String: String], _ attestation: DeviceAttestation,
        nonce kept: [UInt8]?
    ) async throws -> Data {
        var nonce = kept
        if nonce == nil {
            let challenge = try await transport.request(
                method: "GET", url: server.appendingPathComponent("v3/attestation/challenge"), body: nil,
                headers: ["Accept": "application/json"], service: "co-signer")
            let text = (try? JSON.parse(challenge) as? [String: Any])?["nonce"] as? String ?? ""
            guard text.count == 64, let bytes = Hex.bytes(text, count: 32) else {
                throw ThresholdError.unexpectedMessage("the co-signer's attestation challenge has no nonce")
            }
            nonce = bytes
        }
        guard let nonce else { throw ThresholdError.unexpectedMessage("no attestation nonce") }
        var headers = headers
        headers["X-Attestation"] = try attestation.header(
            nonce: nonce, method: method, path: url.path, body: body.map(Array.init) ?? [])
        let answer = try await transport.requestAnyStatus(
            method: method, url: url, body: body, headers: headers, service: "co-signer")
        // Error answers carry the next nonce too.
        if let next = answer.headers["x-next-attestation-nonce"], next.count == 64,
            let bytes = Hex.bytes(next, count: 32)
        {
            attestation.keep(bytes)
        }
        return try Self.accepted(answer.status, answer.body, url: url)
    }

    /// The body of a 200 answer; for any other status the co-signer's own code and message
    /// (`{"error": {"code", "message"}}`), so that a person reads why, not just a number.
    static func accepted(_ status: Int, _ body: Data, url: URL) throws -> Data {
        guard status != 200 else { return body }
        if let error = ((try? JSON.parse(body)) as? [String: Any])?["error"] as? [String: Any],
            let code = error["code"] as? String, let message = error["message"] as? String
        {
            throw CoreError.serviceRefused(
                service: "co-signer", url: url.absoluteString, status: status,
                code: String(code.prefix(100)), message: String(message.prefix(500)))
        }
        throw CoreError.serviceHTTPStatus(service: "co-signer", url: url.absoluteString, status: status)
    }

    static func combined(_ object: WireFormat.Object, _ lists: WireFormat.Lists = [:]) -> [String: Any] {
        var result: [String: Any] = object
        for (key, value) in lists { result[key] = value }
        return result
    }

    /// What enrollment leaves on the device besides the sealed share.
    public struct Registration: Codable, Sendable {
        public let server: String
        public let documentNumber: String
        public let deviceToken: String
        public let ringPedersenPin: String
        /// SHA-256 of the co-signer's TLS key, pinned at enrollment (https only).
        public let serverKey: String?

        public init(
            server: String, documentNumber: String, deviceToken: String, ringPedersenPin: String,
            serverKey: String? = nil
        ) {
            self.server = server
            self.documentNumber = documentNumber
            self.deviceToken = deviceToken
            self.ringPedersenPin = ringPedersenPin
            self.serverKey = serverKey
        }

        /// A transport that accepts only the pinned co-signer key (plain HTTP on loopback has none).
        public func transport(timeout: TimeInterval = 30) -> HTTPTransport {
            var transport = HTTPTransport(timeout: timeout)
            transport.pinnedServerKey = serverKey.flatMap { Hex.bytes($0, count: 32) }
            return transport
        }
    }

    /// Enrolls one key: the one-time code, the protocol's two round trips, the share sealed under
    /// `pin` in `store`, then the key's certificate. `progress` hears each step.
    public func enroll(
        code: String, role: ShareRole, pin pinValue: SecretBytes, store: ShareKeyStore,
        pinnedRingPedersen: [UInt8]? = nil,
        progress: (String) -> Void = { _ in }
    ) async throws -> (ClientKeyShare, Registration, Certificate) {
        // Pin the co-signer's key on first contact (checked against the system's trust or the
        // given anchors); every later call accepts that key only (the seed's CertPinner). The
        // device key of the account's folder (made on first use) attests every device call.
        // A PIN too short for its role is refused before the first request.
        try PINPolicy.check(pinValue, role: role)
        let device = try attestation ?? store.deviceAttestation()
        var pinned = transport
        var pin: [UInt8]?
        if server.scheme == "https" {
            pin = try await transport.serverKeyFingerprint(server)
            pinned.pinnedServerKey = pin
        }
        return try await ThresholdClient(server: server, transport: pinned, attestation: device)
            .enrollPinned(
                code: code, role: role, pin: pin, secret: pinValue, store: store,
                pinnedRingPedersen: pinnedRingPedersen, progress: progress)
    }

    func enrollPinned(
        code: String, role: ShareRole, pin serverKey: [UInt8]?, secret pin: SecretBytes, store: ShareKeyStore,
        pinnedRingPedersen: [UInt8]?,
        progress: (String) -> Void
    ) async throws -> (ClientKeyShare, Registration, Certificate) {
        let clientPID = Transcript.taggedHash(
            "L17v1/device", [Array(store.folder.path.utf8), Array(role.rawValue.utf8)])
        let (share, registration) = try await enrollShare(
            code: code, role: role, clientPID: clientPID, pinnedRingPedersen: pinnedRingPedersen,
            serverKey: serverKey, progress: progress)
        // The co-signer knows the key now: it hardens the PIN the share is sealed under.
        try await store.store(
            share, role: role, pin: pin, hardening: CoSignerPINHardening(client: self, token: registration.deviceToken))
        try store.saveRegistration(registration, role: role)
        progress("certificate: signing the request with the new key")
        let certificate = try await requestCertificate(
            share: share.publicShare, secretKey: share.secretKey, role: role, registration: registration,
            guard: store.shareGuard(role))
        try store.saveCertificate(certificate, role: role)
        return (share, registration, certificate)
    }

    /// The protocol part of enrollment: the code, the two round trips, the device key registered
    /// (this client's `attestation`). The share is not stored anywhere yet.
    public func enrollShare(
        code: String, role: ShareRole, clientPID: [UInt8], pinnedRingPedersen: [UInt8]? = nil,
        serverKey: [UInt8]? = nil,
        progress: (String) -> Void = { _ in }
    ) async throws -> (ClientKeyShare, Registration) {
        let client = try ClientEnrollment(pid: clientPID, pinnedRingPedersen: pinnedRingPedersen)
        progress("enrollment 1/2: commitment sent, waiting for the co-signer's share and parameters")
        let first = try await call(
            "POST", "v3/enrollment/init",
            ["code": code, "role": role.rawValue, "message": WireFormat.encode(client.initRequest)])
        let m1 = first["message"] as? [String: Any] ?? [:]
        let initResponse = try WireFormat.decodeEnrollInitResponse(
            m1.compactMapValues { $0 as? String }, m1.compactMapValues { $0 as? [String] })
        progress("enrollment 2/2: proving the Paillier key and the share (this takes a moment)")
        let (o2, l2) = try WireFormat.encode(client.complete(initResponse))
        let second = try await call(
            "POST", "v3/enrollment/complete",
            [
                "code": code, "role": role.rawValue, "clientNonce": WireFormat.hex(client.initRequest.clientNonce),
                "deviceKey": WireFormat.hex(Array(attestation?.key.subjectPublicKeyInfo ?? Data())),
                "message": Self.combined(o2, l2),
            ])
        let share = try client.finish(
            WireFormat.decodeEnrollCompleteResponse((second["message"] as? [String: String]) ?? [:]))
        guard let token = second["deviceToken"] as? String, let document = second["documentNumber"] as? String else {
            throw ThresholdError.unexpectedMessage("enrollment answer without a device token")
        }
        return (
            share,
            Registration(
                server: server.absoluteString, documentNumber: document, deviceToken: token,
                ringPedersenPin: WireFormat.hex(initResponse.ringPedersen.fingerprint),
                serverKey: serverKey.map(WireFormat.hex))
        )
    }

    /// A session as the co-signer describes it to this device.
    public struct SessionInfo: Sendable {
        public let id: String, kind: String, rpName: String, displayText: String, state: String
        public let digest: [UInt8]
        public let keyID: [UInt8]
        /// AUTH sessions: the relying party's challenge.
        public let rpChallenge: [UInt8]?
        public let expiresAt: Date?

        /// The role whose key the session needs.
        public var role: ShareRole { kind == "AUTH" ? .auth : .sign }

        /// What this device will sign, computed by the device: for AUTH the `ACSP_V2` digest of
        /// the challenge and its own key (which must be the co-signer's digest too, or the
        /// session is refused here); for SIGN the digest the relying party asked for.
        public func digestToSign(subjectPublicKeyInfo: Data) throws -> [UInt8] {
            guard kind == "AUTH" else { return digest }
            guard let rpChallenge, AuthenticationChallenge.allowedSizes.contains(rpChallenge.count) else {
                throw ThresholdError.unexpectedMessage("the AUTH session has no usable relying-party challenge")
            }
            let own = AuthenticationChallenge.digest(
                rpChallenge: rpChallenge, subjectPublicKeyInfo: subjectPublicKeyInfo, rpName: rpName)
            guard own == digest else {
                throw ThresholdError.unexpectedMessage(
                    "the co-signer's digest for AUTH session \(id) is not ACSP_V2 of its challenge and this device's key; refused"
                )
            }
            return own
        }

        /// The four digits the person compares with what the relying party shows (Smart-ID's
        /// rule: SHA-256 of the digest, its last two bytes as a number mod 10000). Computed
        /// here from the digest this device would sign, never taken from the co-signer: a
        /// co-signer that swapped the digest cannot make the codes agree.
        public func verificationCode(subjectPublicKeyInfo: Data) throws -> String {
            VerificationCode.smartID(hash: try digestToSign(subjectPublicKeyInfo: subjectPublicKeyInfo))
        }
    }

    static func sessionInfo(_ object: [String: Any]) throws -> SessionInfo {
        guard let id = object["id"] as? String,
            let digest = (object["digest"] as? String).flatMap({ Hex.bytes($0, count: 32) }),
            let key = (object["keyID"] as? String).flatMap({ Hex.bytes($0, count: 32) })
        else {
            throw ThresholdError.unexpectedMessage("a session description without id, digest or key")
        }
        return SessionInfo(
            id: id, kind: object["kind"] as? String ?? "", rpName: object["rpName"] as? String ?? "",
            displayText: object["displayText"] as? String ?? "", state: object["state"] as? String ?? "",
            digest: digest, keyID: key,
            rpChallenge: (object["rpChallenge"] as? String).flatMap {
                try? Base64.decode($0, field: "rpChallenge", maximumCount: 64)
            },
            expiresAt: (object["expiresAt"] as? Int).map { Date(timeIntervalSince1970: TimeInterval($0)) })
    }

    public func pending(_ registration: Registration) async throws -> [SessionInfo] {
        // The list is paged (50 a page); a co-signer caps what waits for one person well below
        // the 20 pages read here.
        var sessions: [SessionInfo] = []
        var offset = 0
        for _ in 0..<20 {
            let answer = try await call(
                "GET", "v3/mobile/pending/\(registration.documentNumber)?offset=\(offset)", nil,
                token: registration.deviceToken)
            sessions += try (answer["sessions"] as? [[String: Any]] ?? []).map(Self.sessionInfo)
            guard let next = answer["next"] as? Int, next > offset else { break }
            offset = next
        }
        return sessions
    }

    public func session(_ id: String, registration: Registration) async throws -> SessionInfo {
        try Self.sessionInfo(try await call("GET", "v3/mobile/session/\(id)", nil, token: registration.deviceToken))
    }

    public func activity(_ registration: Registration) async throws -> [[String: String]] {
        let answer = try await call(
            "GET", "v3/mobile/activity/\(registration.documentNumber)", nil, token: registration.deviceToken)
        return (answer["activity"] as? [[String: Any]] ?? []).map { $0.compactMapValues { $0 as? String } }
    }

    /// Commit → (PIN) → prove → finish for one session; throws `signatureNotDelivered` when the
    /// signature verified here but the co-signer never confirmed it (see `approveSession`).
    public func approve(
        sessionID: String, digest: [UInt8], share: ClientPublicShare, token: String, guard guardian: ShareGuard,
        secretKey: () async throws -> PaillierSecretKey
    ) async throws -> (r: BigInt, s: BigInt) {
        let approval = try await approveSession(
            sessionID: sessionID, digest: digest, share: share, token: token, guard: guardian, secretKey: secretKey)
        if let reason = approval.notDelivered { throw ThresholdError.signatureNotDelivered(reason) }
        return approval.signature
    }

    /// Commit → (PIN) → prove → finish for one session. The Paillier key is unlocked after the
    /// commit and before prove, so a wrong or refused PIN cancels the session before the
    /// co-signer computes any c3 (nothing leaks, nothing locks).
    ///
    /// A lost segment costs at most a retry, never a lock (docs/cosigner-api.md, "Lost packets"):
    /// - `crypto_fail` is sent only when this device's own checks of a c3 it decrypted failed;
    ///   the share is locked then (ShareGuard, before decryption), whatever happens to the report.
    /// - No usable c3 (the answer to commit or prove lost, reset, 5xx, garbled, or the co-signer
    ///   restarted): the device abandons the session (`c3-not-received`) and throws
    ///   `sessionAbandoned`; it never sends prove again for it (no second c3 for one k2).
    /// - A verified signature whose `finish` gets no answer is resent a few times (409 with the
    ///   session COMPLETE means an earlier try arrived). If it still is not confirmed, the
    ///   signature is returned anyway with `notDelivered` set: the device's own signing can use
    ///   it; for a relying party's session the caller must say it was not delivered.
    public func approveSession(
        sessionID: String, digest: [UInt8], share: ClientPublicShare, token: String, guard guardian: ShareGuard,
        secretKey: () async throws -> PaillierSecretKey
    ) async throws -> Approval {
        let signing = try ClientSigning(share: share, digest: digest, guard: guardian)
        let base = "v3/mobile/session/\(sessionID)/sign/"
        let committed: ThresholdMessage.SignCommitResponse
        do {
            let commit = try await call(
                "POST", base + "commit", ["message": WireFormat.encode(signing.commitRequest)], token: token)
            committed = try WireFormat.decodeSignCommitResponse((commit["message"] as? [String: String]) ?? [:])
        } catch {
            // The commit may have arrived with its answer lost, or the answer was unusable: the
            // session is ended (no c3 exists), or the key's one open session stays taken until
            // it expires. A refusal changed nothing on the co-signer.
            guard !RetryPolicy.isRefusal(error) else { throw error }
            await abandon(base, token: token)
            throw ThresholdError.sessionAbandoned("commit: \(error)")
        }
        let prove: ThresholdMessage.SignProveRequest
        do {
            prove = try signing.prove(committed)
        } catch {
            // The co-signer's R2 or its proof is wrong: no c3 exists yet, so the session ends
            // unlocked, but this is the co-signer's failure, not a lost packet (not retried).
            await abandon(base, token: token)
            throw error
        }
        let key: PaillierSecretKey
        do {
            key = try await secretKey()
        } catch {
            _ = try? await call("POST", base + "cancel", [:], token: token)
            throw error
        }
        let c3: ThresholdMessage.SignProveResponse
        do {
            let proved = try await call("POST", base + "prove", ["message": WireFormat.encode(prove)], token: token)
            c3 = try WireFormat.decodeSignProveResponse((proved["message"] as? [String: String]) ?? [:])
        } catch {
            // Nothing was decrypted, so nothing can have leaked: not a crypto failure. The
            // co-signer may hold a PROVED session whose c3 never arrived; the device says so.
            guard !RetryPolicy.isRefusal(error) else { throw error }
            await abandon(base, token: token)
            throw ThresholdError.sessionAbandoned("prove: \(error)")
        }
        let signature: (r: BigInt, s: BigInt)
        do {
            signature = try signing.finish(c3, secretKey: key)
        } catch {
            // The device's own checks of the c3 failed (its share is locked now): the one case
            // reported as crypto_fail, which locks the key on the co-signer too.
            try? await deliverFinish(
                base, ThresholdMessage.SignFinishRequest(signature: nil), sessionID: sessionID, token: token)
            throw error
        }
        do {
            try await deliverFinish(
                base, ThresholdMessage.SignFinishRequest(signature: signature), sessionID: sessionID, token: token)
            return Approval(r: signature.r, s: signature.s, notDelivered: nil)
        } catch {
            return Approval(r: signature.r, s: signature.s, notDelivered: "finish: \(error)")
        }
    }

    /// Ends a session whose c3 this device never received or never used (best effort: resent
    /// like `finish`; if it is lost too, the session expires on the co-signer, unlocked).
    func abandon(_ base: String, token: String) async {
        _ = try? await resend("POST", base + "abandon", ["reason": "c3-not-received"], token: token)
    }

    /// Sends `finish` until the co-signer answers. A 409 means an earlier try arrived and its
    /// answer was lost (or the session ended otherwise): a signature counts as delivered only
    /// when the session is then COMPLETE; a failure report once the session has ended at all.
    func deliverFinish(
        _ base: String, _ finish: ThresholdMessage.SignFinishRequest, sessionID: String, token: String
    ) async throws {
        do {
            _ = try await resend("POST", base + "finish", ["message": WireFormat.encode(finish)], token: token)
        } catch  where RetryPolicy.status(error) == 409 {
            guard finish.signature != nil else { return }
            let state = try await resend("GET", "v3/mobile/session/\(sessionID)", nil, token: token)["state"] as? String
            guard state == "COMPLETE" else { throw error }
        }
    }

    /// One call, sent again (after a pause) while its failure may be a lost segment; a refusal
    /// (4xx) is thrown at once.
    func resend(_ method: String, _ path: String, _ body: [String: Any]?, token: String) async throws -> [String: Any] {
        var attempt = 0
        while true {
            do {
                return try await call(method, path, body, token: token)
            } catch  where !RetryPolicy.isRefusal(error) && attempt + 1 < retry.attempts {
                attempt += 1
                try await Task.sleep(nanoseconds: UInt64(retry.delay(before: attempt) * 1_000_000_000))
            }
        }
    }

    /// A certificate for the enrolled key: the request's digest is signed through a session the
    /// device approves itself. The co-signer gets the request's to-be-signed bytes and rebuilds
    /// them itself (it signs no digest it did not compute).
    func requestCertificate(
        share: ClientPublicShare, secretKey: PaillierSecretKey, role: ShareRole, registration: Registration,
        guard guardian: ShareGuard
    ) async throws -> Certificate {
        let spki = TwoPartySigning.subjectPublicKeyInfo(share.publicKey)
        let request = try CertificateRequest(
            subjectPublicKeyInfo: spki,
            subject: Self.certificateSubject(document: registration.documentNumber, role: role))
        let digest = Array(request.digest.bytes)
        let session = try await call(
            "POST", "v3/mobile/certificate/session",
            [
                "keyID": WireFormat.hex(share.keyID), "request": WireFormat.hex(Array(request.toBeSigned)),
                "digest": WireFormat.hex(digest),
            ],
            token: registration.deviceToken)
        guard let id = session["sessionID"] as? String else {
            throw ThresholdError.unexpectedMessage("no session for the certificate request")
        }
        let signature = try await approve(
            sessionID: id, digest: digest, share: share, token: registration.deviceToken, guard: guardian
        ) { secretKey }
        let csr = try request.signed(with: Data(Scalar.encode(signature.r) + Scalar.encode(signature.s)))
        let issued = try await call(
            "POST", "v3/mobile/certificate", ["sessionID": id, "request": WireFormat.hex(Array(csr))],
            token: registration.deviceToken)
        guard let hex = issued["certificate"] as? String, let der = Hex.bytes(hex) else {
            throw ThresholdError.unexpectedMessage("no certificate in the co-signer's answer")
        }
        let certificate = try Certificate(der: Data(der))
        guard certificate.publicKey.subjectPublicKeyInfo == spki else {
            throw ThresholdError.unexpectedMessage("the certificate is for another key")
        }
        return certificate
    }
}
