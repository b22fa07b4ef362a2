import Foundation
import TamgaTestSupport

/// The two databases the co-signer runs on; its HTTP suites run on each (the PostgreSQL
/// subclasses in PostgreSQLStoreTests.swift).
enum TestStoreKind {
    case sqlite, postgresql

    /// A new, empty database: a file in `folder`, or a new database in the test process's
    /// PostgreSQL server (`PostgreSQLRig.shared`, started on first use).
    func newDatabase(in folder: URL) throws -> String {
        switch self {
        case .sqlite: return folder.appendingPathComponent("cosigner.db").path
        case .postgresql: return try PostgreSQLRig.shared.newDatabase()
        }
    }
}
