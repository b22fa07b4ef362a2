import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// The hashing conventions of `docs/design/threshold-ecdsa.md` §5.2 (suite `L17-2P-ECDSA/P-256/SHA-256/v1`):
/// every hash input is length-prefixed and domain-separated, so no two different item lists
/// hash alike (the TSSHOCK lesson), and every challenge covers the session id, a proof label,
/// the prover, the whole statement and every first message.
public enum Transcript {
    public static let suite = "L17-2P-ECDSA/P-256/SHA-256/v1"

    /// `LP(x1, …, xn) = ‖ u32be(len(xi)) ‖ xi`.
    public static func lengthPrefixed(_ items: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for item in items {
            let length = UInt32(item.count)
            out += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            out += item
        }
        return out
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] { Array(Digest.compute(.sha256, over: Data(bytes)).bytes) }

    /// `H(tag, items…) = SHA-256(LP(tag, items…))`.
    public static func taggedHash(_ tag: String, _ items: [[UInt8]]) -> [UInt8] {
        sha256(lengthPrefixed([Array(tag.utf8)] + items))
    }

    /// RFC 9380 §5.3.1 `expand_message_xmd` with SHA-256.
    public static func expandMessageXMD(_ message: [UInt8], domain: [UInt8], length: Int) -> [UInt8] {
        precondition(length > 0 && length <= 255 * 32 && domain.count <= 255, "expand_message_xmd limits")
        let blocks = (length + 31) / 32
        let domainPrime = domain + [UInt8(domain.count)]
        let messagePrime =
            [UInt8](repeating: 0, count: 64) + message + [UInt8(length >> 8), UInt8(length & 0xFF), 0] + domainPrime
        let b0 = sha256(messagePrime)
        var previous = sha256(b0 + [1] + domainPrime)
        var out = previous
        if blocks > 1 {
            for index in 2...blocks {
                previous = sha256(zip(b0, previous).map { $0 ^ $1 } + [UInt8(index)] + domainPrime)
                out += previous
            }
        }
        return Array(out.prefix(length))
    }

    /// A challenge scalar: `OS2IP(expand_message_xmd(LP(items), DST = tag, 48)) mod q` (bias ≤ 2^-128).
    public static func scalarChallenge(_ tag: String, _ items: [[UInt8]]) -> BigInt {
        BigInt(bytes: expandMessageXMD(lengthPrefixed(items), domain: Array(tag.utf8), length: 48)).modulo(P256.order)
    }

    /// A session id both sides compute and never take from the wire.
    public static func sessionID(
        phase: String, clientPID: [UInt8], serverPID: [UInt8], keyID: [UInt8],
        clientNonce: [UInt8], serverNonce: [UInt8], extra: [[UInt8]] = []
    ) -> [UInt8] {
        taggedHash(
            "L17v1/sid",
            [Array(suite.utf8), Array(phase.utf8), clientPID, serverPID, keyID, clientNonce, serverNonce] + extra)
    }
}

/// `Com = H("L17v1/commit", pid, local_nonce, label, payload, blind)`: sent before a joint
/// session id exists, opened later with `(payload, blind)`.
public struct Commitment: Sendable, Equatable {
    public let value: [UInt8]

    public init(value: [UInt8]) { self.value = value }

    public init(pid: [UInt8], nonce: [UInt8], label: String, payload: [UInt8], blind: [UInt8]) {
        value = Transcript.taggedHash("L17v1/commit", [pid, nonce, Array(label.utf8), payload, blind])
    }

    /// Recomputes and compares in constant time.
    public func opens(pid: [UInt8], nonce: [UInt8], label: String, payload: [UInt8], blind: [UInt8]) -> Bool {
        let recomputed = Commitment(pid: pid, nonce: nonce, label: label, payload: payload, blind: blind).value
        return ConstantTime.equal(recomputed, value)
    }
}
