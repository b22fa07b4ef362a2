import FoundationEssentials
import Glibc

/// Everything a remote signing service (Mobile-ID, Smart-ID) can end in, as something a person
/// can act on. `code` is stable (scripts and `--json` use it).
public enum RemoteSigningError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The person declined on the phone (at `stage`: a PIN prompt, a confirmation, the code choice).
    case userRefused(service: String, stage: String)
    /// No answer from the phone in time.
    case timedOut(service: String)
    /// The number / identity code has no account with the service.
    case notAClient(service: String, who: String)
    /// Smart-ID: the person picked another verification code than the one shown here.
    case wrongVerificationCode
    /// Smart-ID: the account cannot be used (ask the person to check the app).
    case documentUnusable
    /// Smart-ID: the app cannot show any interaction we allowed.
    case interactionNotSupported
    /// Mobile-ID: the SIM signed another hash (a misconfigured SIM; the operator can fix it).
    case signatureHashMismatch
    /// Mobile-ID: the phone is off or out of coverage.
    case phoneUnreachable
    /// Mobile-ID: the SMS could not be delivered.
    case deliveryFailed
    /// Mobile-ID: the SIM application failed.
    case simError
    /// The service named an end result this version does not know.
    case unexpectedResult(service: String, result: String)
    /// The service refused the request with an HTTP status (`meaning` says what it means).
    case serviceRefused(service: String, status: Int, meaning: String)
    /// The service's answer is not what its API describes.
    case malformedResponse(service: String, detail: String)
    /// The returned signature does not verify under the certificate, or uses another algorithm.
    case signatureInvalid(service: String, detail: String)
    /// Missing configuration: the service URL or the relying party's identity.
    case notConfigured(service: String, missing: String)
    /// The certificate the service returned is not the asked person's, or not of the level asked.
    case certificateMismatch(service: String, detail: String)
    /// The configuration is there but not in a form the service takes (the relying party's UUID
    /// or name, the API version against the URL).
    case badConfiguration(service: String, detail: String)
    /// Smart-ID v3: the app and the service did not complete the protocol (`PROTOCOL_FAILURE`,
    /// `EXPECTED_LINKED_SESSION`).
    case protocolFailure(service: String, detail: String)
    /// Smart-ID v3: the service failed on its side while the person was asked (`SERVER_ERROR`).
    case serviceError(service: String)

    public var code: String {
        switch self {
        case .userRefused: "user-refused"
        case .timedOut: "remote-timeout"
        case .notAClient: "not-a-client"
        case .wrongVerificationCode: "wrong-verification-code"
        case .documentUnusable: "document-unusable"
        case .interactionNotSupported: "interaction-not-supported"
        case .signatureHashMismatch: "signature-hash-mismatch"
        case .phoneUnreachable: "phone-unreachable"
        case .deliveryFailed: "delivery-failed"
        case .simError: "sim-error"
        case .unexpectedResult: "unexpected-result"
        case .serviceRefused: "service-refused"
        case .malformedResponse: "malformed-response"
        case .signatureInvalid: "remote-signature-invalid"
        case .notConfigured: "remote-not-configured"
        case .certificateMismatch: "remote-certificate-mismatch"
        case .badConfiguration: "remote-bad-configuration"
        case .protocolFailure: "remote-protocol-failure"
        case .serviceError: "remote-service-error"
        }
    }

    public var description: String {
        switch self {
        case .userRefused(let service, let stage):
            "The signer declined in \(service)\(stage.isEmpty ? "" : " (\(stage))"). Nothing was signed."
        case .timedOut(let service):
            "\(service) got no answer from the phone in time. Nothing was signed; try again and confirm on the phone."
        case .notAClient(let service, let who):
            "\(who) is not a \(service) user (or has no usable account). Check the number and identity code."
        case .wrongVerificationCode:
            "Smart-ID: a different verification code was chosen on the phone than the one shown here. Nothing was signed; try again and pick the code shown."
        case .documentUnusable:
            "Smart-ID: the account cannot be used at the moment. Open the Smart-ID app or portal to see why."
        case .interactionNotSupported:
            "Smart-ID: the app on the phone is too old for the confirmation tamga asks for. Update the app."
        case .signatureHashMismatch:
            "Mobile-ID: the SIM signed something else than requested (a SIM configuration problem). Contact the mobile operator."
        case .phoneUnreachable:
            "Mobile-ID: the phone is switched off or out of coverage. Try again when it is reachable."
        case .deliveryFailed:
            "Mobile-ID: the request could not be delivered to the phone. Try again."
        case .simError:
            "Mobile-ID: the SIM application failed. Try again; if it keeps failing, contact the mobile operator."
        case .unexpectedResult(let service, let result):
            "\(service) ended with \(result), which tamga does not know. Nothing was signed."
        case .serviceRefused(let service, let status, let meaning):
            "\(service) refused the request (HTTP \(status)): \(meaning). Nothing was signed."
        case .malformedResponse(let service, let detail):
            "\(service) sent an answer tamga cannot read (\(detail)). Nothing was signed."
        case .signatureInvalid(let service, let detail):
            "\(service) returned a signature that does not check out (\(detail)). Nothing was written."
        case .certificateMismatch(let service, let detail):
            "\(service) returned a certificate that is not the one asked for (\(detail)). Nothing was signed."
        case .badConfiguration(let service, let detail):
            "\(service) is not configured in a form it takes: \(detail). Fix the flag or --remote-config FILE (docs/cli.md shows the demo values)."
        case .protocolFailure(let service, let detail):
            "\(service) could not complete the signing protocol (\(detail)). Nothing was signed; try again, and update the app if it keeps failing."
        case .serviceError(let service):
            "\(service) failed on its side. Nothing was signed; try again later."
        case .notConfigured(let service, let missing):
            "\(service) is not configured: give \(missing) (flags or --remote-config FILE; see tamga sign --help)."
        }
    }
}
