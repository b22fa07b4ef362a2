import FoundationEssentials
import Glibc
import TamgaCore

/// Signs through the Smart-ID RP API v2: when connecting, a certificate choice by the person's
/// ETSI semantics identifier (`PNO{CC}-{code}`), confirmed in the app, gives the certificate and
/// the document number; each signature then goes to that document number (so the key is the
/// certificate's), the verification code is shown before the request, and the session is long
/// polled to its end result. v2 signatures are RSA PKCS#1 v1.5, checked under the certificate.
public final class SmartIDSigner: Signer, @unchecked Sendable {   // unchecked: immutable after connect (the client keeps the last session id behind its lock)
    public static let service = "Smart-ID"
    public let country: String
    public let identityCode: String
    /// The account's document number, from the certificate choice.
    public let documentNumber: String
    public let algorithm: SignatureAlgorithm
    private let signingCertificate: Certificate
    private let client: RemoteServiceClient
    private let showVerificationCode: @Sendable (String) -> Void

    public var lastSessionID: String? { client.lastSession.id }

    /// HTTP statuses as the Smart-ID v2 documentation (and DigiDoc) define them.
    static func meaning(_ status: Int) -> String {
        switch status {
        case 400: "a parameter is missing or invalid"
        case 401: "the relying party is not authenticated (UUID or address)"
        case 403: "the relying party may not do this (certificate level or capability)"
        case 404: "no such account, or the session is unknown or expired"
        case 409, 429: "too many requests; wait before trying again"
        case 471: "no suitable account of the requested level (the person has others)"
        case 472: "the person should open the Smart-ID app or portal first"
        case 480: "this client is too old for the service"
        case 580: "the service is under maintenance; try again later"
        case 500...599: "the service failed; try again later"
        default: "an HTTP error the API does not describe"
        }
    }

    static func endResult(_ result: String, service: String, who: String) -> RemoteSigningError? {
        switch result {
        case "OK": nil
        case "USER_REFUSED": .userRefused(service: service, stage: "")
        case "USER_REFUSED_CERT_CHOICE": .userRefused(service: service, stage: "at the certificate choice")
        case "USER_REFUSED_DISPLAYTEXTANDPIN": .userRefused(service: service, stage: "at the PIN prompt")
        case "USER_REFUSED_VC_CHOICE", "USER_REFUSED_INTERACTION_VC_CHOICE": .userRefused(service: service, stage: "at the verification code choice")
        case "USER_REFUSED_CONFIRMATIONMESSAGE": .userRefused(service: service, stage: "at the confirmation message")
        case "USER_REFUSED_CONFIRMATIONMESSAGE_WITH_VC_CHOICE": .userRefused(service: service, stage: "at the confirmation with code choice")
        case "TIMEOUT": .timedOut(service: service)
        case "DOCUMENT_UNUSABLE": .documentUnusable
        case "WRONG_VC": .wrongVerificationCode
        case "REQUIRED_INTERACTION_NOT_SUPPORTED_BY_APP": .interactionNotSupported
        default: .unexpectedResult(service: service, result: result)
        }
    }

    private init(country: String, identityCode: String, documentNumber: String, certificate: Certificate, client: RemoteServiceClient,
                 showVerificationCode: @escaping @Sendable (String) -> Void) throws {
        self.country = country
        self.identityCode = identityCode
        self.documentNumber = documentNumber
        self.signingCertificate = certificate
        self.client = client
        self.showVerificationCode = showVerificationCode
        guard case .rsa = certificate.publicKey.type, let algorithm = certificate.publicKey.defaultAlgorithm else {
            throw RemoteSigningError.malformedResponse(service: Self.service, detail: "the certificate's key is not RSA (Smart-ID v2 signs with RSA only)")
        }
        self.algorithm = algorithm
    }

