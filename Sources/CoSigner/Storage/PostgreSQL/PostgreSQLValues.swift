/// `SQLValue`s to and from PostgreSQL's binary format: integers as int8 (8 bytes, big-endian),
/// blobs as bytea (the bytes), text as text (UTF-8, no terminator). A row's value comes from
/// the server, so every length is checked and an unknown type is an error, never a crash.
enum PostgreSQLValues {
    /// The type OIDs the co-signer's schema uses (pg_type.dat).
    enum TypeOID {
        static let bool: UInt32 = 16, bytea: UInt32 = 17, name: UInt32 = 19, int8: UInt32 = 20, int2: UInt32 = 21,
            int4: UInt32 = 23
        static let text: UInt32 = 25, bpchar: UInt32 = 1042, varchar: UInt32 = 1043, unknown: UInt32 = 705
        /// What `SELECT pg_advisory_lock(…)` returns.
        static let void: UInt32 = 2278
    }

    /// A parameter: its type OID (0 lets the server infer it, for NULL) and its binary value
    /// (nil for NULL).
    static func encode(_ value: SQLValue) -> (type: UInt32, bytes: [UInt8]?) {
        switch value {
        case .null: return (0, nil)
        case .integer(let v): return (TypeOID.int8, withUnsafeBytes(of: v.bigEndian) { Array($0) })
        case .text(let v): return (TypeOID.text, Array(v.utf8))
        case .blob(let v): return (TypeOID.bytea, v)
        }
    }

    /// One column's value in binary format.
    static func decode(type: UInt32, bytes: [UInt8]) throws -> SQLValue {
        switch type {
        case TypeOID.int8, TypeOID.int4, TypeOID.int2:
            let width = type == TypeOID.int8 ? 8 : type == TypeOID.int4 ? 4 : 2
            guard bytes.count == width else { throw malformed("an integer of \(bytes.count) bytes (type \(type))") }
            // Big-endian two's complement, sign-extended from the first byte.
            var value: Int64 = Int64(Int8(bitPattern: bytes[0]))
            for byte in bytes.dropFirst() { value = (value << 8) | Int64(byte) }
            return .integer(value)
        case TypeOID.bool:
            guard bytes.count == 1 else { throw malformed("a boolean of \(bytes.count) bytes") }
            return .integer(bytes[0] == 0 ? 0 : 1)
        case TypeOID.bytea: return .blob(bytes)
        case TypeOID.void: return .null
        case TypeOID.text, TypeOID.varchar, TypeOID.bpchar, TypeOID.name, TypeOID.unknown:
            guard let text = String(validating: bytes, as: UTF8.self) else { throw malformed("text that is not UTF-8") }
            return .text(text)
        default:
            throw malformed(
                "a column of type \(type), which the co-signer does not read (cast it to BIGINT, TEXT or BYTEA)")
        }
    }

    private static func malformed(_ what: String) -> DatabaseError {
        DatabaseError(code: 0, message: "PostgreSQL sent \(what)")
    }
}
