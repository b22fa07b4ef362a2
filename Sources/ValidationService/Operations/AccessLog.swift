import FoundationEssentials
import HTTPService
import TamgaCore
import TamgaSupport

/// One JSON line per answered request, for the journal or a log shipper: when, from whom, what
/// route, the answer's status and size, how long it took, and how many signatures were found and
/// passed. Never the document, and the names of the files only when the operator asked
/// (`--log-names`): a file name can say more about a person than the signature does.
public struct AccessLog: Sendable {
    public let includeNames: Bool
    let write: @Sendable (String) -> Void

    public init(includeNames: Bool = false, write: @escaping @Sendable (String) -> Void) {
        self.includeNames = includeNames
        self.write = write
    }

    /// A path as logged: the routes the service knows by name, anything else as `other` (the
    /// path is the client's text, and a log line must not carry whatever they put there).
    static func route(_ path: String) -> String {
        SiVaService.knownRoutes.contains(path) ? path : "other"
    }

    func record(
        _ request: HTTPRequest, response: HTTPResponse, seconds: Double, outcome: SiVaService.Outcome?,
        at time: Date = Date()
    ) {
        var members: [(String, JSON.Value)] = [
            ("time", .string(XSDDateTime.format(time))),
            ("client", request.client.map { .string($0.description) } ?? .null),
            ("method", .string(String(request.method.prefix(16)))),
            ("route", .string(Self.route(request.path))),
            ("status", .integer(response.status)),
            ("requestBytes", .integer(request.body.count)),
            ("responseBytes", .integer(response.body.count)),
            ("microseconds", .integer(Int(min(max(0, seconds), 1e9) * 1e6))),
        ]
        if let outcome {
            members.append(("signatures", .integer(outcome.signatures)))
            members.append(("validSignatures", .integer(outcome.validSignatures)))
            if includeNames { members.append(("names", .array(outcome.names.map { .string($0) }))) }
        }
        write(String(decoding: JSON.data(.object(members)), as: UTF8.self))
    }
}
