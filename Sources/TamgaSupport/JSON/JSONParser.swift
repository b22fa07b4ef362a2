/// RFC 8259 JSON over UTF-8 bytes, by recursive descent with a depth limit: every step moves
/// forward through the input, so the work is bounded by its length.
struct JSONParser {
    private let bytes: [UInt8]
    private var offset = 0
    private var depth = 0
    /// An object that names a member twice is refused, not read with the last value: readers
    /// differ on which one counts (the first, the last, an error), so a message whose meaning
    /// depends on the reader is not read at all.
    private let duplicateKeysRefused: Bool

    init(bytes: [UInt8], duplicateKeysRefused: Bool = false) {
        self.bytes = bytes
        self.duplicateKeysRefused = duplicateKeysRefused
    }

    private func fail(_ reason: String) -> JSON.ParseError { JSON.ParseError(offset: offset, reason: reason) }

    mutating func document(fragmentsAllowed: Bool) throws -> Any {
        skipWhitespace()
        guard offset < bytes.count else { throw fail("no value") }
        if !fragmentsAllowed, bytes[offset] != UInt8(ascii: "{"), bytes[offset] != UInt8(ascii: "[") {
            throw fail("the top level is not an object or an array")
        }
        let result = try value()
        skipWhitespace()
        guard offset == bytes.count else { throw fail("more after the value") }
        return result
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
    }

    private mutating func value() throws -> Any {
        skipWhitespace()
        guard offset < bytes.count else { throw fail("a value was expected") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return try string()
        case UInt8(ascii: "t"):
            try literal("true")
            return true
        case UInt8(ascii: "f"):
            try literal("false")
            return false
        case UInt8(ascii: "n"):
            try literal("null")
            return JSON.null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard bytes.count - offset >= count,
            word.withUTF8Buffer({ Array($0) }) == Array(bytes[offset..<offset + count])
        else { throw fail("unknown literal") }
        offset += count
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= JSON.maximumDepth else { throw fail("nested deeper than \(JSON.maximumDepth) levels") }
        offset += 1
    }

    private mutating func object() throws -> [String: Any] {
        try enter()
        defer { depth -= 1 }
        var result: [String: Any] = [:]
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            return result
        }
        while true {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
                throw fail("a member name was expected")
            }
            let key = try string()
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw fail("':' was expected") }
            if duplicateKeysRefused, result[key] != nil { throw fail("the member \"\(key)\" is named twice") }
            offset += 1
            result[key] = try value()
            skipWhitespace()
            guard offset < bytes.count else { throw fail("the object is not closed") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            guard bytes[offset] == UInt8(ascii: "}") else { throw fail("',' or '}' was expected") }
            offset += 1
            return result
        }
    }

    private mutating func array() throws -> [Any] {
        try enter()
        defer { depth -= 1 }
        var result: [Any] = []
        skipWhitespace()
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            return result
        }
        while true {
            result.append(try value())
            skipWhitespace()
            guard offset < bytes.count else { throw fail("the array is not closed") }
            if bytes[offset] == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            guard bytes[offset] == UInt8(ascii: "]") else { throw fail("',' or ']' was expected") }
            offset += 1
            return result
        }
    }

    private mutating func string() throws -> String {
        offset += 1  // the opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = offset
        func flushRun(_ parser: JSONParser, upTo end: Int) throws {
            guard runStart < end else { return }
            guard let text = String(validating: parser.bytes[runStart..<end], as: UTF8.self) else {
                throw JSON.ParseError(offset: runStart, reason: "not UTF-8")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while true {
            guard offset < bytes.count else { throw fail("the string is not closed") }
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                try flushRun(self, upTo: offset)
                offset += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flushRun(self, upTo: offset)
                offset += 1
                scalars.append(try escape())
                runStart = offset
            case 0..<0x20:
                throw fail("a control character in a string")
            default:
                offset += 1
            }
        }
    }

    private mutating func escape() throws -> Unicode.Scalar {
        guard offset < bytes.count else { throw fail("an unfinished escape") }
        let byte = bytes[offset]
        offset += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let first = try hex4()
            if (0xD800..<0xDC00).contains(first) {
                // A high surrogate must be followed by an escaped low one.
                guard bytes.count - offset >= 6, bytes[offset] == UInt8(ascii: "\\"),
                    bytes[offset + 1] == UInt8(ascii: "u")
                else {
                    throw fail("a lone surrogate")
                }
                offset += 2
                let second = try hex4()
                guard (0xDC00..<0xE000).contains(second) else { throw fail("a lone surrogate") }
                let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                guard let scalar = Unicode.Scalar(combined) else { throw fail("an invalid code point") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(first) else { throw fail("a lone surrogate") }
            return scalar
        default:
            throw fail("an unknown escape")
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard bytes.count - offset >= 4 else { throw fail("an unfinished \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw fail("not a hex digit in a \\u escape")
            }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    private mutating func number() throws -> Any {
        let start = offset
        var integral = true
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < bytes.count, isDigit(bytes[offset]) else { throw fail("a digit was expected") }
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
        } else {
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            integral = false
            offset += 1
            guard offset < bytes.count, isDigit(bytes[offset]) else { throw fail("a digit was expected after '.'") }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            integral = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard offset < bytes.count, isDigit(bytes[offset]) else {
                throw fail("a digit was expected in the exponent")
            }
            while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        if integral, let value = Int(text) { return value }
        guard let value = Double(text), value.isFinite else {
            throw JSON.ParseError(offset: start, reason: "a number out of range")
        }
        return value
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
