import FoundationEssentials
import Glibc
import TamgaSupport

/// An RFC 9457 problem body (`type`, `title`, `status`, `detail`, `errors[]`), which Smart-ID's
/// RP API v3 sends with 400 and 404. Only what helps a person is kept, bounded and stripped of
/// control characters: the service's words go into an error message, never into a terminal raw.
struct ProblemDetails: Equatable, Sendable {
    var title = ""
    var detail = ""
    /// `errors[].code`, e.g. `NO_SUITABLE_ACCOUNT_FOUND` (v3.2's replacement for HTTP 471).
    var codes: [String] = []
    /// `errors[].paramName`: which request parameters a 400 is about.
    var parameters: [String] = []

    /// nil unless `body` is a JSON object with a problem's `title` or `detail`.
    init?(_ body: Data) {
        guard body.count <= 64 * 1024, let object = (try? JSON.parse(body)) as? [String: Any],
            object["title"] is String || object["detail"] is String
        else { return nil }
        title = Self.clean(object["title"] as? String ?? "")
        detail = Self.clean(object["detail"] as? String ?? "")
        let errors = (object["errors"] as? [Any] ?? []).prefix(8)
        codes = errors.compactMap { ($0 as? [String: Any])?["code"] as? String }.map(Self.clean).filter { !$0.isEmpty }
        parameters = errors.compactMap { ($0 as? [String: Any])?["paramName"] as? String }.map(Self.clean).filter {
            !$0.isEmpty
        }
        if title.isEmpty && detail.isEmpty && codes.isEmpty { return nil }
    }

    /// "; the service says: Not Found: No suitable account… (NO_SUITABLE_ACCOUNT_FOUND)", and for
    /// a 400 the parameters it names ("…; parameters: interactions").
    var said: String {
        let words = [title, detail == title ? "" : detail].filter { !$0.isEmpty }.joined(separator: ": ")
        let code = codes.isEmpty ? "" : " (\(codes.joined(separator: ", ")))"
        let named = parameters.isEmpty ? "" : "; parameters: \(parameters.joined(separator: ", "))"
        return "; the service says: \(words)\(code)\(named)"
    }

    private static func clean(_ text: String) -> String { TextLimits.printable(text, limit: 160) }
}
