import Foundation
import TamgaCore
import Threshold

/// The one-time nonces devices sign (see `DeviceAttestation`). Kept in memory: they live two
/// minutes, and after a restart a device simply fetches a new challenge, so writing them to the
/// database would cost a disk sync per call for nothing. A nonce handed to a device (with an
/// answer) can be used by that device only; one from the public challenge endpoint by anyone
/// (enrollment has no device yet). Public and per-device nonces are kept apart, each bounded,
/// so a flood of public challenges can neither exhaust memory nor push out devices' nonces.
/// Every nonce lives as long as every other, so expiry is first-in first-out (constant time).
final class AttestationNonces: @unchecked Sendable {   // unchecked: all state behind `lock`
    private struct Pool {
        var live: [[UInt8]: (device: String?, expires: Date)] = [:]
        var order: [[UInt8]] = []   // issue order; `head` is the oldest still listed
        var head = 0
        let capacity: Int

        mutating func expire(now: Date) {
            while head < order.count, (live[order[head]]?.expires ?? .distantPast) <= now || live.count > capacity {
                live[order[head]] = nil
                head += 1
            }
            if head > 4096, head * 2 > order.count { order.removeFirst(head); head = 0 }
        }

        mutating func add(_ nonce: [UInt8], device: String?, expires: Date) {
            live[nonce] = (device, expires)
            order.append(nonce)
        }
    }

    private let lock = NSLock()
    private var publicPool: Pool
    private var devicePool: Pool
    private let random: RandomSource
    let lifetime: TimeInterval

    init(random: RandomSource, lifetime: TimeInterval = 120, capacity: Int = 100_000) {
        self.random = random
        self.lifetime = lifetime
        publicPool = Pool(capacity: max(1, capacity / 2))
        devicePool = Pool(capacity: max(1, capacity / 2))
    }

    /// A fresh nonce, for `device` (its token hash) only when given.
    func issue(for device: String?) throws -> [UInt8] {
        let nonce = try random.bytes(32, label: "cosigner.attestation-nonce")
        let now = Date()
        lock.withLock {
            if device == nil {
                publicPool.add(nonce, device: nil, expires: now.addingTimeInterval(lifetime))
                publicPool.expire(now: now)
            } else {
                devicePool.add(nonce, device: device, expires: now.addingTimeInterval(lifetime))
                devicePool.expire(now: now)
            }
        }
        return nonce
    }

    /// Uses up `nonce` if it is live and `device` may use it.
    func consume(_ nonce: [UInt8], device: String?) -> Bool {
        lock.withLock {
            let now = Date()
            if let entry = devicePool.live[nonce] {
                guard entry.expires > now, entry.device == device else { return false }
                devicePool.live[nonce] = nil
                return true
            }
            guard let entry = publicPool.live[nonce], entry.expires > now else { return false }
            publicPool.live[nonce] = nil
            return true
        }
    }
}
