import FoundationEssentials
import Glibc
import HTTPService
import TamgaCore
import Threshold

/// How many PIN tries the co-signer allows a key, and how fast.
public struct PINLimits: Sendable {
    /// Evaluations in a row without a proof of the right PIN; the next one is refused
    /// (`pin-blocked`) until the person enrolls again. The last allowed one can still be
    /// confirmed, so a person gets exactly this many tries.
    public var maximumUnconfirmed: Int
    /// Evaluations per second per key, sustained, and in one burst, while earlier ones are
    /// unconfirmed (a device whose last PIN was right is not slowed down).
    public var rate: Double
    public var burst: Double
    public init(maximumUnconfirmed: Int = 5, rate: Double = 1, burst: Double = 10) {
        self.maximumUnconfirmed = maximumUnconfirmed
        self.rate = rate
        self.burst = burst
    }
}

/// The co-signer's half of every PIN check (docs/threshold-pin.md). Per key: an OPRF secret k
/// (made at the key's first evaluation), the PIN's verifier (the device's authKey, registered
/// once after enrollment and replaced only with a proof under the old one), a count of
/// evaluations not followed by a proof, and the nonce of the last evaluation. The count goes up
/// *before* an evaluation leaves, in the same transaction that hands out its nonce; only a
/// proof over the last nonce under the verifier resets it. Whoever holds a copy of the device's
/// folder therefore gets `maximumUnconfirmed` guesses, not a dictionary.
final class PINGuards: @unchecked Sendable {  // unchecked: immutable; the store and the buckets serialise themselves
    let store: CoSignerStore
    let limits: PINLimits
    let random: RandomSource
    private let buckets: RateLimiter

    init(store: CoSignerStore, limits: PINLimits, random: RandomSource) {
        self.store = store
        self.limits = limits
        self.random = random
        buckets = RateLimiter(rate: limits.rate, burst: limits.burst)
    }

    typealias Failure = CoSignerService.Failure

    private static func additionalData(_ keyText: String) -> [UInt8] { Array("pin-guard".utf8) + Array(keyText.utf8) }

    /// k ‖ verifier (32 + 0 or 32 bytes), opened with the server key.
    private func secrets(_ sealed: [UInt8], keyText: String) throws -> (key: BigInt, verifier: [UInt8]?) {
        guard var plain = try SealedBox.open(sealed, key: store.serverKey, additionalData: Self.additionalData(keyText))
        else {
            throw ThresholdError.keyStore("a PIN guard does not open with this server key")
        }
        defer { wipe(&plain) }
        guard plain.count == 32 || plain.count == 64 else { throw ThresholdError.keyStore("a PIN guard is damaged") }
        return (BigInt(bytes: plain[0..<32]), plain.count == 64 ? Array(plain[32..<64]) : nil)
    }

    private func seal(key: BigInt, verifier: [UInt8]?, keyText: String) throws -> [UInt8] {
        var plain = Scalar.encode(key) + (verifier ?? [])
        defer { wipe(&plain) }
        return try SealedBox.seal(
            plain, key: store.serverKey, additionalData: Self.additionalData(keyText), random: random)
    }

