import FoundationEssentials
import Glibc

/// What can be wrong with a Korean mobile-ID App2App message or link. `code` is stable;
/// `spErrorCode` is the SP-side `errcode` of the service's M900 message where one fits, so an
/// SP server can answer the app with it.
public enum MobileIDError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Not base64 (standard or URL-safe, padded or not).
    case notBase64(field: String)
    /// Not a JSON object, or a field is missing or has the wrong type.
    case malformedMessage(message: String, detail: String)
    /// `type` is not "mip", or `cmd` is not the expected message.
    case unexpectedMessage(expected: String, got: String)
    /// The transaction code is not `yyyyMMddHHmmssSSS` + 8 upper-case hex digits.
    case malformedTransactionCode(String)
    /// The presentation names another transaction than the one the SP started.
    case transactionMismatch(expected: String, got: String)
    /// The presentation carries no nonce, or another than the profile's.
    case nonceMismatch
    /// A VP field has a value the SP does not support.
    case unsupportedValue(field: String, value: String)
    /// The presentation's authentication does not satisfy what the profile asked for.
    case authTypeMismatch(required: String, got: [String])
    /// `mode` is not one of direct, indirect, proxy, p2p.
    case unknownMode(String)
    /// An app-call URL would exceed the 1024 characters the app accepts.
    case linkTooLong(length: Int)
    /// A URL that is not a mobile-ID app call or callback.
    case notAMobileIDLink(String)
    /// The app reported failure in its callback.
    case appReportedFailure(String)

    public var code: String {
        switch self {
        case .notBase64: "mobileid-not-base64"
        case .malformedMessage: "mobileid-malformed-message"
        case .unexpectedMessage: "mobileid-unexpected-message"
        case .malformedTransactionCode: "mobileid-malformed-trxcode"
        case .transactionMismatch: "mobileid-trxcode-mismatch"
        case .nonceMismatch: "mobileid-nonce-mismatch"
        case .unsupportedValue: "mobileid-unsupported-value"
        case .authTypeMismatch: "mobileid-authtype-mismatch"
        case .unknownMode: "mobileid-unknown-mode"
        case .linkTooLong: "mobileid-link-too-long"
        case .notAMobileIDLink: "mobileid-not-a-link"
        case .appReportedFailure: "mobileid-app-failure"
        }
    }

    /// The SP `errcode` (MipErrorEnum) for an M900 answer, where the service defines one.
    public var spErrorCode: Int? {
        switch self {
        case .notBase64: 10003
        case .malformedMessage, .unexpectedMessage, .unknownMode: 10001
        case .transactionMismatch, .malformedTransactionCode: 10104
        case .unsupportedValue: 10106
        case .nonceMismatch: 10111
        case .authTypeMismatch: 10112
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .notBase64(let field): "\(field) is not base64 (standard or URL-safe, with or without padding)."
        case .malformedMessage(let message, let detail): "The \(message) message is malformed: \(detail)."
        case .unexpectedMessage(let expected, let got): "Expected a \(expected) message, got \(got)."
        case .malformedTransactionCode(let code):
            "\"\(code)\" is not a transaction code (yyyyMMddHHmmssSSS and 8 upper-case hex digits)."
        case .transactionMismatch(let expected, let got):
            "The presentation is for transaction \(got), not \(expected); it is refused."
        case .nonceMismatch:
            "The presentation's nonce is missing or is not the profile's; it is refused (a replay, or another session)."
        case .unsupportedValue(let field, let value): "vp.\(field) = \(value) is not supported."
        case .authTypeMismatch(let required, let got):
            "The profile asks for \(required) authentication; the presentation has \(got.isEmpty ? "none" : got.joined(separator: ", "))."
        case .unknownMode(let mode): "\"\(mode)\" is not a mode (direct, indirect, proxy, p2p)."
        case .linkTooLong(let length):
            "The app-call URL would be \(length) characters; the app takes at most 1024. Leave the profile out of the M200 (the app fetches it from /mip/profile)."
        case .notAMobileIDLink(let url): "\(url) is not a mobile-ID app call or callback."
        case .appReportedFailure(let detail): "The mobile-ID app reported a failure: \(detail)."
        }
    }
}
