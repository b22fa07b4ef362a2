import Foundation
import TamgaCore
import Threshold

/// The co-signer's database: enrollment codes, devices, keys (server shares sealed at rest with
/// the server key, bound to their key id), signing sessions and the activity log. One SQLite
/// file (WAL); every state change is one transaction.
public final class CoSignerStore: @unchecked Sendable {   // unchecked: Database serialises; `serverKey` is immutable
    public let database: Database
    /// Seals what the co-signer keeps secret at rest (server shares, PIN guards).
    let serverKey: [UInt8]
    let random: RandomSource

    /// Schema versions, applied in order (never edited once released; add a new one).
    static let migrations = [
        """
        CREATE TABLE enrollment_codes (
            code_hash TEXT PRIMARY KEY, document_number TEXT NOT NULL,
            expires_at INTEGER NOT NULL, used_at INTEGER);
        CREATE TABLE devices (
            token_hash TEXT PRIMARY KEY, document_number TEXT NOT NULL,
            device_key BLOB NOT NULL, created_at INTEGER NOT NULL);
        CREATE TABLE keys (
            key_id TEXT PRIMARY KEY, document_number TEXT NOT NULL, role TEXT NOT NULL CHECK (role IN ('auth', 'sign')),
            share BLOB NOT NULL, public_key BLOB NOT NULL, certificate BLOB,
            locked INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL);
        CREATE INDEX keys_by_document ON keys(document_number);
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY, key_id TEXT NOT NULL REFERENCES keys(key_id), kind TEXT NOT NULL CHECK (kind IN ('SIGN', 'AUTH')),
            digest BLOB NOT NULL, rp_name TEXT NOT NULL, display_text TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('PENDING', 'COMMITTED', 'PROVED', 'COMPLETE', 'FAILED', 'EXPIRED')),
            created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, signature BLOB);
        CREATE INDEX sessions_by_key ON sessions(key_id, state);
        CREATE TABLE activity (
            id INTEGER PRIMARY KEY AUTOINCREMENT, document_number TEXT NOT NULL, event TEXT NOT NULL, detail TEXT NOT NULL, at INTEGER NOT NULL);
        """,
        """
        CREATE TABLE server_identity (
            id INTEGER PRIMARY KEY CHECK (id = 1), pid BLOB NOT NULL, ring_pedersen BLOB NOT NULL, created_at INTEGER NOT NULL);
        """,
        // One code enrolls both keys of a document number (auth and sign), each once.
        // AUTH sessions keep the relying party's challenge (the device rebuilds the digest).
        """
        ALTER TABLE enrollment_codes ADD COLUMN roles_used TEXT NOT NULL DEFAULT '';
        ALTER TABLE sessions ADD COLUMN rp_challenge BLOB;
        """,
        // A device is allowed the keys it enrolled (not every key of its document).
        """
        ALTER TABLE devices ADD COLUMN key_id TEXT;
        CREATE INDEX devices_by_key ON devices(key_id);
        """,
        // Relying parties are registered by the operator and authenticate with an API key
        // (stored as a hash); the name shown on the device and bound into AUTH is theirs.
        """
        CREATE TABLE relying_parties (
            name TEXT PRIMARY KEY, key_hash TEXT NOT NULL UNIQUE, created_at INTEGER NOT NULL);
        """,
        // A session the device abandoned (it never received the c3) is ABANDONED, not FAILED:
        // it ends without locking the key. SQLite cannot change a CHECK, so the table is rebuilt
        // (nothing references sessions).
        """
        CREATE TABLE sessions_new (
            id TEXT PRIMARY KEY, key_id TEXT NOT NULL REFERENCES keys(key_id), kind TEXT NOT NULL CHECK (kind IN ('SIGN', 'AUTH')),
            digest BLOB NOT NULL, rp_name TEXT NOT NULL, display_text TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('PENDING', 'COMMITTED', 'PROVED', 'COMPLETE', 'FAILED', 'EXPIRED', 'ABANDONED')),
            created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, signature BLOB, rp_challenge BLOB);
        INSERT INTO sessions_new (id, key_id, kind, digest, rp_name, display_text, state, created_at, expires_at, signature, rp_challenge)
            SELECT id, key_id, kind, digest, rp_name, display_text, state, created_at, expires_at, signature, rp_challenge FROM sessions;
        DROP TABLE sessions;
        ALTER TABLE sessions_new RENAME TO sessions;
        CREATE INDEX sessions_by_key ON sessions(key_id, state);
        """,
        // Per key, the co-signer's half of every PIN check (docs/threshold-pin.md): the OPRF
        // secret and the PIN's verifier (sealed with the server key), the evaluations not yet
        // followed by a proof of the right PIN, and the nonce of the last one.
        """
        CREATE TABLE pin_guards (
            key_id TEXT PRIMARY KEY REFERENCES keys(key_id), secrets BLOB NOT NULL,
            unconfirmed INTEGER NOT NULL DEFAULT 0, attempt BLOB, updated_at INTEGER NOT NULL);
        """,
        // The server key wrapped by a key on a PKCS#11 token (--server-key pkcs11:LABEL): one
        // row, so that every instance on this database unwraps the same key (CoSignerStore+ServerKey).
        """
        CREATE TABLE server_key (
            id INTEGER PRIMARY KEY CHECK (id = 1), token_key_label TEXT NOT NULL, wrapped BLOB NOT NULL, created_at INTEGER NOT NULL);
        """,
        // Every piece of state a later request needs is in the database, so any co-signer
        // instance answers any step (CoSignerStore+SessionState): a session's protocol state
        // sealed with the server key, the device's commit nonce (unique per key: a replayed
        // commit is refused), until when the session stays open after commit; one open signing
        // session per key as a unique index over the open states; pending enrollments; used
        // attestation nonces. Sessions left open by an older co-signer had their k2 in that
        // process only: COMMITTED ones end here, and of PROVED ones (which can still finish) only
        // the newest per key stays open, so the index can be made.
        """
        UPDATE sessions SET state = 'EXPIRED' WHERE state = 'COMMITTED';
        UPDATE sessions SET state = 'EXPIRED' WHERE state = 'PROVED' AND EXISTS (
            SELECT 1 FROM sessions newer WHERE newer.key_id = sessions.key_id AND newer.state = 'PROVED'
            AND (newer.created_at > sessions.created_at OR (newer.created_at = sessions.created_at AND newer.id > sessions.id)));
        ALTER TABLE sessions ADD COLUMN protocol_state BLOB;
        ALTER TABLE sessions ADD COLUMN client_nonce BLOB;
        ALTER TABLE sessions ADD COLUMN open_until INTEGER;
        CREATE UNIQUE INDEX sessions_one_open_per_key ON sessions(key_id) WHERE state IN ('COMMITTED', 'PROVED');
        CREATE UNIQUE INDEX sessions_by_client_nonce ON sessions(key_id, client_nonce);
        CREATE TABLE enrollments (
            client_nonce TEXT PRIMARY KEY, state TEXT NOT NULL CHECK (state IN ('INITIALISED', 'CONSUMED')),
            pending BLOB, created_at INTEGER NOT NULL);
        CREATE INDEX enrollments_by_age ON enrollments(created_at);
        CREATE TABLE used_nonces (nonce BLOB PRIMARY KEY, expires_at INTEGER NOT NULL);
        CREATE INDEX used_nonces_by_expiry ON used_nonces(expires_at);
        """,
    ]

