/// A value in or out of the database (SQLite or PostgreSQL): the four kinds the co-signer
/// stores. PostgreSQL's BIGINT/INTEGER/BOOLEAN come back as `integer`, BYTEA as `blob`.
public enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])

    public var integer: Int64? { if case .integer(let v) = self { v } else { nil } }
    public var text: String? { if case .text(let v) = self { v } else { nil } }
    public var blob: [UInt8]? { if case .blob(let v) = self { v } else { nil } }
}
