import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// Device attestation on Linux. There is no App Attest or Secure Enclave here, so the device
/// proves it is the enrolled device with its own P-256 key (`DeviceKey`, a 0600 file in the
/// account's folder): every `/v3/mobile/*` call (and the enrollment's last step, which registers
/// the key) carries `X-Attestation: v1:<nonce>:<signature>`, an ECDSA signature over a
/// one-time nonce from the co-signer bound to the method, path and body of that very request.
/// The co-signer answers each attested call with `X-Next-Attestation-Nonce`, so only the first
/// call of a run pays for `GET /v3/attestation/challenge` (the seed's saved round trip).
///
/// This binds requests to a key file, not to hardware: whoever copies the account folder can
/// act as the device (the share itself still needs the PIN, and every PIN try goes through the
/// co-signer's count: docs/threshold-pin.md).
public final class DeviceAttestation: @unchecked Sendable {  // unchecked: `nonces` behind `lock`; `key` immutable
    public let key: DeviceKey
    private let lock = Lock()
    private var nonces: [[UInt8]] = []

    public init(key: DeviceKey) { self.key = key }

    /// The bytes the device signs: domain, nonce, and hashes of what the request does.
    public static func message(nonce: [UInt8], method: String, path: String, body: [UInt8]) -> Data {
        var message = Array("tamga-attestation-v1".utf8) + [0]
        message += nonce
        message += Array(Digest.compute(.sha256, over: Data("\(method) \(path)".utf8)).bytes)
        message += Array(Digest.compute(.sha256, over: Data(body)).bytes)
        return Data(message)
    }

    /// The header value for one request.
    public func header(nonce: [UInt8], method: String, path: String, body: [UInt8]) throws -> String {
        let signature = try key.sign(Self.message(nonce: nonce, method: method, path: path, body: body))
        return "v1:\(WireFormat.hex(nonce)):\(WireFormat.hex(Array(signature)))"
    }

    /// Parses `v1:<64 hex>:<128 hex>` into the nonce and the raw r‖s signature.
    public static func parse(_ header: String) -> (nonce: [UInt8], signature: [UInt8])? {
        let parts = header.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, parts[0] == "v1", parts[1].count == 64, parts[2].count == 128,
            let nonce = Hex.bytes(parts[1], count: 32), let signature = Hex.bytes(parts[2], count: 64)
        else { return nil }
        return (nonce, signature)
    }

    /// A nonce the co-signer handed out with an earlier answer, if one is left.
    func takeNonce() -> [UInt8]? { lock.withLock { nonces.popLast() } }

    /// Keeps a nonce from `X-Next-Attestation-Nonce` (a few at most: they expire).
    func keep(_ nonce: [UInt8]) {
        lock.withLock {
            nonces.append(nonce)
            if nonces.count > 4 { nonces.removeFirst() }
        }
    }
}
