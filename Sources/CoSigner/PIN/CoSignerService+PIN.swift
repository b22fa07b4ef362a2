import FoundationEssentials
import Glibc
import HTTPService
import TamgaCore
import Threshold

/// The PIN endpoints (docs/cosigner-api.md, docs/threshold-pin.md): attested device calls for a
/// key the calling device enrolled.
extension CoSignerService {
    /// The key must be this device's and not locked.
    private func requirePINKey(_ keyID: [UInt8], _ caller: Caller) throws {
        let keyText = Hex.encode(keyID)
        guard caller.keys.contains(keyText),
            let row = try store.database.query(
                "SELECT locked FROM keys WHERE key_id = ? AND document_number = ?",
                [.text(keyText), .text(caller.document)]
            ).first
        else {
            throw Failure(status: 404, code: "unknown-key", message: "no such key for this device")
        }
        guard row[0].integer == 0 else {
            throw Failure(status: 423, code: "key-locked", message: "the key is locked; enroll again")
        }
    }

    /// `POST /v3/mobile/pin/evaluate {keyID, blindedElement}` → `{evaluatedElement, attempt, attemptsLeft}`.
    func evaluatePIN(_ request: HTTPRequest, _ caller: Caller) throws -> HTTPResponse {
        let message = try PINMessages.decodeEvaluateRequest(Self.object(request))
        try requirePINKey(message.keyID, caller)
        return Self.json(PINMessages.encode(try pinGuards.evaluate(message, document: caller.document)))
    }

    /// `POST /v3/mobile/pin/confirm {keyID, attempt, proof[, verifier]}` → `{attemptsLeft}`.
    func confirmPIN(_ request: HTTPRequest, _ caller: Caller) throws -> HTTPResponse {
        let message = try PINMessages.decodeConfirmRequest(Self.object(request))
        try requirePINKey(message.keyID, caller)
        return Self.json(["attemptsLeft": try pinGuards.confirm(message, document: caller.document)])
    }
}
