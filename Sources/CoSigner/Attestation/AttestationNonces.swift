import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport
import Threshold

/// The one-time nonces devices sign (see `DeviceAttestation`). Stateless, so that any co-signer
/// instance on the database accepts a nonce another one issued, and a restart loses none:
/// `expires 8 | random 8 | tag 16`, the tag an HMAC-SHA256 (truncated) under a key derived from
/// the server key over the expiry, the random part and whom the nonce is for. A nonce handed to
/// a device (with an answer) names that device (its token hash) and is good for it only; one
/// from the public challenge endpoint names no one and is good for anyone (enrollment has no
/// device yet). Issuing writes nothing, so a flood of challenges costs the server nothing;
/// using a nonce inserts it into `used_nonces` (its primary key makes the use single across
/// instances), where it stays until it expires.
///
/// The uses are written without a disk sync (`Database.withoutSync`): a use survives
/// the process being killed (it is in the WAL, in the system's cache) but not a power cut, and
/// it costs no disk sync — three per signature otherwise, about a third of an approval's time
/// (bench/cosigner.sh). After a power cut a nonce used in the last moments before it could be
/// used again within its remaining lifetime (at most 120 s): only by whoever captured the
/// signed request, to send that same request again, which each step's compare-and-set on the
/// session refuses a second time.
final class AttestationNonces: @unchecked Sendable {  // unchecked: `lock` guards `lastSweep`; the rest is immutable
    private let key: [UInt8]
    private let database: Database
    private let random: RandomSource
    let lifetime: TimeInterval
    private let lock = Lock()
    /// When this instance last deleted expired uses (once a minute at most).
    private var lastSweep: Int64 = 0

    init(serverKey: [UInt8], database: Database, random: RandomSource, lifetime: TimeInterval = 120) {
        key = Self.hmac(key: serverKey, Array("tamga/cosigner/attestation-nonce-key/v1".utf8))
        self.database = database
        self.random = random
        self.lifetime = lifetime
    }

    /// A fresh nonce, for `device` (its token hash) only when given.
    func issue(for device: String?) throws -> [UInt8] {
        let expires = UInt64(bitPattern: CoSignerStore.now() + Int64(lifetime))
        let body =
            (0..<8).reversed().map { UInt8(truncatingIfNeeded: expires >> (8 * UInt64($0))) }
            + (try random.bytes(8, label: "cosigner.attestation-nonce"))
        return body + tag(body, device: device)
    }

    /// Uses up `nonce` if it is genuine, live, for `device` (or for anyone) and not used before
    /// on any instance. Throws only when the database cannot record the use.
    func consume(_ nonce: [UInt8], device: String?) throws -> Bool {
        guard nonce.count == 32 else { return false }
        let body = Array(nonce[0..<16]), sent = Array(nonce[16..<32])
        let genuine =
            ConstantTime.equal(sent, tag(body, device: nil))
            || (device != nil && ConstantTime.equal(sent, tag(body, device: device)))
        let expires = Int64(bitPattern: body[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
        let now = CoSignerStore.now()
        guard genuine, expires > now else { return false }
        let sweep = lock.withLock { () -> Bool in
            guard now - lastSweep >= 60 else { return false }
            lastSweep = now
            return true
        }
        return try database.withoutSync {
            // Kept one lifetime past their expiry: an instance whose clock runs behind this
            // one's (by less than that) still finds a use it would otherwise accept again.
            if sweep {
                try database.execute("DELETE FROM used_nonces WHERE expires_at < ?", [.integer(now - Int64(lifetime))])
            }
            return try database.execute(
                "INSERT INTO used_nonces (nonce, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [.blob(nonce), .integer(expires)]) == 1
        }
    }

    private func tag(_ body: [UInt8], device: String?) -> [UInt8] {
        Array(
            Self.hmac(
                key: key,
                Transcript.lengthPrefixed([Array("attestation-nonce".utf8), body, Array((device ?? "").utf8)])
            ).prefix(16))
    }

    /// HMAC-SHA256 (RFC 2104); `key` is 32 bytes here.
    static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        let block = key + [UInt8](repeating: 0, count: 64 - min(64, key.count))
        let inner = Array(Digest.compute(.sha256, over: Data(block.map { $0 ^ 0x36 } + message)).bytes)
        return Array(Digest.compute(.sha256, over: Data(block.map { $0 ^ 0x5c } + inner)).bytes)
    }
}
