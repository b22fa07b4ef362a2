import Foundation
import TamgaCore
import Threshold

/// The one-time nonces devices sign (see `DeviceAttestation`). Kept in memory: they live two
/// minutes, and after a restart a device simply fetches a new challenge, so writing them to the
/// database would cost a disk sync per call for nothing. A nonce handed to a device (with an
/// answer) can be used by that device only; one from the public challenge endpoint by anyone
/// (enrollment has no device yet). Bounded, so a flood of challenges cannot exhaust memory.
final class AttestationNonces: @unchecked Sendable {   // unchecked: all state behind `lock`
    private struct Entry { let device: String?; let expires: Date }
    private let lock = NSLock()
    private var entries: [[UInt8]: Entry] = [:]
    private let random: RandomSource
    let lifetime: TimeInterval
    let capacity: Int

    init(random: RandomSource, lifetime: TimeInterval = 120, capacity: Int = 100_000) {
        self.random = random
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// A fresh nonce, for `device` (its token hash) only when given.
    func issue(for device: String?) throws -> [UInt8] {
        let nonce = try random.bytes(32, label: "cosigner.attestation-nonce")
        let now = Date()
        lock.withLock {
            if entries.count >= capacity {
                entries = entries.filter { $0.value.expires > now }
                // Still full: drop the ones closest to expiry (a flood of public challenges).
                if entries.count >= capacity {
                    for key in entries.sorted(by: { $0.value.expires < $1.value.expires }).prefix(capacity / 10).map(\.key) { entries[key] = nil }
                }
            }
            entries[nonce] = Entry(device: device, expires: now.addingTimeInterval(lifetime))
        }
        return nonce
    }

    /// Uses up `nonce` if it is live and `device` may use it.
    func consume(_ nonce: [UInt8], device: String?) -> Bool {
        lock.withLock {
            guard let entry = entries[nonce], entry.expires > Date(), entry.device == nil || entry.device == device else { return false }
            entries[nonce] = nil
            return true
        }
    }
}
