import FoundationEssentials
import Glibc
import TamgaCore

/// Signs through the Mobile-ID REST API: the certificate from `/certificate` when connecting,
/// then per signature `POST /signature` with the hash, the verification code handed to
/// `showVerificationCode` before any polling, and `GET /signature/session/{id}` long polls
/// until the phone answers. EC keys answer raw r‖s (already the XML-DSig form), RSA keys
/// PKCS#1 v1.5; either is checked under the certificate before it is returned.
// unchecked: immutable after connect (the client keeps the last session id behind its lock)
public final class MobileIDSigner: Signer, @unchecked Sendable {
    public static let service = "Mobile-ID"
    public let phoneNumber: String
    public let nationalIdentityNumber: String
    public let algorithm: SignatureAlgorithm
    private let signingCertificate: Certificate
    private let client: RemoteServiceClient
    private let showVerificationCode: @Sendable (String) -> Void

    /// The session id of the last signature request (for logs and tests).
    public var lastSessionID: String? { client.lastSession.id }

    /// HTTP statuses as the Mobile-ID documentation (and DigiDoc's proxy) define them.
    static func meaning(_ status: Int) -> String {
        switch status {
        case 400: "a parameter is missing or invalid"
        case 401: "the relying party's name, UUID or address is not authorised"
        case 404: "the session is unknown or expired"
        case 405: "method not allowed"
        case 409: "too many failed attempts; wait before trying again"
        case 429: "too many requests; wait before trying again"
        case 500...599: "the service failed; try again later"
        default: "an HTTP error the API does not describe"
        }
    }

    private init(
        phoneNumber: String, nationalIdentityNumber: String, certificate: Certificate, client: RemoteServiceClient,
        showVerificationCode: @escaping @Sendable (String) -> Void
    ) throws {
        self.phoneNumber = phoneNumber
        self.nationalIdentityNumber = nationalIdentityNumber
        self.signingCertificate = certificate
        self.client = client
        self.showVerificationCode = showVerificationCode
        guard let algorithm = certificate.publicKey.defaultAlgorithm,
            RemoteServiceClient.hashType(algorithm.digest) != nil
        else {
            throw RemoteSigningError.malformedResponse(
                service: Self.service, detail: "the certificate's key is neither EC P-256/P-384 nor RSA")
        }
        self.algorithm = algorithm
    }

