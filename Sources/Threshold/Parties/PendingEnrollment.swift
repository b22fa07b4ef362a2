import FoundationEssentials
import Glibc
import TamgaCore

/// An enrollment between `init` and `complete`: the session id, the device's init and the
/// server's share x2 (sealed in the enrollment's row like a signing session's state).
/// Storage form: `version 1 | kind 3 | sid 32 | clientPID 32 | clientNonce 32 | commitmentQ1 32 | x2 32`.
public struct PendingEnrollment: Sendable {
    public let sid: [UInt8]
    public let request: ThresholdMessage.EnrollInitRequest
    let x2: BigInt

    static let storageSize = 2 + 5 * 32

    public var storageBytes: [UInt8] {
        // As SigningSessionState: the share appended last into the result, its encoding wiped.
        var out: [UInt8] =
            [SigningSessionState.version, 3] + sid + request.clientPID + request.clientNonce
            + request.commitmentQ1.value
        var share = Scalar.encode(x2)
        defer { wipe(&share) }
        out.reserveCapacity(out.count + share.count)
        out += share
        return out
    }

    public init(storageBytes bytes: [UInt8]) throws {
        guard bytes.count == Self.storageSize, bytes[0] == SigningSessionState.version, bytes[1] == 3 else {
            throw ThresholdError.keyStore("a stored enrollment has \(bytes.count) bytes or an unknown version")
        }
        let fields = stride(from: 2, to: Self.storageSize - 32, by: 32).map { Array(bytes[$0..<($0 + 32)]) }
        var secret = Array(bytes[(Self.storageSize - 32)...])
        defer { wipe(&secret) }
        let x2 = try Scalar.decode(secret)
        guard !x2.isZero else { throw ThresholdError.invalidScalar("a stored x2 is zero") }
        self.init(
            sid: fields[0],
            request: .init(clientPID: fields[1], clientNonce: fields[2], commitmentQ1: Commitment(value: fields[3])),
            x2: x2)
    }

    init(sid: [UInt8], request: ThresholdMessage.EnrollInitRequest, x2: BigInt) {
        self.sid = sid
        self.request = request
        self.x2 = x2
    }
}
