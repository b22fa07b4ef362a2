import FoundationEssentials
import TamgaCore
import TamgaSupport

/// One entry of SiVa's `requestErrors`: the request field at fault (or SiVa's name for the
/// problem) and SiVa's message, word for word where SiVa has one (docs/siva.md §Errors).
public struct RequestError: Sendable, Equatable {
    public let key: String
    public let message: String

    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }

    static let bodyNotReadable = RequestError(
        key: "requestBodyNotReadable", message: "Request body is malformed and cannot be read")
    static let documentMalformed = RequestError(
        key: "document", message: "Document malformed or not matching documentType")
    static let notBase64 = "Document is not encoded in a valid base64 string"
}

/// What SiVa's report types are; tamga fills the Simple report, and answers the other two with
/// the same conclusion (as SiVa does for its DDOC and BDOC validation: docs/siva.md §Report).
public enum ReportType: String, Sendable, CaseIterable {
    case simple = "Simple"
    case detailed = "Detailed"
    case diagnostic = "Diagnostic"

    /// The type a request names, case-insensitively as SiVa matches it.
    init?(name: String) {
        guard let type = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else {
            return nil
        }
        self = type
    }
}

/// A `POST /validate` request, checked as SiVa checks it: every field's constraints at once, so
/// that the answer lists every problem (SiVa's bean validation), then the policy by name.
public struct ValidationRequest: Sendable {
    /// The base64 text of the document, not yet decoded (`decodedDocument` does it).
    public let document: String
    public let filename: String
    public let policy: SiVaPolicy
    public let reportType: ReportType

    /// SiVa's filename bound (its code allows 260, its documentation says 255).
    static let filenameLimit = 260

    /// The request in `body`, or the errors SiVa would answer it with (400).
    public static func parse(_ body: [UInt8]) -> Result<ValidationRequest, RequestErrors> {
        guard let object = (try? JSON.parse(body, duplicateKeysRefused: true)) as? [String: Any] else {
            return .failure(RequestErrors([.bodyNotReadable]))
        }
        // A member of the wrong JSON type is what Jackson cannot bind: the body is not readable.
        guard Self.textMembers(object, ["document", "filename", "signaturePolicy", "reportType"]) else {
            return .failure(RequestErrors([.bodyNotReadable]))
        }
        let document = object["document"] as? String ?? ""
        var errors = Self.documentErrors(document)
        let filename = object["filename"] as? String
        errors += Self.filenameErrors(filename, key: "filename")
        let (policy, unknownPolicy, policyErrors) = Self.policy(object["signaturePolicy"] as? String)
        errors += policyErrors
        var reportType = ReportType.simple
        if let name = object["reportType"] as? String {
            if let type = ReportType(name: name) {
                reportType = type
            } else {
                errors.append(.init(key: "reportType", message: "Invalid report type"))
            }
        }
        if let type = object["documentType"], !(type is JSON.Null) {
            errors.append(.init(key: "documentType", message: "documentType is not a valid request parameter"))
        }
        guard errors.isEmpty else { return .failure(RequestErrors(errors)) }
        if let unknownPolicy { return .failure(RequestErrors([Self.unknownPolicyError(unknownPolicy)])) }
        return .success(
            ValidationRequest(document: document, filename: filename ?? "", policy: policy, reportType: reportType))
    }

    /// The policy a request names (SiVa's `@ValidSignaturePolicy` first: 1–100 letters, digits,
    /// `_`, `-` and spaces), the default when it names none, and a well-formed name SiVa does not
    /// have (refused after the other checks pass, as SiVa's policy lookup does).
    static func policy(_ name: String?) -> (SiVaPolicy, unknown: String?, errors: [RequestError]) {
        guard let name else { return (.default, nil, []) }
        if name.isEmpty || name.count > 100 {
            return (.default, nil, [.init(key: "signaturePolicy", message: "size must be between 1 and 100")])
        }
        guard
            name.unicodeScalars.allSatisfy({
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_ -".unicodeScalars.contains($0))
            })
        else {
            return (.default, nil, [.init(key: "signaturePolicy", message: "Invalid signature policy")])
        }
        guard let named = SiVaPolicy(name: name) else { return (.default, name, []) }
        return (named, nil, [])
    }

    static func unknownPolicyError(_ name: String) -> RequestError {
        .init(
            key: "signaturePolicy",
            message: "Invalid signature policy: \(name); Available abstractPolicies: [POLv3, POLv4]")
    }