    /// One evaluation of k over the blinded PIN, counted first.
    func evaluate(_ request: PINMessages.EvaluateRequest, document: String) throws -> PINMessages.EvaluateResponse {
        let keyText = Hex.encode(request.keyID)
        // The rate limiter's token is taken once per request, not once per try of the
        // transaction (PostgreSQL runs a colliding transaction again).
        var tokenTaken = false
        let outcome: (key: BigInt, attempt: [UInt8], used: Int)? = try store.database.transaction {
            let row = try store.database.query(
                "SELECT secrets, unconfirmed FROM pin_guards WHERE key_id = ?", [.text(keyText)]
            ).first
            let key: BigInt, used: Int
            if let row, let sealed = row[0].blob {
                key = try secrets(sealed, keyText: keyText).key
                used = Int(row[1].integer ?? Int64(limits.maximumUnconfirmed))
            } else {
                key = try random.nonZeroInteger(below: P256.order, label: "cosigner.pin-oprf-key")
                used = 0
                try store.database.execute(
                    "INSERT INTO pin_guards (key_id, secrets, unconfirmed, updated_at) VALUES (?, ?, 0, ?)",
                    [
                        .text(keyText), .blob(try seal(key: key, verifier: nil, keyText: keyText)),
                        .integer(CoSignerStore.now()),
                    ])
            }
            // A device that confirms its PINs always starts from 0 and is never slowed down;
            // tries after an unconfirmed one (guessing) are rate-limited, refused ones too (each
            // refusal is logged in the person's activity).
            if used > 0, !tokenTaken {
                guard buckets.take(keyText) else {
                    throw Failure(
                        status: 429, code: "rate-limited",
                        message:
                            "PIN tries for this key after a wrong one come faster than \(limits.rate) a second; wait and try again"
                    )
                }
                tokenTaken = true
            }
            guard used < limits.maximumUnconfirmed else { return nil }
            let attempt = try random.bytes(32, label: "cosigner.pin-attempt")
            try store.database.execute(
                "UPDATE pin_guards SET unconfirmed = ?, attempt = ?, updated_at = ? WHERE key_id = ?",
                [.integer(Int64(used + 1)), .blob(attempt), .integer(CoSignerStore.now()), .text(keyText)])
            return (key, attempt, used + 1)
        }
        guard let outcome else {
            try store.log(
                document, "pin-blocked",
                "\(keyText.prefix(16)): \(limits.maximumUnconfirmed) PIN tries without the right PIN")
            throw Failure(
                status: 423, code: "pin-blocked",
                message:
                    "this key's PIN is blocked after \(limits.maximumUnconfirmed) tries without the right PIN; enroll the device again with a new code"
            )
        }
        return PINMessages.EvaluateResponse(
            evaluated: try OPRF.evaluate(request.blinded, key: outcome.key), attempt: outcome.attempt,
            attemptsLeft: limits.maximumUnconfirmed - outcome.used)
    }

    /// A proof that the last evaluation was for the right PIN: the count restarts; a verifier
    /// is registered (the first) or replaced (a PIN change, proved under the old one).
    func confirm(_ request: PINMessages.ConfirmRequest, document: String) throws -> Int {
        let keyText = Hex.encode(request.keyID)
        enum Verdict { case accepted(registered: Bool), badProof }
        let verdict: Verdict = try store.database.transaction {
            guard
                let row = try store.database.query(
                    "SELECT secrets, attempt FROM pin_guards WHERE key_id = ?", [.text(keyText)]
                ).first,
                let sealed = row[0].blob, let attempt = row[1].blob, attempt == request.attempt
            else {
                throw Failure(
                    status: 409, code: "stale-pin-attempt",
                    message: "that is not this key's last PIN evaluation; evaluate the PIN again")
            }
            let stored = try secrets(sealed, keyText: keyText)
            // The first verifier is taken as given (the device registers it right after
            // enrollment); later, only a proof under the registered one counts.
            guard let checking = stored.verifier ?? request.verifier,
                PINKeys.verify(proof: request.proof, authKey: checking, keyID: request.keyID, attempt: attempt)
            else {
                // One proof per evaluation: the nonce is spent either way.
                try store.database.execute("UPDATE pin_guards SET attempt = NULL WHERE key_id = ?", [.text(keyText)])
                return .badProof
            }
            let verifier = request.verifier ?? checking
            try store.database.execute(
                "UPDATE pin_guards SET secrets = ?, unconfirmed = 0, attempt = NULL, updated_at = ? WHERE key_id = ?",
                [
                    .blob(try seal(key: stored.key, verifier: verifier, keyText: keyText)),
                    .integer(CoSignerStore.now()), .text(keyText),
                ])
            return .accepted(registered: request.verifier != nil)
        }
        switch verdict {
        case .badProof:
            throw Failure(
                status: 422, code: "bad-pin-proof",
                message: "the proof does not match this key's PIN; the try stays counted")
        case .accepted(let registered):
            if registered { try store.log(document, "pin-set", String(keyText.prefix(16))) }
            return limits.maximumUnconfirmed
        }
    }
}
