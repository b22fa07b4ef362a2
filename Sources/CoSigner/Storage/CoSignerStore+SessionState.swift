import FoundationEssentials
import Glibc
import TamgaCore
import Threshold

/// The protocol state of open signing sessions and pending enrollments, kept in their rows and
/// sealed with the server key (AES-256-GCM), so that any co-signer instance on the database can
/// answer the next step and a restart ends nothing. The additional data binds the sealed bytes
/// to their row and their state: a blob copied into another session's row, or an older state's
/// blob written back over a newer one, does not open.
extension CoSignerStore {
    /// How long a pending enrollment (between init and complete) stays usable, and how many
    /// there may be at once (whoever holds a code cannot fill the database by looping init).
    static let enrollmentLifetime: Int64 = 600
    static let maximumPendingEnrollments: Int64 = 10_000

    static func sessionStateBinding(sessionID: String, keyID: [UInt8], state: String) -> [UInt8] {
        Transcript.lengthPrefixed([
            Array("tamga/cosigner/session-state/v1".utf8), Array(sessionID.utf8), keyID, Array(state.utf8),
        ])
    }

    static func enrollmentBinding(clientNonce: [UInt8], state: String) -> [UInt8] {
        Transcript.lengthPrefixed([Array("tamga/cosigner/enrollment-state/v1".utf8), clientNonce, Array(state.utf8)])
    }

    /// The sealed bytes for `sessionID`'s row in `state.stateName`.
    func sealSessionState(_ state: SigningSessionState, sessionID: String, keyID: [UInt8]) throws -> [UInt8] {
        var plain = state.storageBytes
        defer { for index in plain.indices { plain[index] = 0 } }
        return try SealedBox.seal(
            plain, key: serverKey,
            additionalData: Self.sessionStateBinding(sessionID: sessionID, keyID: keyID, state: state.stateName),
            random: random)
    }

    /// The session's state, if `sealed` opens for this session, key and state name and decodes;
    /// nil otherwise (a row edited, moved or replayed, or sealed under another server key).
    func openSessionState(
        _ sealed: [UInt8], sessionID: String, keyID: [UInt8], state: String
    ) throws -> SigningSessionState? {
        guard
            var plain = try SealedBox.open(
                sealed, key: serverKey,
                additionalData: Self.sessionStateBinding(sessionID: sessionID, keyID: keyID, state: state))
        else { return nil }
        defer { for index in plain.indices { plain[index] = 0 } }
        guard let decoded = try? SigningSessionState(storageBytes: plain), decoded.stateName == state else {
            return nil
        }
        return decoded
    }

    // MARK: Pending enrollments

    /// Keeps an enrollment between init and complete: refused when its client nonce was seen in
    /// the last `enrollmentLifetime` (a replayed init) or too many are pending. Expired rows go.
    func savePendingEnrollment(_ pending: PendingEnrollment) throws {
        let id = WireFormat.hex(pending.request.clientNonce)
        var plain = pending.storageBytes
        defer { for index in plain.indices { plain[index] = 0 } }
        let sealed = try SealedBox.seal(
            plain, key: serverKey,
            additionalData: Self.enrollmentBinding(clientNonce: pending.request.clientNonce, state: "INITIALISED"),
            random: random)
        let now = Self.now()
        // Single statements rather than one SERIALIZABLE transaction: on PostgreSQL concurrent
        // inits would each read the whole table for the count and collide. The cap is a bound
        // on the table, not an exact figure (a few concurrent inits may pass it together); the
        // replay check is the primary key, exact across instances.
        try database.execute("DELETE FROM enrollments WHERE created_at < ?", [.integer(now - Self.enrollmentLifetime)])
        guard
            (try database.query("SELECT COUNT(*) FROM enrollments").first?.first?.integer ?? 0)
                < Self.maximumPendingEnrollments
        else {
            throw ThresholdError.unexpectedMessage("too many enrollments in progress; try again later")
        }
        guard
            try database.execute(
                "INSERT INTO enrollments (client_nonce, state, pending, created_at) VALUES (?, 'INITIALISED', ?, ?) ON CONFLICT DO NOTHING",
                [.text(id), .blob(sealed), .integer(now)]) == 1
        else {
            throw ThresholdError.unexpectedMessage("enroll/init replayed")
        }
    }

    /// Uses up the pending enrollment of `clientNonce` (at most once, across instances: a
    /// compare-and-set from INITIALISED to CONSUMED that also drops the sealed x2 from the row).
    func takePendingEnrollment(clientNonce: [UInt8]) throws -> PendingEnrollment {
        let id = WireFormat.hex(clientNonce)
        let missing = ThresholdError.unexpectedMessage("enroll/complete without a pending init")
        guard
            let sealed = try database.query(
                "SELECT pending FROM enrollments WHERE client_nonce = ? AND state = 'INITIALISED' AND created_at >= ?",
                [.text(id), .integer(Self.now() - Self.enrollmentLifetime)]
            ).first?.first?.blob,
            try database.execute(
                "UPDATE enrollments SET state = 'CONSUMED', pending = NULL WHERE client_nonce = ? AND state = 'INITIALISED'",
                [.text(id)]) == 1
        else { throw missing }
        guard
            var plain = try SealedBox.open(
                sealed, key: serverKey,
                additionalData: Self.enrollmentBinding(clientNonce: clientNonce, state: "INITIALISED"))
        else {
            throw missing
        }
        defer { for index in plain.indices { plain[index] = 0 } }
        guard let pending = try? PendingEnrollment(storageBytes: plain), pending.request.clientNonce == clientNonce
        else { throw missing }
        return pending
    }
}