    /// Opens the database at `path`; `serverKey` is the 32-byte key sealing the server shares.
    public convenience init(path: String, serverKey: [UInt8], random: RandomSource = SystemRandom()) throws {
        try self.init(database: Database(path: path, migrations: Self.migrations), serverKey: serverKey, random: random)
    }

    /// A store on a database already opened (and migrated): for a server key that is read from
    /// the database itself (`sealingKey(in:wrapper:)`).
    public init(database: Database, serverKey: [UInt8], random: RandomSource = SystemRandom()) throws {
        guard serverKey.count == 32 else { throw ThresholdError.keyStore("the server key must be 32 bytes") }
        self.database = database
        self.serverKey = serverKey
        self.random = random
    }

    /// Reads the server key from a file of 32 bytes (made with mode 0600 if missing).
    public static func serverKey(file: String, random: RandomSource = SystemRandom()) throws -> [UInt8] {
        if let data = FileManager.default.contents(atPath: file) {
            guard data.count == 32 else { throw ThresholdError.keyStore("\(file) must hold exactly 32 bytes") }
            return Array(data)
        }
        let key = try random.bytes(32, label: "cosigner.server-key")
        let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ThresholdError.keyStore("cannot create \(file)") }
        defer { close(fd) }
        guard key.withUnsafeBytes({ write(fd, $0.baseAddress, 32) }) == 32, fsync(fd) == 0 else { throw ThresholdError.keyStore("cannot write \(file)") }
        return key
    }

    public static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
    public static func hash(_ text: String) -> String {
        Digest.compute(.sha256, over: Data(text.utf8)).hex
    }

    // MARK: Server identity

    /// The server's party id and ring-Pedersen parameters, made once (two safe primes, tens of
    /// seconds; `generate` is only called when there are none yet) and kept sealed with the
    /// server key: clients pin the parameters, so they must survive restarts and be the same on
    /// every instance sharing the database. Instances that start together on an empty database
    /// each make a set, but only the first insert counts; the others read the winner's back.
    public func serverIdentity(generate: ((RandomSource) throws -> RingPedersenSecret)? = nil) throws -> (pid: [UInt8], ringPedersen: RingPedersenSecret) {
        if let stored = try storedServerIdentity() { return stored }
        let pid = try random.bytes(32, label: "cosigner.pid")
        let secret = try generate?(random) ?? RingPedersenSecret.generate(random: random)
        var plain = secret.storageBytes
        defer { for index in plain.indices { plain[index] = 0 } }
        let sealed = try SealedBox.seal(plain, key: serverKey, additionalData: Array("ring-pedersen".utf8), random: random)
        let inserted = try database.execute("INSERT INTO server_identity (id, pid, ring_pedersen, created_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                                            [.blob(pid), .blob(sealed), .integer(Self.now())])
        if inserted == 1 { return (pid, secret) }
        guard let winner = try storedServerIdentity() else { throw ThresholdError.keyStore("the server identity was neither inserted nor found") }
        return winner
    }

    /// The identity already in the database, nil when there is none yet.
    private func storedServerIdentity() throws -> (pid: [UInt8], ringPedersen: RingPedersenSecret)? {
        guard let row = try database.query("SELECT pid, ring_pedersen FROM server_identity WHERE id = 1").first,
              let pid = row[0].blob, let sealed = row[1].blob else { return nil }
        guard var plain = try SealedBox.open(sealed, key: serverKey, additionalData: Array("ring-pedersen".utf8)) else {
            throw ThresholdError.keyStore("the stored server identity does not open with this server key")
        }
        defer { for index in plain.indices { plain[index] = 0 } }
        return (pid, try RingPedersenSecret(storageBytes: plain))
    }

    // MARK: Enrollment codes (the operator's stand-in for the KYC consent code)

    /// A one-time code for `documentNumber`, valid for `lifetime` seconds: 12 characters from an
    /// alphabet without look-alikes. Only its hash is stored.
    public func issueEnrollmentCode(documentNumber: String, lifetime: TimeInterval = 24 * 3600) throws -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        let code = String(try random.bytes(12, label: "cosigner.code").map { alphabet[Int($0) % alphabet.count] })
        try database.execute("INSERT INTO enrollment_codes (code_hash, document_number, expires_at) VALUES (?, ?, ?)",
                             [.text(Self.hash(code)), .text(documentNumber), .integer(Self.now() + Int64(lifetime))])
        try log(documentNumber, "enrollment-code-issued", "valid \(Int(lifetime)) s")
        return code
    }

    /// The document number a live code was issued for, if it may still enroll a `role` key.
    public func enrollmentCode(_ code: String, allows role: ShareRole) throws -> String? {
        guard let row = try database.query("SELECT document_number, roles_used FROM enrollment_codes WHERE code_hash = ? AND used_at IS NULL AND expires_at >= ?",
                                           [.text(Self.hash(code)), .integer(Self.now())]).first,
              let document = row[0].text, let used = row[1].text else { return nil }
        return used.split(separator: ",").contains(Substring(role.rawValue)) ? nil : document
    }

    /// Uses up a code for one role atomically (call inside the transaction that stores the key):
    /// the document number it was issued for, or nil when unknown, expired, or already used for
    /// this role. Once both roles are enrolled the code is spent.
    public func consumeEnrollmentCode(_ code: String, role: ShareRole) throws -> String? {
        try database.transaction {
            guard let document = try enrollmentCode(code, allows: role) else { return nil }
            let hash = Self.hash(code)
            let used = (try database.query("SELECT roles_used FROM enrollment_codes WHERE code_hash = ?", [.text(hash)]).first?.first?.text ?? "")
                .split(separator: ",").map(String.init) + [role.rawValue]
            let spent = Set(used) == Set(ShareRole.allCases.map(\.rawValue))
            try database.execute("UPDATE enrollment_codes SET roles_used = ?, used_at = ? WHERE code_hash = ?",
                                 [.text(used.joined(separator: ",")), spent ? .integer(Self.now()) : .null, .text(hash)])
            return document
        }
    }

    // MARK: Relying parties

    /// Registers a relying party: its API key (printed once; only the hash is kept).
    public func addRelyingParty(name: String) throws -> String {
        guard !name.isEmpty, name.utf8.count <= 200, name.trimmingCharacters(in: .whitespaces) == name else {
            throw ThresholdError.keyStore("a relying party's name is 1 to 200 bytes, with no space at either end")
        }
        // The name is what a person sees on their device before approving: nothing that could
        // rewrite the prompt, and nothing that reads like a name already registered.
        if let why = TerminalText.refusal(in: name) { throw ThresholdError.keyStore("the relying party's name is refused: \(why)") }
        if let taken = ReservedNames.reserved(name) {
            throw ThresholdError.reservedName("\"\(name)\" reads as \"\(taken)\", a name the co-signer gives its own sessions (reserved: \(ReservedNames.all.joined(separator: ", ")) and names starting \(ReservedNames.ownSessionLimiterPrefix))")
        }
        let lookAlike = TerminalText.lookAlikeKey(name)
        if let existing = try database.query("SELECT name FROM relying_parties").compactMap({ $0.first?.text })
            .first(where: { TerminalText.lookAlikeKey($0) == lookAlike }) {
            throw ThresholdError.keyStore("a relying party named \(existing) is already registered (names that differ only in case or spacing are the same name)")
        }
        let key = WireFormat.hex(try random.bytes(32, label: "cosigner.rp-key"))
        do {
            try database.execute("INSERT INTO relying_parties (name, key_hash, created_at) VALUES (?, ?, ?)",
                                 [.text(name), .text(Self.hash(key)), .integer(Self.now())])
        } catch {
            throw ThresholdError.keyStore("a relying party named \(name) is already registered")
        }
        return key
    }

    /// The registered name for an API key, nil when unknown.
    public func relyingParty(apiKey: String) throws -> String? {
        try database.query("SELECT name FROM relying_parties WHERE key_hash = ?", [.text(Self.hash(apiKey))]).first?.first?.text
    }

    // MARK: Keys

    /// Stores a server share sealed with the server key (the key id as additional data, so a
    /// sealed share cannot be moved to another row).
    public func saveKey(_ share: ServerKeyShare, documentNumber: String, role: ShareRole) throws {
        var plain = share.storageBytes
        defer { for index in plain.indices { plain[index] = 0 } }
        let sealed = try SealedBox.seal(plain, key: serverKey, additionalData: share.keyID, random: random)
        try database.transaction {
            try database.execute("INSERT INTO keys (key_id, document_number, role, share, public_key, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                                 [.text(WireFormat.hex(share.keyID)), .text(documentNumber), .text(role.rawValue), .blob(sealed),
                                  .blob(share.publicKey.compressed), .integer(Self.now())])
            try log(documentNumber, "key-enrolled", "\(role.rawValue) \(WireFormat.hex(share.keyID).prefix(16))")
        }
    }

    public struct StoredKey: Sendable {
        public let share: ServerKeyShare
        public let documentNumber: String
        public let role: ShareRole
        public let locked: Bool
    }

    /// The key id of a document number's key for `role`, if enrolled.
    public func keyID(documentNumber: String, role: ShareRole) throws -> [UInt8]? {
        try database.query("SELECT key_id FROM keys WHERE document_number = ? AND role = ? ORDER BY created_at DESC LIMIT 1",
                           [.text(documentNumber), .text(role.rawValue)]).first?.first?.text.flatMap { Hex.bytes($0, count: 32) }
    }

    public func loadKey(_ keyID: [UInt8]) throws -> StoredKey? {
        guard let row = try database.query("SELECT share, document_number, role, locked FROM keys WHERE key_id = ?", [.text(WireFormat.hex(keyID))]).first,
              let sealed = row[0].blob, let document = row[1].text, let role = row[2].text.flatMap(ShareRole.init(rawValue:)) else { return nil }
        guard var plain = try SealedBox.open(sealed, key: serverKey, additionalData: keyID) else {
            throw ThresholdError.keyStore("a stored share does not open with this server key")
        }
        defer { for index in plain.indices { plain[index] = 0 } }
        return StoredKey(share: try ServerKeyShare(storageBytes: plain), documentNumber: document, role: role, locked: row[3].integer != 0)
    }

    public func lockKey(_ keyID: [UInt8], reason: String) throws {
        try database.transaction {
            try database.execute("UPDATE keys SET locked = 1 WHERE key_id = ?", [.text(WireFormat.hex(keyID))])
            if let document = try database.query("SELECT document_number FROM keys WHERE key_id = ?", [.text(WireFormat.hex(keyID))]).first?.first?.text {
                try log(document, "key-locked", reason)
            }
        }
    }

    // MARK: Activity (no secrets: events and short, public details only)

    public func log(_ documentNumber: String, _ event: String, _ detail: String) throws {
        try database.execute("INSERT INTO activity (document_number, event, detail, at) VALUES (?, ?, ?, ?)",
                             [.text(documentNumber), .text(event), .text(detail), .integer(Self.now())])
    }

    public func activity(documentNumber: String, limit: Int = 100) throws -> [(event: String, detail: String, at: Date)] {
        try database.query("SELECT event, detail, at FROM activity WHERE document_number = ? ORDER BY id DESC LIMIT ?",
                           [.text(documentNumber), .integer(Int64(limit))]).map {
            ($0[0].text ?? "", $0[1].text ?? "", Date(timeIntervalSince1970: TimeInterval($0[2].integer ?? 0)))
        }
    }
}
