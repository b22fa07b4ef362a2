/// JSON as the untyped trees the messages and outputs are handled as (`[String: Any]`,
/// `[Any]`, `String`, `Int`, `Double`, `Bool`, `JSON.null`): what `JSONSerialization` did,
/// without linking the whole of Foundation into the installed binary.
///
/// Differences from `JSONSerialization`, on purpose:
/// - numbers come back as `Int` when written without a fraction or exponent and within Int's
///   range, else as `Double` (never as a bridged number that is also a `Bool`);
/// - input is UTF-8 only (RFC 8259 §8.1 for JSON between systems), and its nesting is limited
///   to `maximumDepth`, so a hostile message costs time and stack in proportion to its size;
/// - objects are always written with their keys sorted, so the same tree gives the same bytes.
public enum JSON {
    /// JSON's `null` in a tree (`NSNull` in `JSONSerialization`'s).
    public struct Null: Equatable, Hashable, Sendable {}
    public static let null = Null()

    /// How deep arrays and objects may nest in input.
    public static let maximumDepth = 256

    public struct ParseError: Error, CustomStringConvertible, Equatable {
        /// The byte offset where the input stopped making sense.
        public let offset: Int
        public let reason: String
        public var description: String { "not valid JSON at byte \(offset): \(reason)" }
    }

    public struct WriteError: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// What `data` holds: an object or an array at the top, unless `fragmentsAllowed`.
    /// With `duplicateKeysRefused`, an object that names a member twice is an error.
    public static func parse<Bytes: Collection>(
        _ data: Bytes, fragmentsAllowed: Bool = false, duplicateKeysRefused: Bool = false
    ) throws -> Any
    where Bytes.Element == UInt8 {
        var parser = JSONParser(bytes: Array(data), duplicateKeysRefused: duplicateKeysRefused)
        return try parser.document(fragmentsAllowed: fragmentsAllowed)
    }

    /// `parse` for callers that want an object and nothing else: nil for anything else.
    public static func object<Bytes: Collection>(_ data: Bytes) -> [String: Any]? where Bytes.Element == UInt8 {
        (try? parse(data)) as? [String: Any]
    }

    public struct WritingOptions: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Two spaces per level and `"key" : value`, as `JSONSerialization` printed them.
        public static let prettyPrinted = WritingOptions(rawValue: 1)
        /// `/` as it is, not `\/`.
        public static let withoutEscapingSlashes = WritingOptions(rawValue: 2)
    }

    /// The UTF-8 text of `value`: a tree of the types `parse` returns (any fixed-width integer,
    /// `Float`, optionals holding nil as `null`); anything else, or a number that is not
    /// finite, throws.
    public static func data(_ value: Any, options: WritingOptions = []) throws -> [UInt8] {
        var writer = JSONWriter(options: options)
        try writer.write(value, depth: 0)
        return writer.output
    }

    /// `data` as a String.
    public static func text(_ value: Any, options: WritingOptions = []) throws -> String {
        String(decoding: try data(value, options: options), as: UTF8.self)
    }
}