    /// SiVa's rules for a file name (`@NotEmpty`, `@Size(1, 260)`, `@ValidFilename`); tamga's
    /// "Invalid filename" also refuses what could be a path: separators, control characters,
    /// `.` and `..`.
    static func filenameErrors(_ filename: String?, key: String) -> [RequestError] {
        guard let filename else {
            return [.init(key: key, message: "must not be empty"), .init(key: key, message: "Invalid filename")]
        }
        if filename.isEmpty {
            return [
                .init(key: key, message: "must not be empty"),
                .init(key: key, message: "size must be between 1 and \(filenameLimit)"),
            ]
        }
        var errors: [RequestError] = []
        if filename.count > filenameLimit {
            errors.append(.init(key: key, message: "size must be between 1 and \(filenameLimit)"))
        }
        let unsafe =
            filename == "." || filename == ".."
            || filename.unicodeScalars.contains {
                $0 == "/" || $0 == "\\" || $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value)
            }
        if unsafe { errors.append(.init(key: key, message: "Invalid filename")) }
        return errors
    }

    /// Whether each of `keys` is text or null where present.
    static func textMembers(_ object: [String: Any], _ keys: [String]) -> Bool {
        keys.allSatisfy { key in object[key].map { $0 is String || $0 is JSON.Null } ?? true }
    }

    /// SiVa's checks of `document` (`@NotBlank`, `@ValidBase64String`).
    static func documentErrors(_ document: String) -> [RequestError] {
        if document.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) {
            return [
                .init(key: "document", message: "must not be blank"),
                .init(key: "document", message: RequestError.notBase64),
            ]
        }
        return isBase64Alphabet(document) ? [] : [.init(key: "document", message: RequestError.notBase64)]
    }

    /// The bytes of a base64 document; nil when malformed (length, padding, data after the
    /// padding, stray bits). Strict on purpose: Foundation's decoder takes `QU=D` as two bytes.
    static func decode(_ document: String) -> Data? {
        (try? Base64.decode(document, field: "document", ignoringWhitespace: true, maximumCount: Int.max / 2)).map {
            Data($0)
        }
    }

    /// The alphabet test SiVa makes (commons-codec `isBase64`): base64 letters, padding and white
    /// space only; the length and padding are checked when the document is decoded.
    static func isBase64Alphabet(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
                || byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }
    }

    /// The document's bytes; nil when the base64 is malformed (`decode`).
    public func decodedDocument() -> Data? { Self.decode(document) }

    /// The decoded size the base64 text stands for, at most (white space not counted).
    public var documentSizeBound: Int {
        let digits = document.utf8.reduce(0) { $0 + ($1 == 0x20 || $1 == 0x09 || $1 == 0x0A || $1 == 0x0D ? 0 : 1) }
        return digits / 4 * 3 + 3
    }

    /// The file name's extension, lower-cased ("" when it has none).
    public var fileExtension: String {
        guard let dot = filename.lastIndex(of: "."), dot != filename.startIndex else { return "" }
        return String(filename[filename.index(after: dot)...]).lowercased()
    }
}

/// The 400 answer's `requestErrors`, in SiVa's order: as the checks found them.
public struct RequestErrors: Error, Sendable, Equatable {
    public let errors: [RequestError]

    public init(_ errors: [RequestError]) { self.errors = errors }

    public var json: JSON.Value {
        .object([
            (
                "requestErrors",
                .array(errors.map { .object([("key", .string($0.key)), ("message", .string($0.message))]) })
            )
        ])
    }
}

/// A `POST /getDataFiles` request: a DDOC's data files back (SiVa's only other document route).
/// `document` and `filename` are checked as for `/validate`; the name must end in `.ddoc`, and
/// other members (`documentType` too) are ignored, as SiVa ignores them.
public struct DataFilesRequest: Sendable {
    public let document: String
    public let filename: String

    static let notDDOC = "Invalid filename. Can only return data files for DDOC type containers."

    public static func parse(_ body: [UInt8]) -> Result<DataFilesRequest, RequestErrors> {
        guard let object = (try? JSON.parse(body, duplicateKeysRefused: true)) as? [String: Any] else {
            return .failure(RequestErrors([.bodyNotReadable]))
        }
        guard ValidationRequest.textMembers(object, ["document", "filename"]) else {
            return .failure(RequestErrors([.bodyNotReadable]))
        }
        let document = object["document"] as? String ?? ""
        var errors = ValidationRequest.documentErrors(document)
        let filename = object["filename"] as? String
        let nameErrors = ValidationRequest.filenameErrors(filename, key: "filename")
        errors += nameErrors
        if nameErrors.isEmpty, !(filename ?? "").lowercased().hasSuffix(".ddoc") {
            errors.append(.init(key: "filename", message: notDDOC))
        }
        guard errors.isEmpty else { return .failure(RequestErrors(errors)) }
        return .success(DataFilesRequest(document: document, filename: filename ?? ""))
    }

    /// The document's bytes; nil when the base64 is malformed.
    public func decodedDocument() -> Data? { ValidationRequest.decode(document) }
}
