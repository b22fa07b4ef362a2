import FoundationEssentials
import Glibc
import TamgaCore

/// RP API v2 signing: PKCS#1 v1.5 over the hash, the verification code computed here from the
/// hash and shown before the request (so the push cannot beat it: the API's advice).
extension SmartIDSigner {
    func signV2(digest: Digest) async throws -> Data {
        guard let hashType = RemoteServiceClient.hashType(digest.algorithm) else {
            throw CoreError.digestAlgorithmMismatch(expected: algorithm.digest, actual: digest.algorithm)
        }
        let hash = Array(digest.bytes)
        showVerificationCode(VerificationCode.smartID(hash: hash))
        let started = try await client.post(
            "signature/document/\(documentNumber)",
            [
                "certificateLevel": "QUALIFIED", "hash": Data(hash).base64EncodedString(), "hashType": hashType,
                "allowedInteractionsOrder": Self.interactions(client.configuration.displayText),
                "nonce": try Self.nonce(),
            ])
        let session = try client.sessionID(started)
        let status = try await client.pollUntilComplete("session/\(session)")
        try checkEnd(status)
        try checkReturnedCertificate((status["cert"] as? [String: Any])?["value"], required: false)
        return try client.checkSignature(
            status["signature"] as? [String: Any] ?? [:], algorithm: algorithm, certificate: signingCertificate,
            digest: digest)
    }
}
