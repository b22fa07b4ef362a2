import FoundationEssentials
import Glibc
import TamgaCore
import TamgaSupport

/// RP API v3 signing (`RAW_DIGEST_SIGNATURE`): the digest signed with RSASSA-PSS, MGF1 over the
/// same hash, a salt as long as the hash, trailer 0xbc (RFC 8017; the xmldsig-more
/// `sha256-rsa-MGF1` form XAdES names). The service draws the verification code and returns it
/// with the session: it is shown as received, before the status is polled.
extension SmartIDSigner {
    /// v3's names for the hash algorithms, and their lengths in bytes.
    static func v3HashName(_ digest: DigestAlgorithm) -> String? {
        switch digest {
        case .sha256: "SHA-256"
        case .sha384: "SHA-384"
        case .sha512: "SHA-512"
        default: nil
        }
    }

    func signV3(digest: Digest) async throws -> Data {
        guard let hashName = Self.v3HashName(digest.algorithm) else {
            throw CoreError.digestAlgorithmMismatch(expected: algorithm.digest, actual: digest.algorithm)
        }
        let offered = Self.interactions(client.configuration.displayText)
        let interactions = Data(try JSON.data(offered)).base64EncodedString()
        let started = try await client.post(
            "signature/notification/document/\(documentNumber)",
            [
                "certificateLevel": "QUALIFIED",
                "signatureProtocol": "RAW_DIGEST_SIGNATURE",
                "signatureProtocolParameters": [
                    "digest": Data(digest.bytes).base64EncodedString(), "signatureAlgorithm": "rsassa-pss",
                    "signatureAlgorithmParameters": ["hashAlgorithm": hashName],
                ] as [String: Any],
                "interactions": interactions,
                "nonce": try Self.nonce(),
            ])
        let session = try client.sessionID(started)
        showVerificationCode(try Self.serviceVerificationCode(started))
        let status = try await client.pollUntilComplete("session/\(session)")
        try checkEnd(status)
        try checkV3Reply(
            status, hashName: hashName, size: digest.algorithm.length, offered: offered.compactMap { $0["type"] })
        try checkReturnedCertificate((status["cert"] as? [String: Any])?["value"], required: true)
        let signature = status["signature"] as? [String: Any] ?? [:]
        let value = try client.bytes(signature["value"], "signature.value")
        guard signingCertificate.publicKey.verify(signature: value, digest: digest, algorithm: algorithm) else {
            throw RemoteSigningError.signatureInvalid(
                service: Self.service, detail: "it does not verify under the certificate for this hash (RSASSA-PSS)")
        }
        return value
    }

    /// The code to show: the service's (`vc`, type numeric4: four ASCII digits), not one computed here.
    static func serviceVerificationCode(_ started: [String: Any]) throws -> String {
        guard let vc = started["vc"] as? [String: Any], vc["type"] as? String == "numeric4",
            let code = vc["value"] as? String,
            code.utf8.count == 4, code.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else {
            throw RemoteSigningError.malformedResponse(
                service: service, detail: "no four-digit verification code (vc) with the session")
        }
        return code
    }

    /// What the reply must say before its value is worth checking: the protocol and algorithm
    /// asked for, PSS parameters that are the ones XAdES's URI implies, the notification flow,
    /// and one of the interactions offered.
    func checkV3Reply(_ status: [String: Any], hashName: String, size: Int, offered: [String]) throws {
        func refuse(_ detail: String) -> RemoteSigningError { .signatureInvalid(service: Self.service, detail: detail) }
        func shown(_ value: Any?) -> String {
            switch value {
            case let text as String: TextLimits.quoted(text)
            case let number as Int: String(number)
            case nil: "none"
            default: "of another type"
            }
        }
        guard status["signatureProtocol"] as? String == "RAW_DIGEST_SIGNATURE" else {
            throw refuse("signature protocol \(shown(status["signatureProtocol"])), RAW_DIGEST_SIGNATURE was asked for")
        }
        let signature = status["signature"] as? [String: Any] ?? [:]
        guard signature["signatureAlgorithm"] as? String == "rsassa-pss" else {
            throw refuse("algorithm \(shown(signature["signatureAlgorithm"])), rsassa-pss was asked for")
        }
        let parameters = signature["signatureAlgorithmParameters"] as? [String: Any] ?? [:]
        guard parameters["hashAlgorithm"] as? String == hashName else {
            throw refuse("hash \(shown(parameters["hashAlgorithm"])), \(hashName) was asked for")
        }
        let mask = parameters["maskGenAlgorithm"] as? [String: Any] ?? [:]
        guard mask["algorithm"] as? String == "id-mgf1",
            (mask["parameters"] as? [String: Any])?["hashAlgorithm"] as? String == hashName
        else {
            throw refuse(
                "mask generation \(shown(mask["algorithm"])) with \(shown((mask["parameters"] as? [String: Any])?["hashAlgorithm"])), MGF1 with \(hashName) is required"
            )
        }
        guard (parameters["saltLength"] as? Int) == size else {
            throw refuse("salt length \(shown(parameters["saltLength"])), \(size) (the hash's length) is required")
        }
        guard parameters["trailerField"] as? String == "0xbc" else {
            throw refuse("trailer field \(shown(parameters["trailerField"])), 0xbc is required")
        }
        guard signature["flowType"] as? String == "Notification" else {
            throw refuse("flow type \(shown(signature["flowType"])), a notification was started")
        }
        guard let used = status["interactionTypeUsed"] as? String, offered.contains(used) else {
            throw refuse("interaction \(shown(status["interactionTypeUsed"])), which was not offered")
        }
    }
}
