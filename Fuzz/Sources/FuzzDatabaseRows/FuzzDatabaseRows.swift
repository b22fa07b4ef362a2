import Foundation
import FuzzSupport

@testable import CoSigner

/// What the co-signer reads from PostgreSQL and from `--db`: a column value in the binary
/// format (any type OID, any bytes — a server or a proxy in between may send anything), the
/// statements' placeholder rewriting, and a URI's password redaction. An error is fine; a trap
/// is not, and a value the decoder accepts must encode back to the same bytes.
let knownTypes: [UInt32] = [16, 17, 19, 20, 21, 23, 25, 705, 1042, 1043, 2278, 1700, 0]

/// Input: one selector byte (a known type OID, or the next four bytes as the OID), then the value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDatabaseRows(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = FuzzSupport.bytes(data, size)
    guard let selector = bytes.first else { return 0 }
    var rest = Array(bytes.dropFirst())
    var type = knownTypes[Int(selector) % knownTypes.count]
    if selector >= 0xF0, rest.count >= 4 {
        type = rest.prefix(4).reduce(UInt32(0)) { ($0 << 8) | UInt32($1) }
        rest = Array(rest.dropFirst(4))
    }
    if let value = try? PostgreSQLValues.decode(type: type, bytes: rest) {
        let encoded = PostgreSQLValues.encode(value)
        // int2/int4/bool widen to int8 and text types all come back as text: compare values.
        if encoded.type != 0, let again = try? PostgreSQLValues.decode(type: encoded.type, bytes: encoded.bytes ?? []),
            again != value
        {
            fatalError("a decoded value does not survive encoding: \(value) → \(again)")
        }
    }
    let text = String(decoding: rest, as: UTF8.self)
    _ = PostgreSQLPlaceholders.rewrite(text)
    let redacted = DatabaseLocation.redacted("postgresql://" + text)
    // A user part "user:password@" (one "@", before any "/" or "?") comes out as "user:***@",
    // judged by Unicode scalars as libpq reads bytes.
    let scalars = Array(text.unicodeScalars)
    if let at = scalars.firstIndex(of: "@"), !scalars[(at + 1)...].contains("@"),
        !scalars[..<at].contains(where: { $0 == "/" || $0 == "?" }), let colon = scalars[..<at].firstIndex(of: ":")
    {
        let expected = "postgresql://" + String(String.UnicodeScalarView(scalars[..<colon])) + ":***@"
        if !redacted.unicodeScalars.starts(with: expected.unicodeScalars) {
            fatalError("the password survived redaction: \(redacted)")
        }
        let password = String(String.UnicodeScalarView(scalars[(colon + 1)..<at]))
        if !password.isEmpty, !DatabaseLocation.passwords(in: "postgresql://" + text).contains(password) {
            fatalError("passwords(in:) missed the user part's password")
        }
    }
    return 0
}

/// SwiftPM links an executable target's entry point as `FuzzDatabaseRows_main`.
@_cdecl("FuzzDatabaseRows_main")
public func FuzzDatabaseRowsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzDatabaseRows)
}