    /// Runs the certificate choice: the person confirms in the app (`prompt` is told first).
    public static func connect(country: String, identityCode: String, configuration: RemoteServiceConfiguration,
                               prompt: @Sendable (String) -> Void = { _ in },
                               showVerificationCode: @escaping @Sendable (String) -> Void) async throws -> SmartIDSigner {
        let country = country.uppercased()
        guard country.count == 2, country.allSatisfy({ $0.isASCII && $0.isLetter }),
              !identityCode.isEmpty, identityCode.allSatisfy({ $0.isASCII && ($0.isNumber || $0.isLetter || $0 == "-") }) else {
            throw RemoteSigningError.notAClient(service: service, who: "\(country):\(identityCode) (a two-letter country and an identity code)")
        }
        try configuration.checkScheme(service: service)
        let client = RemoteServiceClient(service: service, configuration: configuration, statusMeaning: meaning)
        let who = "PNO\(country)-\(identityCode)"
        prompt("Smart-ID: confirm the certificate choice in the app for \(who)")
        let started: [String: Any]
        do {
            started = try await client.post("certificatechoice/etsi/\(who)", ["certificateLevel": "QUALIFIED"])
        } catch RemoteSigningError.serviceRefused(_, 404, _) {
            throw RemoteSigningError.notAClient(service: service, who: who)
        }
        let session = try client.sessionID(started)
        let status = try await client.pollUntilComplete("session/\(session)")
        let result = status["result"] as? [String: Any] ?? [:]
        if let failure = endResult(result["endResult"] as? String ?? "no end result", service: service, who: who) { throw failure }
        guard let documentNumber = result["documentNumber"] as? String, !documentNumber.isEmpty,
              documentNumber.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            throw RemoteSigningError.malformedResponse(service: service, detail: "no document number")
        }
        let certificate = try client.certificate((status["cert"] as? [String: Any])?["value"], "cert.value")
        // The person asked for, at the level asked for (QUALIFIED).
        let serial = RemoteServiceClient.subjectSerialNumber(certificate) ?? ""
        guard serial == who else {
            throw RemoteSigningError.certificateMismatch(service: service, detail: "its serialNumber is \(serial.isEmpty ? "missing" : serial), not \(who)")
        }
        guard (status["cert"] as? [String: Any])?["certificateLevel"] as? String == "QUALIFIED" else {
            throw RemoteSigningError.certificateMismatch(service: service, detail: "certificate level \((status["cert"] as? [String: Any])?["certificateLevel"] as? String ?? "missing"), QUALIFIED was asked for")
        }
        return try SmartIDSigner(country: country, identityCode: identityCode, documentNumber: documentNumber, certificate: certificate,
                                 client: client, showVerificationCode: showVerificationCode)
    }

    public func certificate() async throws -> Certificate { signingCertificate }

    public func sign(digest: Digest) async throws -> Data {
        guard digest.algorithm == algorithm.digest, let hashType = RemoteServiceClient.hashType(digest.algorithm) else {
            throw CoreError.digestAlgorithmMismatch(expected: algorithm.digest, actual: digest.algorithm)
        }
        let hash = Array(digest.bytes)
        let text = client.configuration.displayText
        // The code goes on screen before the request, so the push cannot beat it (the API's advice).
        showVerificationCode(VerificationCode.smartID(hash: hash))
        let started = try await client.post("signature/document/\(documentNumber)", [
            "certificateLevel": "QUALIFIED", "hash": Data(hash).base64EncodedString(), "hashType": hashType,
            // As DigiDoc: the confirmation with the code choice, else the PIN prompt with the text.
            "allowedInteractionsOrder": [["type": "confirmationMessageAndVerificationCodeChoice", "displayText200": String(text.prefix(200))],
                                         ["type": "displayTextAndPIN", "displayText60": String(text.prefix(60))]],
        ])
        let session = try client.sessionID(started)
        let status = try await client.pollUntilComplete("session/\(session)")
        let result = status["result"] as? [String: Any] ?? [:]
        if let failure = Self.endResult(result["endResult"] as? String ?? "no end result", service: Self.service, who: documentNumber) { throw failure }
        // The key that signed must be the certificate's we already put in the signature.
        if let returned = (status["cert"] as? [String: Any])?["value"] as? String, let der = (try? Base64.decode(returned, field: "cert.value")).map({ Data($0) }), der != signingCertificate.der {
            throw RemoteSigningError.signatureInvalid(service: Self.service, detail: "signed with another certificate than the one chosen")
        }
        let value = try client.checkSignature(status["signature"] as? [String: Any] ?? [:], algorithm: algorithm, certificate: signingCertificate, digest: digest)
        return value
    }
}
