import FoundationEssentials
import Glibc
import TamgaCore

/// What the co-signer must remember of one signing session between two requests, so that any
/// co-signer instance on the same database can answer the next step (the service seals it with
/// the server key and keeps it in the session's row).
///
/// - `committed`: after `commit`, before `prove`: the session id, the device's commit and the
///   server's nonce share k2. k2 is the secret: used for two different c3, it reveals the key,
///   so the service consumes it with the compare-and-set that moves the session to PROVED.
/// - `proved`: after `prove`: r, which `finish` checks the device's signature against.
///
/// Storage form (fixed width, so the decoder needs no lengths from the input):
/// `version 1 | kind 1 | fields`, kind 1 = committed (`sid 32 | keyID 32 | clientNonce 32 |
/// digest 32 | commitmentR1 32 | k2 32`), kind 2 = proved (`r 32`).
public enum SigningSessionState: Sendable {
    case committed(Committed)
    case proved(r: BigInt)

    public struct Committed: Sendable {
        public let sid: [UInt8]
        public let request: ThresholdMessage.SignCommitRequest
        let k2: BigInt
    }

    static let version: UInt8 = 1
    static let committedSize = 2 + 6 * 32
    static let provedSize = 2 + 32

    /// The state's name as the service stores it beside the sealed bytes (and binds into the
    /// sealing's additional data, so bytes sealed for one state never open as another).
    public var stateName: String {
        switch self {
        case .committed: "COMMITTED"
        case .proved: "PROVED"
        }
    }

    public var storageBytes: [UInt8] {
        switch self {
        case .committed(let state):
            // The secret goes last, appended into the one result (the caller wipes it), and its
            // own encoding is wiped here.
            var out: [UInt8] =
                [Self.version, 1] + state.sid + state.request.keyID + state.request.clientNonce + state.request.digest
                + state.request.commitmentR1.value
            var k2 = Scalar.encode(state.k2)
            defer { wipe(&k2) }
            out.reserveCapacity(out.count + k2.count)
            out += k2
            return out
        case .proved(let r):
            return [Self.version, 2] + Scalar.encode(r)
        }
    }

    /// Reads `storageBytes` back. Bounded: exact sizes, scalars below the group order and not
    /// zero; anything else is refused (the bytes come from a database row).
    public init(storageBytes bytes: [UInt8]) throws {
        guard bytes.count >= 2, bytes[0] == Self.version else {
            throw ThresholdError.keyStore("a stored signing session has an unknown version")
        }
        switch (bytes[1], bytes.count) {
        case (1, Self.committedSize):
            let fields = stride(from: 2, to: Self.committedSize - 32, by: 32).map { Array(bytes[$0..<($0 + 32)]) }
            var secret = Array(bytes[(Self.committedSize - 32)...])
            defer { wipe(&secret) }
            let k2 = try Scalar.decode(secret)
            guard !k2.isZero else { throw ThresholdError.invalidScalar("a stored k2 is zero") }
            self = .committed(
                Committed(
                    sid: fields[0],
                    request: .init(
                        keyID: fields[1], clientNonce: fields[2], digest: fields[3],
                        commitmentR1: Commitment(value: fields[4])),
                    k2: k2))
        case (2, Self.provedSize):
            let r = try Scalar.decode(Array(bytes[2...]))
            guard !r.isZero else { throw ThresholdError.invalidScalar("a stored r is zero") }
            self = .proved(r: r)
        default:
            throw ThresholdError.keyStore("a stored signing session has kind \(bytes[1]) and \(bytes.count) bytes")
        }
    }
}
