import FoundationEssentials
import Glibc
import TamgaCore

/// The JSON bodies of the co-signer's PIN endpoints (docs/cosigner-api.md), fixed-width hex:
///
///     POST /v3/mobile/pin/evaluate  {keyID, blindedElement}          → {evaluatedElement, attempt, attemptsLeft}
///     POST /v3/mobile/pin/confirm   {keyID, attempt, proof[, verifier]} → {attemptsLeft}
///
/// Every decoder reads a bounded number of fixed-size fields and checks each point on the
/// curve; anything else is `unexpectedMessage`.
public enum PINMessages {
    public struct EvaluateRequest: Sendable {
        public let keyID: [UInt8]
        /// r·H(input), never the identity.
        public let blinded: Point
        public init(keyID: [UInt8], blinded: Point) {
            self.keyID = keyID
            self.blinded = blinded
        }
    }

    public struct EvaluateResponse: Sendable {
        public let evaluated: Point
        /// The co-signer's nonce for this evaluation: a proof of the right PIN names it.
        public let attempt: [UInt8]
        /// Evaluations left before the co-signer blocks the PIN, counting this one as used.
        public let attemptsLeft: Int
        public init(evaluated: Point, attempt: [UInt8], attemptsLeft: Int) {
            self.evaluated = evaluated
            self.attempt = attempt
            self.attemptsLeft = attemptsLeft
        }
    }

    public struct ConfirmRequest: Sendable {
        public let keyID: [UInt8]
        public let attempt: [UInt8]
        /// HMAC(authKey, …attempt): the evaluation was for the right PIN.
        public let proof: [UInt8]
        /// A new authKey: the first one after enrollment, or the next one at a PIN change.
        public let verifier: [UInt8]?
        public init(keyID: [UInt8], attempt: [UInt8], proof: [UInt8], verifier: [UInt8]?) {
            self.keyID = keyID
            self.attempt = attempt
            self.proof = proof
            self.verifier = verifier
        }
    }

    /// A field of exactly `count` bytes (2·count lowercase or uppercase hex digits).
    static func field(_ object: [String: Any], _ name: String, count: Int) throws -> [UInt8] {
        guard let text = object[name] as? String, text.utf8.count == 2 * count,
            let bytes = Hex.bytes(text, count: count)
        else {
            throw ThresholdError.unexpectedMessage("\(name) is not \(count) bytes of hex")
        }
        return bytes
    }

    static func point(_ object: [String: Any], _ name: String) throws -> Point {
        try Point(compressed: field(object, name, count: 33))
    }

    public static func encode(_ request: EvaluateRequest) -> [String: Any] {
        ["keyID": Hex.encode(request.keyID), "blindedElement": Hex.encode(request.blinded.compressed)]
    }

    public static func decodeEvaluateRequest(_ object: [String: Any]) throws -> EvaluateRequest {
        EvaluateRequest(keyID: try field(object, "keyID", count: 32), blinded: try point(object, "blindedElement"))
    }

    public static func encode(_ response: EvaluateResponse) -> [String: Any] {
        [
            "evaluatedElement": Hex.encode(response.evaluated.compressed), "attempt": Hex.encode(response.attempt),
            "attemptsLeft": response.attemptsLeft,
        ]
    }

    public static func decodeEvaluateResponse(_ object: [String: Any]) throws -> EvaluateResponse {
        guard let left = object["attemptsLeft"] as? Int, (0...1000).contains(left) else {
            throw ThresholdError.unexpectedMessage("attemptsLeft is not a small count")
        }
        return EvaluateResponse(
            evaluated: try point(object, "evaluatedElement"), attempt: try field(object, "attempt", count: 32),
            attemptsLeft: left)
    }

    public static func encode(_ request: ConfirmRequest) -> [String: Any] {
        var object: [String: Any] = [
            "keyID": Hex.encode(request.keyID), "attempt": Hex.encode(request.attempt),
            "proof": Hex.encode(request.proof),
        ]
        if let verifier = request.verifier { object["verifier"] = Hex.encode(verifier) }
        return object
    }

    public static func decodeConfirmRequest(_ object: [String: Any]) throws -> ConfirmRequest {
        ConfirmRequest(
            keyID: try field(object, "keyID", count: 32), attempt: try field(object, "attempt", count: 32),
            proof: try field(object, "proof", count: 32),
            verifier: object["verifier"] == nil ? nil : try field(object, "verifier", count: 32))
    }
}
