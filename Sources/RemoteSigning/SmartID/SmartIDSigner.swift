import FoundationEssentials
import Glibc
import TamgaCore

/// Signs through Smart-ID: when connecting, a certificate choice by the person's ETSI semantics
/// identifier (`PNO{CC}-{code}`), confirmed in the app, gives the certificate and the document
/// number; each signature then goes to that document number (so the key is the certificate's),
/// the verification code is shown, and the session is long polled to its end result.
///
/// - RP API v3 (the default): RSASSA-PSS over the raw digest (`RAW_DIGEST_SIGNATURE`); the
///   service draws the verification code and sends it with the session; the reply's algorithm,
///   PSS parameters, flow and interaction are checked before the value is.
/// - RP API v2 (`SmartIDAPIVersion.v2`): RSA PKCS#1 v1.5; the code is computed from the hash and
///   shown before the request.
///
/// Every request carries a fresh nonce: the service answers an identical request within 15 s
/// with the old session, so a retry after a refusal or a timeout would otherwise get the old
/// result back without the phone being asked again.
// unchecked: immutable after connect (the client keeps the last session id behind its lock)
public final class SmartIDSigner: Signer, @unchecked Sendable {
    public static let service = "Smart-ID"
    public let country: String
    public let identityCode: String
    /// The account's document number, from the certificate choice.
    public let documentNumber: String
    public let algorithm: SignatureAlgorithm
    public let apiVersion: SmartIDAPIVersion
    let signingCertificate: Certificate
    let client: RemoteServiceClient
    let showVerificationCode: @Sendable (String) -> Void

    public var lastSessionID: String? { client.lastSession.id }

    /// The interactions offered, in order (the app takes the first it can show), as DigiDoc does:
    /// the confirmation with the code choice, else the PIN prompt with the text.
    static func interactions(_ text: String) -> [[String: String]] {
        [
            [
                "type": "confirmationMessageAndVerificationCodeChoice",
                "displayText200": TextLimits.fitted(text, utf16Units: 200),
            ],
            ["type": "displayTextAndPIN", "displayText60": TextLimits.fitted(text, utf16Units: 60)],
        ]
    }

