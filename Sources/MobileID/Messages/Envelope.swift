import FoundationEssentials
import Glibc
import TamgaSupport

/// Every SP HTTP body: `{"result": bool, "data": "<base64url(JSON message)>"}`.
public struct Envelope: Equatable, Sendable {
    public var result: Bool
    /// The message inside, as JSON bytes.
    public var message: Data

    public init(result: Bool = true, message: Data) {
        self.result = result
        self.message = message
    }

    public init(json: Data) throws {
        guard let object = (try? JSON.parse(json)) as? [String: Any] else {
            throw MobileIDError.malformedMessage(message: "envelope", detail: "not a JSON object")
        }
        guard let result = object["result"] as? Bool else {
            throw MobileIDError.malformedMessage(message: "envelope", detail: "result is missing")
        }
        guard let data = object["data"] as? String else {
            throw MobileIDError.malformedMessage(message: "envelope", detail: "data is missing")
        }
        self.result = result
        message = try Base64URL.decode(data, field: "data")
    }

    public var json: Data { Base64URL.json(["result": result, "data": Base64URL.encode(message)]) }

    /// The message as a JSON object.
    public func object(_ name: String) throws -> [String: Any] {
        guard let object = (try? JSON.parse(message)) as? [String: Any] else {
            throw MobileIDError.malformedMessage(message: name, detail: "data does not hold a JSON object")
        }
        return object
    }
}

/// The modes of the service (`ModeEnum`).
public enum Mode: String, Sendable, CaseIterable {
    /// The app submits the presentation to the SP server itself.
    case direct
    /// App2App only: the presentation goes back to the calling app, which forwards it.
    case indirect
    /// Relayed over the service's websocket.
    case proxy
    case p2p

    init(field: Any?, message: String) throws {
        guard let text = field as? String else {
            throw MobileIDError.malformedMessage(message: message, detail: "mode is missing")
        }
        guard let mode = Mode(rawValue: text) else { throw MobileIDError.unknownMode(text) }
        self = mode
    }
}

/// The SP's App2App start (T530): the app asks the SP server for an M200.
public struct StartRequest: Equatable, Sendable {
    public var mode: Mode
    public var serviceCode: String
    /// Whether the M200 may embed the profile (leave it out for universal links: 1024 characters).
    public var includeProfile: Bool?

    public init(mode: Mode, serviceCode: String, includeProfile: Bool? = nil) {
        self.mode = mode
        self.serviceCode = serviceCode
        self.includeProfile = includeProfile
    }

    public var json: Data {
        var object: [String: Any] = ["cmd": "530", "mode": mode.rawValue, "svcCode": serviceCode]
        if let includeProfile { object["includeProfile"] = includeProfile }
        return Base64URL.json(object)
    }

    public init(json: Data) throws {
        guard let object = (try? JSON.parse(json)) as? [String: Any] else {
            throw MobileIDError.malformedMessage(message: "start request", detail: "not a JSON object")
        }
        mode = try Mode(field: object["mode"], message: "start request")
        guard let code = object["svcCode"] as? String, !code.isEmpty else {
            throw MobileIDError.malformedMessage(message: "start request", detail: "svcCode is missing")
        }
        serviceCode = code
        includeProfile = object["includeProfile"] as? Bool
    }
}

/// The SP's answer to T530, inside an envelope: `{cmd:"530", mode, svcCode, m200Base64}`.
public struct StartResponse: Equatable, Sendable {
    public var mode: Mode
    public var serviceCode: String
    public var m200: M200

    public init(mode: Mode, serviceCode: String, m200: M200) {
        self.mode = mode
        self.serviceCode = serviceCode
        self.m200 = m200
    }

    public init(envelope: Envelope) throws {
        guard envelope.result else { throw MobileIDError.appReportedFailure("the SP answered result=false") }
        let object = try envelope.object("T530")
        guard object["cmd"] as? String == "530" else {
            throw MobileIDError.unexpectedMessage(expected: "T530", got: "cmd \(object["cmd"] ?? "none")")
        }
        mode = try Mode(field: object["mode"], message: "T530")
        serviceCode = object["svcCode"] as? String ?? ""
        guard let m200 = object["m200Base64"] as? String else {
            throw MobileIDError.malformedMessage(message: "T530", detail: "m200Base64 is missing")
        }
        self.m200 = try M200(base64: m200)
    }

    public var envelope: Envelope {
        Envelope(
            message: Base64URL.json([
                "cmd": "530", "mode": mode.rawValue, "svcCode": serviceCode, "m200Base64": m200.base64,
            ]))
    }
}
