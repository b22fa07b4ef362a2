import FoundationEssentials
import Glibc
import TamgaSupport

/// The URLs that call the mobile-ID app and bring the presentation back.
public enum AppLink {
    /// The app takes at most this many characters in a call.
    public static let maximumLength = 1024

    public enum Environment: Sendable {
        /// Production and development: the `MobileID` scheme (bundle kr.go.mobileid).
        case production
        /// The test bed: `tMobileID` (bundle kr.go.mobileid.tbe).
        case testbed
        var scheme: String { self == .production ? "MobileID" : "tMobileID" }
    }

    /// `MobileID://verify?clientScheme=…&data=<m200>&mode=…` (or `tMobileID://` on the test bed).
    public static func scheme(
        _ m200: M200, clientScheme: String, environment: Environment = .production
    ) throws -> String {
        try checked(
            "\(environment.scheme)://verify?"
                + query([("clientScheme", clientScheme), ("data", m200.base64), ("mode", m200.mode.rawValue)]))
    }

    /// `https://mobileid.go.kr/verify.html?mode=…&data=<m200>&clientScheme=…` (production only).
    public static func universal(_ m200: M200, clientScheme: String) throws -> String {
        try checked(
            "https://mobileid.go.kr/verify.html?"
                + query([("mode", m200.mode.rawValue), ("data", m200.base64), ("clientScheme", clientScheme)]))
    }

    /// What an app call carries: the M200, the mode, the caller's scheme.
    public struct Call: Equatable, Sendable {
        public let environment: Environment
        public let m200: M200
        public let mode: Mode
        public let clientScheme: String
    }

    /// Parses any of the three call forms back (enforcing the length limit).
    public static func parseCall(_ url: String) throws -> Call {
        guard url.count <= maximumLength else { throw MobileIDError.linkTooLong(length: url.count) }
        guard let components = URLComponents(string: url) else { throw MobileIDError.notAMobileIDLink(url) }
        let environment: Environment
        switch (components.scheme?.lowercased(), components.host?.lowercased(), components.path) {
        case ("mobileid", "verify", ""): environment = .production
        case ("tmobileid", "verify", ""): environment = .testbed
        case ("https", "mobileid.go.kr", "/verify.html"): environment = .production
        default: throw MobileIDError.notAMobileIDLink(url)
        }
        let items = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        guard let data = items["data"] else {
            throw MobileIDError.malformedMessage(message: "app call", detail: "data is missing")
        }
        let m200 = try M200(base64: data)
        let mode = try Mode(field: items["mode"] ?? m200.mode.rawValue, message: "app call")
        guard mode == m200.mode else {
            throw MobileIDError.malformedMessage(
                message: "app call", detail: "the link says mode \(mode.rawValue), its M200 \(m200.mode.rawValue)")
        }
        return Call(environment: environment, m200: m200, mode: mode, clientScheme: items["clientScheme"] ?? "")
    }

    /// The app's return to the caller in indirect mode: `<clientScheme>://verify?success=true&data=<M400>`.
    public static func callback(clientScheme: String, presentation: M400) throws -> String {
        try checked(
            "\(clientScheme)://verify?"
                + query([("success", "true"), ("data", String(decoding: presentation.json, as: UTF8.self))]))
    }

    /// Reads the callback: the M400 when `success=true`; the app's failure otherwise.
    public static func parseCallback(_ url: String, clientScheme: String) throws -> M400 {
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == clientScheme.lowercased(),
            components.host == "verify"
        else { throw MobileIDError.notAMobileIDLink(url) }
        let items = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        guard items["success"]?.lowercased() == "true" else {
            throw MobileIDError.appReportedFailure(
                items["errmsg"] ?? items["data"] ?? "success=\(items["success"] ?? "missing")")
        }
        guard let data = items["data"], !data.isEmpty else {
            throw MobileIDError.malformedMessage(message: "callback", detail: "data is missing")
        }
        return try M400(text: data)
    }

    static func checked(_ url: String) throws -> String {
        guard url.count <= maximumLength else { throw MobileIDError.linkTooLong(length: url.count) }
        return url
    }

    /// Query items percent-encoded strictly (base64url is safe; JSON and `+` in standard
    /// base64 are not).
    static func query(_ items: [(String, String)]) -> String {
        items.map { "\($0.0)=\(PercentEncoding.encode($0.1))" }.joined(separator: "&")
    }
}