    /// A nonce of 20 characters (15 random bytes, base64url; the API takes 1 to 30).
    static func nonce() throws -> String {
        var bytes = [UInt8](repeating: 0, count: 15)
        guard SecureRandom.fill(&bytes) else {
            throw CoreError.cryptoFailure(operation: "RAND_bytes", reason: "the random generator failed")
        }
        return String(Data(bytes).base64EncodedString().map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    init(
        country: String, identityCode: String, documentNumber: String, certificate: Certificate,
        client: RemoteServiceClient,
        apiVersion: SmartIDAPIVersion, showVerificationCode: @escaping @Sendable (String) -> Void
    ) throws {
        self.country = country
        self.identityCode = identityCode
        self.documentNumber = documentNumber
        self.signingCertificate = certificate
        self.client = client
        self.apiVersion = apiVersion
        self.showVerificationCode = showVerificationCode
        guard case .rsa = certificate.publicKey.type else {
            throw RemoteSigningError.malformedResponse(
                service: Self.service, detail: "the certificate's key is not RSA (Smart-ID signs with RSA only)")
        }
        // v3 signs RSASSA-PSS only; v2 PKCS#1 v1.5 only. SHA-256, as the DigiDoc clients ask.
        self.algorithm = apiVersion == .v3 ? .rsaPSS(.sha256) : .rsaPKCS1SHA256
    }

    /// Runs the certificate choice: the person confirms in the app (`prompt` is told first).
    public static func connect(
        country: String, identityCode: String, configuration: RemoteServiceConfiguration,
        prompt: @Sendable (String) -> Void = { _ in },
        showVerificationCode: @escaping @Sendable (String) -> Void
    ) async throws -> SmartIDSigner {
        let country = country.uppercased()
        guard country.count == 2, country.allSatisfy({ $0.isASCII && $0.isLetter }),
            !identityCode.isEmpty, identityCode.count <= 32,
            identityCode.allSatisfy({ $0.isASCII && ($0.isNumber || $0.isLetter || $0 == "-") })
        else {
            throw RemoteSigningError.notAClient(
                service: service, who: "\(country):\(identityCode) (a two-letter country and an identity code)")
        }
        try configuration.checkScheme(service: service)
        try configuration.checkRelyingParty(service: service)
        let api = configuration.smartIDAPI
        // The base URL ends in the API version (…/v3, …/v2): another version, or none, is a
        // mistake to say now, not one to find out from a 404 read as "no such account".
        let named = SmartIDAPIVersion(rawValue: configuration.url.lastPathComponent)
        guard named == api else {
            let what =
                named.map { "the \($0.rawValue) API" } ?? "not an API version (it should end in /\(api.rawValue))"
            throw RemoteSigningError.badConfiguration(
                service: service,
                detail:
                    "the URL \(TextLimits.quoted(configuration.url.absoluteString)) is \(what) but \(api.rawValue) is asked for (tamga speaks v3 unless --smart-id-api v2 or \"apiVersion\": \"v2\" says otherwise)"
            )
        }
        // The texts the interactions carry: an empty one the service refuses with a 400, after
        // the person has already confirmed the certificate choice.
        for limit in [60, 200] where TextLimits.fitted(configuration.displayText, utf16Units: limit).isEmpty {
            throw RemoteSigningError.badConfiguration(
                service: service,
                detail:
                    "the display text is empty or its first character is over \(limit) UTF-16 units (--display-text)")
        }
        let client = try RemoteServiceClient(
            service: service, configuration: configuration, statusMeaning: SmartIDEndResult.meaning)
        let who = "PNO\(country)-\(identityCode)"
        prompt("Smart-ID: confirm the certificate choice in the app for \(who)")
        let path =
            api == .v3 ? "signature/certificate-choice/notification/etsi/\(who)" : "certificatechoice/etsi/\(who)"
        let started = try await client.post(
            path, ["certificateLevel": "QUALIFIED", "nonce": try nonce()],
            refusal: { status, problem in
                // A plain 404 is no account; a v3.2 404 with an error code (NO_SUITABLE_ACCOUNT_FOUND is
                // v2's 471; the person has accounts) stays a refusal that names the code.
                status == 404 && problem?.codes.isEmpty != false ? .notAClient(service: service, who: who) : nil
            })
        let session = try client.sessionID(started)
        let status = try await client.pollUntilComplete("session/\(session)")
        let result = status["result"] as? [String: Any] ?? [:]
        if let failure = SmartIDEndResult.error(result["endResult"] as? String ?? "no end result", interaction: nil) {
            throw failure
        }
        guard let documentNumber = result["documentNumber"] as? String, !documentNumber.isEmpty,
            documentNumber.count <= 64,
            documentNumber.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else {
            throw RemoteSigningError.malformedResponse(service: service, detail: "no document number")
        }
        let cert = status["cert"] as? [String: Any] ?? [:]
        let certificate = try client.certificate(cert["value"], "cert.value")
        // The person asked for, at the level asked for (QUALIFIED; v3 may answer the higher QSCD).
        let serial = RemoteServiceClient.subjectSerialNumber(certificate) ?? ""
        guard serial == who else {
            throw RemoteSigningError.certificateMismatch(
                service: service, detail: "its serialNumber is \(serial.isEmpty ? "missing" : serial), not \(who)")
        }
        let level = cert["certificateLevel"] as? String
        guard level == "QUALIFIED" || (api == .v3 && level == "QSCD") else {
            throw RemoteSigningError.certificateMismatch(
                service: service,
                detail:
                    "certificate level \(level.map { TextLimits.printable($0, limit: 16) } ?? "missing"), QUALIFIED was asked for"
            )
        }
        return try SmartIDSigner(
            country: country, identityCode: identityCode, documentNumber: documentNumber, certificate: certificate,
            client: client, apiVersion: api, showVerificationCode: showVerificationCode)
    }

    public func certificate() async throws -> Certificate { signingCertificate }

    public func sign(digest: Digest) async throws -> Data {
        guard digest.algorithm == algorithm.digest else {
            throw CoreError.digestAlgorithmMismatch(expected: algorithm.digest, actual: digest.algorithm)
        }
        return switch apiVersion {
        case .v3: try await signV3(digest: digest)
        case .v2: try await signV2(digest: digest)
        }
    }

    /// The end result's error, if any; and for OK, the certificate that signed must be the one
    /// chosen (it is already in the signature's SignedProperties).
    func checkEnd(_ status: [String: Any]) throws {
        let result = status["result"] as? [String: Any] ?? [:]
        let interaction = (result["details"] as? [String: Any])?["interaction"] as? String
        if let failure = SmartIDEndResult.error(
            result["endResult"] as? String ?? "no end result", interaction: interaction)
        {
            throw failure
        }
        if let number = result["documentNumber"] as? String, number != documentNumber {
            throw RemoteSigningError.signatureInvalid(
                service: Self.service, detail: "signed by another account than the one chosen")
        }
    }

    func checkReturnedCertificate(_ value: Any?, required: Bool) throws {
        guard let value else {
            if required {
                throw RemoteSigningError.malformedResponse(
                    service: Self.service, detail: "no cert.value with the signature")
            }
            return
        }
        guard let der = try? client.bytes(value, "cert.value"), der == signingCertificate.der else {
            throw RemoteSigningError.signatureInvalid(
                service: Self.service, detail: "signed with another certificate than the one chosen")
        }
    }
}