    /// `+` and 8 to 30 ASCII digits: the form Mobile-ID's API takes (E.164 with no spaces).
    static func isPhoneNumber(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.first == UInt8(ascii: "+"), (9...31).contains(utf8.count) else { return false }
        return utf8.dropFirst().allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Fetches the person's signing certificate (XAdES needs it before the signature exists).
    public static func connect(
        phoneNumber: String, nationalIdentityNumber: String, configuration: RemoteServiceConfiguration,
        showVerificationCode: @escaping @Sendable (String) -> Void
    ) async throws -> MobileIDSigner {
        guard Self.isPhoneNumber(phoneNumber) else {
            throw RemoteSigningError.notAClient(
                service: service, who: "\(phoneNumber) (not a phone number in +<country><number> form)")
        }
        try configuration.checkScheme(service: service)
        let client = try RemoteServiceClient(
            service: service, configuration: configuration, statusMeaning: { status, _ in meaning(status) })
        let answer = try await client.post(
            "certificate", ["phoneNumber": phoneNumber, "nationalIdentityNumber": nationalIdentityNumber])
        switch answer["result"] as? String {
        case "OK": break
        case "NOT_FOUND", "NOT_ACTIVE":
            throw RemoteSigningError.notAClient(service: service, who: "\(phoneNumber) / \(nationalIdentityNumber)")
        case let other: throw RemoteSigningError.unexpectedResult(service: service, result: other ?? "no result")
        }
        let certificate = try client.certificate(answer["cert"], "cert")
        // The certificate must be the person's: its serialNumber is the identity number, alone
        // or as PNOxx-<number>. Anything else would sign as somebody else.
        let serial = RemoteServiceClient.subjectSerialNumber(certificate) ?? ""
        guard serial == nationalIdentityNumber || serial.hasSuffix("-" + nationalIdentityNumber) else {
            throw RemoteSigningError.certificateMismatch(
                service: service,
                detail: "its serialNumber is \(serial.isEmpty ? "missing" : serial), not \(nationalIdentityNumber)")
        }
        return try MobileIDSigner(
            phoneNumber: phoneNumber, nationalIdentityNumber: nationalIdentityNumber, certificate: certificate,
            client: client, showVerificationCode: showVerificationCode)
    }

    public func certificate() async throws -> Certificate { signingCertificate }

    /// GSM 03.38: the default alphabet, and the extension table (two septets each, at most five).
    static let gsm7 = Set(
        "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà"
    )
    static let gsm7Extension = Set("^{}\\[~]|€")

    /// The text and format the phone can show: GSM-7 up to 100 characters (at most five from
    /// the extension table) when every character is in it, else UCS-2 up to 50 characters
    /// (Cyrillic, õ, š, ž…), rather than letting the service blank out what GSM-7 lacks.
    /// Control characters are dropped.
    public static func displayText(_ text: String) -> (text: String, format: String) {
        let cleaned = String(
            text.filter { character in !character.unicodeScalars.contains { $0.properties.generalCategory == .control }
            })
        guard cleaned.allSatisfy({ gsm7.contains($0) || gsm7Extension.contains($0) }) else {
            return (String(cleaned.prefix(50)), "UCS-2")
        }
        var result = "", extensions = 0
        for character in cleaned {
            if gsm7Extension.contains(character) {
                guard extensions < 5 else { break }
                extensions += 1
            }
            guard result.count < 100 else { break }
            result.append(character)
        }
        return (result, "GSM-7")
    }

    public func sign(digest: Digest) async throws -> Data {
        guard digest.algorithm == algorithm.digest, let hashType = RemoteServiceClient.hashType(digest.algorithm) else {
            throw CoreError.digestAlgorithmMismatch(expected: algorithm.digest, actual: digest.algorithm)
        }
        let hash = Array(digest.bytes)
        let (text, format) = Self.displayText(client.configuration.displayText)
        showVerificationCode(VerificationCode.mobileID(hash: hash))
        let started = try await client.post(
            "signature",
            [
                "phoneNumber": phoneNumber, "nationalIdentityNumber": nationalIdentityNumber,
                "hash": Data(hash).base64EncodedString(),
                "hashType": hashType, "language": client.configuration.language, "displayText": text,
                "displayTextFormat": format,
            ])
        let session = try client.sessionID(started)
        let status = try await client.pollUntilComplete("signature/session/\(session)")
        switch status["result"] as? String {
        case "OK": break
        case "TIMEOUT", "EXPIRED_TRANSACTION": throw RemoteSigningError.timedOut(service: Self.service)
        case "NOT_MID_CLIENT":
            throw RemoteSigningError.notAClient(
                service: Self.service, who: "\(phoneNumber) / \(nationalIdentityNumber)")
        case "USER_CANCELLED":
            throw RemoteSigningError.userRefused(service: Self.service, stage: "cancelled on the phone")
        case "SIGNATURE_HASH_MISMATCH": throw RemoteSigningError.signatureHashMismatch
        case "PHONE_ABSENT": throw RemoteSigningError.phoneUnreachable
        case "DELIVERY_ERROR": throw RemoteSigningError.deliveryFailed
        case "SIM_ERROR": throw RemoteSigningError.simError
        case let other: throw RemoteSigningError.unexpectedResult(service: Self.service, result: other ?? "no result")
        }
        let value = try client.checkSignature(
            status["signature"] as? [String: Any] ?? [:], algorithm: algorithm, certificate: signingCertificate,
            digest: digest)
        return value
    }
}
