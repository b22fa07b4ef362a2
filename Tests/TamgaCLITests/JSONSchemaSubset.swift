import Foundation

/// A small subset of JSON Schema, enough for docs/cli.md's schemas of tamga's `--json` output:
/// `type` (a name or a list of names: object, array, string, integer, number, boolean, null),
/// `properties`, `required`, `additionalProperties` (false, or a schema for the other values),
/// `items`, `enum`. Returns what does not conform, as "path: problem" lines (empty: it conforms).
enum JSONSchemaSubset {
    static func problems(_ value: Any, against schema: [String: Any], at path: String = "$") -> [String] {
        if let allowed = schema["enum"] as? [Any], !allowed.contains(where: { equal($0, value) }) {
            return ["\(path): \(value) is not one of \(allowed)"]
        }
        let types = (schema["type"] as? [String]) ?? (schema["type"] as? String).map { [$0] } ?? []
        if !types.isEmpty, !types.contains(where: { matches(value, type: $0) }) {
            return ["\(path): \(describe(value)) where the schema says \(types.joined(separator: " or "))"]
        }
        var found: [String] = []
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            for key in schema["required"] as? [String] ?? [] where object[key] == nil {
                found.append("\(path): \"\(key)\" is missing")
            }
            for (key, item) in object {
                if let property = properties[key] {
                    found += problems(item, against: property, at: "\(path).\(key)")
                } else if let other = schema["additionalProperties"] as? [String: Any] {
                    found += problems(item, against: other, at: "\(path).\(key)")
                } else if (schema["additionalProperties"] as? Bool) == false {
                    found.append("\(path): \"\(key)\" is not in the schema")
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, item) in array.enumerated() { found += problems(item, against: items, at: "\(path)[\(index)]") }
        }
        return found
    }

    private static func matches(_ value: Any, type: String) -> Bool {
        switch type {
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "null": return value is NSNull
        case "boolean": return isBoolean(value)
        case "integer":
            return !isBoolean(value) && (value as? NSNumber).map { $0.doubleValue == $0.doubleValue.rounded() } == true
        case "number": return !isBoolean(value) && value is NSNumber
        default: return false
        }
    }

    /// JSONSerialization gives booleans as NSNumber too (an `__NSCFBoolean`); they are told
    /// apart by that class, since `is Bool` holds for the numbers 0 and 1 as well.
    private static func isBoolean(_ value: Any) -> Bool { String(describing: type(of: value)).contains("Boolean") }

    private static func equal(_ a: Any, _ b: Any) -> Bool { "\(a)" == "\(b)" }
    private static func describe(_ value: Any) -> String {
        isBoolean(value)
            ? "a boolean"
            : value is String
                ? "a string"
                : value is NSNull
                    ? "null" : value is [Any] ? "an array" : value is [String: Any] ? "an object" : "a number"
    }
}
