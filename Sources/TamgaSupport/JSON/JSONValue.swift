extension JSON {
    /// A JSON tree with its types known when it is built: written without the dynamic casts
    /// that `JSON.data` needs for an `Any` tree (each a runtime conformance lookup the first
    /// time), for output that must be fast from a cold start (`tamga readers --json`).
    public enum Value: Sendable, Equatable {
        case string(String)
        case integer(Int)
        case bool(Bool)
        case null
        case array([Value])
        /// Members in any order: they are written sorted by key, as every other object is.
        case object([(String, Value)])

        public static func == (left: Value, right: Value) -> Bool {
            switch (left, right) {
            case let (.string(a), .string(b)): a == b
            case let (.integer(a), .integer(b)): a == b
            case let (.bool(a), .bool(b)): a == b
            case (.null, .null): true
            case let (.array(a), .array(b)): a == b
            case let (.object(a), .object(b)):
                a.count == b.count
                    && zip(a.sorted { $0.0 < $1.0 }, b.sorted { $0.0 < $1.0 }).allSatisfy {
                        $0.0 == $1.0 && $0.1 == $1.1
                    }
            default: false
            }
        }
    }

    /// The UTF-8 text of `value`, laid out as `data` lays out the same tree.
    public static func data(_ value: Value, options: WritingOptions = []) -> [UInt8] {
        var writer = JSONWriter(options: options)
        writer.write(value, depth: 0)
        return writer.output
    }
}
