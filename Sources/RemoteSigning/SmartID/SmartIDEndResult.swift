import TamgaCore

/// What Smart-ID's session end results and HTTP statuses mean, per API version, as errors a
/// person can act on. The texts are SK's documented meanings (v2 README, RP API 3.2 OpenAPI).
enum SmartIDEndResult {
    static let service = SmartIDSigner.service

    /// The error for an end result, nil for OK. `interaction` is v3's `result.details.interaction`.
    static func error(_ result: String, interaction: String? = nil) -> RemoteSigningError? {
        switch result {
        case "OK": nil
        case "USER_REFUSED": .userRefused(service: service, stage: "")
        case "USER_REFUSED_CERT_CHOICE": .userRefused(service: service, stage: "at the certificate choice")
        // v2 names the screen in the end result; v3 in details.interaction.
        case "USER_REFUSED_DISPLAYTEXTANDPIN": .userRefused(service: service, stage: stage(of: "displayTextAndPIN"))
        case "USER_REFUSED_VC_CHOICE", "USER_REFUSED_INTERACTION_VC_CHOICE":
            .userRefused(service: service, stage: stage(of: "verificationCodeChoice"))
        case "USER_REFUSED_CONFIRMATIONMESSAGE": .userRefused(service: service, stage: stage(of: "confirmationMessage"))
        case "USER_REFUSED_CONFIRMATIONMESSAGE_WITH_VC_CHOICE":
            .userRefused(service: service, stage: stage(of: "confirmationMessageAndVerificationCodeChoice"))
        case "USER_REFUSED_INTERACTION": .userRefused(service: service, stage: stage(of: interaction ?? ""))
        case "TIMEOUT": .timedOut(service: service)
        case "DOCUMENT_UNUSABLE", "ACCOUNT_UNUSABLE": .documentUnusable
        case "WRONG_VC": .wrongVerificationCode
        case "REQUIRED_INTERACTION_NOT_SUPPORTED_BY_APP": .interactionNotSupported
        case "PROTOCOL_FAILURE": .protocolFailure(service: service, detail: "the app reported a protocol failure")
        case "EXPECTED_LINKED_SESSION":
            .protocolFailure(service: service, detail: "the app expected a linked signing session")
        case "SERVER_ERROR": .serviceError(service: service)
        default:
            .unexpectedResult(
                service: service,
                result: String(result.prefix(64).filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }))
        }
    }

    /// Where the person declined, from an interaction type.
    static func stage(of interaction: String) -> String {
        switch interaction {
        case "displayTextAndPIN": "at the PIN prompt"
        case "verificationCodeChoice": "at the verification code choice"
        case "confirmationMessage": "at the confirmation message"
        case "confirmationMessageAndVerificationCodeChoice": "at the confirmation with code choice"
        default: "at an interaction screen"
        }
    }

    /// What an HTTP status means. In v3.2, 471 and 472 became 404 with an RFC 9457 problem whose
    /// `errors[].code` tells them apart (`NO_SUITABLE_ACCOUNT_FOUND`).
    static func meaning(_ status: Int, problem: ProblemDetails?) -> String {
        if status == 404, problem?.codes.contains("NO_SUITABLE_ACCOUNT_FOUND") == true {
            return meaning(471, problem: nil)
        }
        return switch status {
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
}
