import FoundationEssentials
import Glibc
import TamgaSupport

/// The services' base64: envelopes carry base64url of JSON, but samples differ on padding and
/// some public code uses standard base64. Decoding accepts all four; encoding writes unpadded
/// base64url (what the SP sample sends).
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingAll("+", with: "-").replacingAll("/", with: "_")
            .replacingAll("=", with: "")
    }

    public static func decode(_ text: String, field: String) throws -> Data {
        var standard = text.trimmed().replacingAll("-", with: "+").replacingAll("_", with: "/")
        guard !standard.isEmpty,
            standard.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "/" || $0 == "=") })
        else {
            throw MobileIDError.notBase64(field: field)
        }
        let unpadded = standard.replacingAll("=", with: "")
        guard standard.count - unpadded.count <= 2, !standard.dropLast(standard.count - unpadded.count).contains("="),
            unpadded.count % 4 != 1
        else {
            throw MobileIDError.notBase64(field: field)
        }
        standard = unpadded + String(repeating: "=", count: (4 - unpadded.count % 4) % 4)
        guard let data = Data(base64Encoded: standard) else { throw MobileIDError.notBase64(field: field) }
        return data
    }

    /// The JSON object inside a base64 field.
    static func object(_ text: String, field: String, message: String) throws -> [String: Any] {
        let data = try decode(text, field: field)
        guard let object = (try? JSON.parse(data)) as? [String: Any] else {
            throw MobileIDError.malformedMessage(message: message, detail: "\(field) does not hold a JSON object")
        }
        return object
    }

    static func json(_ object: [String: Any]) -> Data {
        (try? JSON.data(object, options: [.withoutEscapingSlashes])).map { Data($0) } ?? Data("{}".utf8)
    }
}
