/// Writes a JSON tree as UTF-8: keys sorted, `/` escaped unless asked not to, control
/// characters as `\uXXXX` except the five with short escapes, as `JSONSerialization` wrote them.
struct JSONWriter {
    private(set) var output: [UInt8] = []
    private let pretty: Bool
    private let escapeSlashes: Bool

    init(options: JSON.WritingOptions) {
        pretty = options.contains(.prettyPrinted)
        escapeSlashes = !options.contains(.withoutEscapingSlashes)
    }

    private mutating func append(_ text: String) { output.append(contentsOf: text.utf8) }

    private mutating func newline(_ depth: Int) {
        guard pretty else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(0x20, count: depth * 2))
    }

    mutating func write(_ value: Any, depth: Int) throws {
        guard depth <= JSON.maximumDepth else {
            throw JSON.WriteError(reason: "nested deeper than \(JSON.maximumDepth) levels")
        }
        switch value {
        case let text as String: string(text)
        case let text as Substring: string(String(text))
        case let flag as Bool: append(flag ? "true" : "false")
        case is JSON.Null: append("null")
        case let number as Int: append(String(number))
        case let number as Int8: append(String(number))
        case let number as Int16: append(String(number))
        case let number as Int32: append(String(number))
        case let number as Int64: append(String(number))
        case let number as UInt: append(String(number))
        case let number as UInt8: append(String(number))
        case let number as UInt16: append(String(number))
        case let number as UInt32: append(String(number))
        case let number as UInt64: append(String(number))
        case let number as Double: try double(number)
        case let number as Float: try double(Double(number))
        case let object as [String: Any]: try self.object(object, depth: depth)
        case let array as [Any]: try self.array(array, depth: depth)
        default:
            // An Optional inside `Any`: its value, or null.
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                if let wrapped = mirror.children.first?.value {
                    try write(wrapped, depth: depth)
                } else {
                    append("null")
                }
                return
            }
            throw JSON.WriteError(reason: "\(type(of: value)) cannot be written as JSON")
        }
    }

    mutating func write(_ value: JSON.Value, depth: Int) {
        switch value {
        case .string(let text): string(text)
        case .integer(let number): append(String(number))
        case .bool(let flag): append(flag ? "true" : "false")
        case .null: append("null")
        case .array(let elements):
            guard !elements.isEmpty else {
                append("[]")
                return
            }
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                write(element, depth: depth + 1)
            }
            newline(depth)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else {
                append("{}")
                return
            }
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.0 < $1.0 }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth + 1)
                string(member.0)
                append(pretty ? " : " : ":")
                write(member.1, depth: depth + 1)
            }
            newline(depth)
            output.append(UInt8(ascii: "}"))
        }
    }

    private mutating func double(_ number: Double) throws {
        guard number.isFinite else { throw JSON.WriteError(reason: "\(number) cannot be written as JSON") }
        // Whole numbers as integers (2, not 2.0), as JSONSerialization wrote them.
        if number == number.rounded(), abs(number) < 9_007_199_254_740_992 {
            append(String(Int64(number)))
        } else {
            append(String(number))  // the shortest text that reads back as the same Double
        }
    }

    private mutating func object(_ object: [String: Any], depth: Int) throws {
        guard !object.isEmpty else {
            append("{}")
            return
        }
        output.append(UInt8(ascii: "{"))
        for (index, key) in object.keys.sorted().enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            newline(depth + 1)
            string(key)
            append(pretty ? " : " : ":")
            try write(object[key] as Any, depth: depth + 1)
        }
        newline(depth)
        output.append(UInt8(ascii: "}"))
    }

    private mutating func array(_ array: [Any], depth: Int) throws {
        guard !array.isEmpty else {
            append("[]")
            return
        }
        output.append(UInt8(ascii: "["))
        for (index, element) in array.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            newline(depth + 1)
            try write(element, depth: depth + 1)
        }
        newline(depth)
        output.append(UInt8(ascii: "]"))
    }

    private mutating func string(_ text: String) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "/") where escapeSlashes: append("\\/")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0..<0x20:
                let digits = Array("0123456789abcdef".utf8)
                append("\\u00")
                output.append(digits[Int(byte >> 4)])
                output.append(digits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
