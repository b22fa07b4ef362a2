import FoundationEssentials
import Glibc

/// The SP's request to the app (M200): which transaction, which mode, where the SP is.
public struct M200: Equatable, Sendable {
    public var version: String
    public var transactionCode: String
    public var mode: Mode
    /// The signed verify profile, base64url; may be empty (the app then fetches `/mip/profile`).
    public var profile: String
    /// The SP's logo URL.
    public var image: String?
    /// Whether the presentation must carry the CI personal identifier.
    public var ci: Bool
    /// Whether the presentation must carry the phone number.
    public var telno: Bool
    /// The SP server's base URL (direct mode posts the presentation to `{host}/mip/vp`).
    public var host: String?
    public var packageName: Bool?

    public init(
        version: String = "1.0.0", transactionCode: String, mode: Mode, profile: String = "", image: String? = nil,
        ci: Bool = false, telno: Bool = false, host: String? = nil, packageName: Bool? = nil
    ) {
        self.version = version
        self.transactionCode = transactionCode
        self.mode = mode
        self.profile = profile
        self.image = image
        self.ci = ci
        self.telno = telno
        self.host = host
        self.packageName = packageName
    }

    /// Parses and checks an M200 (any `version` is accepted: the samples disagree).
    public init(object: [String: Any]) throws {
        guard object["type"] as? String == "mip" else {
            throw MobileIDError.unexpectedMessage(expected: "mip M200", got: "type \(object["type"] ?? "none")")
        }
        guard object["cmd"] as? String == "200" else {
            throw MobileIDError.unexpectedMessage(expected: "M200", got: "cmd \(object["cmd"] ?? "none")")
        }
        guard let version = object["version"] as? String, !version.isEmpty else {
            throw MobileIDError.malformedMessage(message: "M200", detail: "version is missing")
        }
        guard let code = object["trxcode"] as? String else {
            throw MobileIDError.malformedMessage(message: "M200", detail: "trxcode is missing")
        }
        guard TransactionCode.isValid(code) else { throw MobileIDError.malformedTransactionCode(code) }
        mode = try Mode(field: object["mode"], message: "M200")
        guard object["ci"] == nil || object["ci"] is Bool, object["telno"] == nil || object["telno"] is Bool else {
            throw MobileIDError.malformedMessage(message: "M200", detail: "ci and telno are booleans")
        }
        self.version = version
        transactionCode = code
        profile = object["profile"] as? String ?? ""
        image = object["image"] as? String
        ci = object["ci"] as? Bool ?? false
        telno = object["telno"] as? Bool ?? false
        host = object["host"] as? String
        packageName = object["packageName"] as? Bool
        if mode == .direct, (host ?? "").isEmpty, profile.isEmpty {
            throw MobileIDError.malformedMessage(
                message: "M200", detail: "a direct-mode M200 needs the SP's host (or a profile with a callback)")
        }
    }

    public init(base64: String) throws {
        try self.init(object: try Base64URL.object(base64, field: "m200", message: "M200"))
    }

    public var json: Data {
        var object: [String: Any] = [
            "type": "mip", "version": version, "cmd": "200", "trxcode": transactionCode, "mode": mode.rawValue,
            "ci": ci, "telno": telno,
        ]
        if !profile.isEmpty { object["profile"] = profile }
        if let image { object["image"] = image }
        if let host { object["host"] = host }
        if let packageName { object["packageName"] = packageName }
        return Base64URL.json(object)
    }

    /// Unpadded base64url of the JSON, as it goes into links and `m200Base64`.
    public var base64: String { Base64URL.encode(json) }
}
