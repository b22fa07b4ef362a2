import FoundationEssentials
import Glibc
import TamgaCore

/// The co-signer's part of every PIN check (docs/threshold-pin.md): it evaluates the OPRF over
/// the blinded PIN, counting each evaluation, and resets its count only on a proof that the
/// last evaluation was for the right PIN. `ShareKeyStore` cannot seal or open a share without it.
public protocol PINHardening: Sendable {
    func evaluate(_ request: PINMessages.EvaluateRequest) async throws -> PINMessages.EvaluateResponse
    func confirm(_ request: PINMessages.ConfirmRequest) async throws
}

/// `PINHardening` over the co-signer's HTTP API, as an attested device call with the device's
/// token. A co-signer that cannot be reached or fails (5xx) becomes `coSignerNeeded` (nothing
/// unlocks offline); a blocked PIN is `pinBlocked`; any other refusal keeps the co-signer's
/// code and message (`CoreError.serviceRefused`).
public struct CoSignerPINHardening: PINHardening {
    public let client: ThresholdClient
    public let token: String

    public init(client: ThresholdClient, token: String) {
        self.client = client
        self.token = token
    }

    public func evaluate(_ request: PINMessages.EvaluateRequest) async throws -> PINMessages.EvaluateResponse {
        let answer = try await call("v3/mobile/pin/evaluate", PINMessages.encode(request))
        return try PINMessages.decodeEvaluateResponse(answer)
    }

    public func confirm(_ request: PINMessages.ConfirmRequest) async throws {
        _ = try await call("v3/mobile/pin/confirm", PINMessages.encode(request))
    }

    private func call(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        do {
            return try await client.call("POST", path, body, token: token)
        } catch CoreError.serviceRefused(_, _, 423, "pin-blocked", _) {
            throw ThresholdError.pinBlocked
        } catch let error as ThresholdError {
            throw error
        } catch let refusal as CoreError {
            // The co-signer answered with its reason (a bad proof, a stale attempt, too fast):
            // that reason, as it said it; only a co-signer that did not answer is "needed".
            if case .serviceRefused(_, _, let status, _, _) = refusal, status < 500 { throw refusal }
            throw ThresholdError.coSignerNeeded(String(describing: refusal))
        } catch {
            throw ThresholdError.coSignerNeeded(String(describing: error))
        }
    }
}
