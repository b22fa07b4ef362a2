import Foundation
import TamgaCore
import Threshold
import XCTest

/// The co-signer's OPRF evaluation in this process, for the key store's own tests (file formats,
/// the device's counter, the token wrap): the real RFC 9497 evaluation under a fixed secret, and
/// the verifier and proof checked as the co-signer checks them — but no counter or lockout,
/// which are the co-signer's (tested over HTTP with SQLite in CoSignerTests/PINHardeningTests).
final class InProcessPINHardening: PINHardening, @unchecked Sendable {  // unchecked: state behind `lock`
    private let lock = NSLock()
    private let key = BigInt(UInt(0x5eed_1234_abcd))
    private var verifiers: [[UInt8]: [UInt8]] = [:]
    private var attempts: [[UInt8]: [UInt8]] = [:]
    private(set) var evaluations = 0

    func evaluate(_ request: PINMessages.EvaluateRequest) async throws -> PINMessages.EvaluateResponse {
        let attempt = try SystemRandom().bytes(32, label: "test.attempt")
        lock.withLock {
            evaluations += 1
            attempts[request.keyID] = attempt
        }
        return PINMessages.EvaluateResponse(
            evaluated: try OPRF.evaluate(request.blinded, key: key), attempt: attempt, attemptsLeft: 100)
    }

    func confirm(_ request: PINMessages.ConfirmRequest) async throws {
        try lock.withLock {
            guard attempts[request.keyID] == request.attempt,
                let checking = verifiers[request.keyID] ?? request.verifier,
                PINKeys.verify(proof: request.proof, authKey: checking, keyID: request.keyID, attempt: request.attempt)
            else {
                throw ThresholdError.proofRejected("PIN proof")
            }
            verifiers[request.keyID] = request.verifier ?? checking
            attempts[request.keyID] = nil
        }
    }
}

/// `XCTAssertThrowsError` for async code.
func assertThrowsAsync(
    _ body: () async throws -> Void, _ message: String = "", file: StaticString = #filePath, line: UInt = #line,
    _ check: (Error) -> Void = { _ in }
) async {
    do {
        try await body()
        XCTFail("no error thrown \(message)", file: file, line: line)
    } catch {
        check(error)
    }
}
