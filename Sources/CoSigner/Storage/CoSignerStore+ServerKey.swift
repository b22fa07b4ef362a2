import FoundationEssentials
import Glibc
import TamgaCore
import Threshold

/// The server key kept in the database, wrapped by a key on a PKCS#11 token
/// (`--server-key pkcs11:LABEL`): the database holds only the wrapped form, the token holds the
/// key that opens it, and every instance on the database unwraps the same server key at start.
/// The row is written once, on the first start with an empty database, and never replaced: a
/// new server key would leave every sealed share unopenable.
extension CoSignerStore {
    /// Bound into the wrapping, so that bytes wrapped by the same token key for another purpose
    /// do not open as a server key.
    static let serverKeyAdditionalData = Array("tamga cosigner server key v1".utf8)

    /// Opens (creating and migrating) the co-signer's database, for reading the server key
    /// from it before the store is made (`init(database:serverKey:)`).
    public static func openDatabase(path: String) throws -> Database {
        try Database(path: path, migrations: migrations)
    }

    /// The label of the token key that wrapped this database's server key, and when; nil when
    /// the database holds none (it uses a key file, or is new).
    public static func tokenWrappedServerKey(
        in database: Database
    ) throws -> (label: String, wrapped: [UInt8], createdAt: Date)? {
        guard
            let row = try database.query("SELECT token_key_label, wrapped, created_at FROM server_key WHERE id = 1")
                .first
        else { return nil }
        // A row with a missing column is not a key this program wrote: said, not trapped on.
        guard let label = row[0].text, let wrapped = row[1].blob, let created = row[2].integer else {
            throw ThresholdError.serverKeyMismatch("The database's wrapped server key (table server_key) is malformed")
        }
        return (label, wrapped, Date(timeIntervalSince1970: TimeInterval(created)))
    }

    /// The server key of a database guarded by `wrapper`'s token key: unwrapped from the
    /// database, or on the first start with an empty database made, wrapped and stored. A
    /// database whose key another token key wrapped, or whose shares a key file sealed, is
    /// refused before anything is written. The caller owns (and should wipe) the result.
    public static func sealingKey(
        in database: Database, wrapper: TokenKeyWrapper, random: RandomSource = SystemRandom()
    ) throws -> [UInt8] {
        if let stored = try tokenWrappedServerKey(in: database) { return try unwrap(stored, with: wrapper) }
        if try holdsSealedSecrets(database) {
            throw ThresholdError.serverKeyMismatch(
                "The database \(database.path) holds shares sealed with a server key file (--key/--server-key FILE), not with a key on a token; it cannot change to a token key"
            )
        }
        var key = try random.bytes(32, label: "cosigner.server-key")
        defer { wipe(&key) }
        let wrapped = try wrapper.wrap(key, additionalData: serverKeyAdditionalData)
        // Two instances starting on one empty database at once each make a key; the first row
        // stays, and both then unwrap that row, so they seal with one key.
        try database.execute(
            "INSERT INTO server_key (id, token_key_label, wrapped, created_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
            [.text(wrapper.keyLabel), .blob(wrapped), .integer(now())])
        guard let stored = try tokenWrappedServerKey(in: database) else {
            throw ThresholdError.keyStore(
                "the wrapped server key was written but cannot be read back from \(database.path)")
        }
        return try unwrap(stored, with: wrapper)
    }

    /// Moves a database from a key file to a token: wraps `fileKey` with `wrapper`'s token key
    /// into the database, after checking that it opens what the database holds sealed (its
    /// ring-Pedersen parameters, else a share). From then on the database refuses the key file.
    public static func wrapExistingKey(_ fileKey: [UInt8], in database: Database, wrapper: TokenKeyWrapper) throws {
        if let stored = try tokenWrappedServerKey(in: database) {
            throw ThresholdError.serverKeyMismatch(
                "The database \(database.path) keeps its server key wrapped by the token key labelled \(stored.label) already"
            )
        }
        guard try opensSealedSecrets(database, with: fileKey) else {
            throw ThresholdError.serverKeyMismatch(
                "The key file does not open what the database \(database.path) holds sealed: it is not this database's server key"
            )
        }
        let wrapped = try wrapper.wrap(fileKey, additionalData: serverKeyAdditionalData)
        // Checked before it is stored: a row that did not open would lock every share away.
        guard var again = try wrapper.unwrap(wrapped, additionalData: serverKeyAdditionalData) else {
            throw ThresholdError.keyStore("the token did not unwrap what it had just wrapped; nothing was stored")
        }
        defer { wipe(&again) }
        guard again == fileKey else {
            throw ThresholdError.keyStore("the token unwrapped other bytes than it wrapped; nothing was stored")
        }
        try database.execute(
            "INSERT INTO server_key (id, token_key_label, wrapped, created_at) VALUES (1, ?, ?, ?)",
            [.text(wrapper.keyLabel), .blob(wrapped), .integer(now())])
    }

    /// Whether `key` opens the database's sealed ring-Pedersen parameters (or, without them, a
    /// share); true for a database that holds nothing sealed.
    private static func opensSealedSecrets(_ database: Database, with key: [UInt8]) throws -> Bool {
        if let sealed = try database.query("SELECT ring_pedersen FROM server_identity WHERE id = 1").first?.first?.blob
        {
            guard var plain = try? SealedBox.open(sealed, key: key, additionalData: Array("ring-pedersen".utf8)) else {
                return false
            }
            wipe(&plain)
            return true
        }
        if let row = try database.query("SELECT key_id, share FROM keys LIMIT 1").first {
            guard let keyID = row[0].text.flatMap({ Hex.bytes($0, count: 32) }), let sealed = row[1].blob,
                var plain = try? SealedBox.open(sealed, key: key, additionalData: keyID)
            else { return false }
            wipe(&plain)
            return true
        }
        return true
    }

    /// Refuses a key file for a database whose server key is on a token: a key file would be
    /// made (or read) that opens none of its shares.
    public static func refuseKeyFile(for database: Database) throws {
        guard let stored = try tokenWrappedServerKey(in: database) else { return }
        throw ThresholdError.serverKeyMismatch(
            "The database \(database.path) keeps its server key wrapped by the token key labelled \(stored.label); start with --server-key pkcs11:\(stored.label), not a key file"
        )
    }

    private static func unwrap(
        _ stored: (label: String, wrapped: [UInt8], createdAt: Date), with wrapper: TokenKeyWrapper
    ) throws -> [UInt8] {
        guard var key = try wrapper.unwrap(stored.wrapped, additionalData: serverKeyAdditionalData) else {
            throw ThresholdError.serverKeyMismatch(
                "The database's server key was wrapped on \(stored.createdAt.formatted(.iso8601)) by a token key labelled \(stored.label), and the key labelled \(wrapper.keyLabel) on token \(wrapper.tokenLabel) does not open it (another token, or a key made again under the same label)"
            )
        }
        guard key.count == 32 else {
            wipe(&key)
            throw ThresholdError.serverKeyMismatch(
                "The database's wrapped server key opens to \(key.count) bytes, not 32")
        }
        return key
    }

    /// True when some secret in the database is sealed with a server key already.
    private static func holdsSealedSecrets(_ database: Database) throws -> Bool {
        let count =
            try database.query(
                "SELECT (SELECT COUNT(*) FROM server_identity) + (SELECT COUNT(*) FROM keys) + (SELECT COUNT(*) FROM pin_guards)"
            )
            .first?.first?.integer ?? 0
        return count > 0
    }
}
