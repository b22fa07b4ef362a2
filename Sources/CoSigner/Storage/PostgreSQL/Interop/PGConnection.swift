internal import CDeferredLibraries
internal import CLibPQ
import FoundationEssentials
import Glibc
import TamgaSupport

/// One libpq connection, closed when released. Used by one thread at a time (the pool hands it
/// out); statements go with binary parameters and come back in binary (`PostgreSQLValues`).
final class PGConnection {
    private let handle: OpaquePointer

    /// Connects to `uri` (a libpq connection URI). A URI without its own `connect_timeout`
    /// gives up after 5 s rather than hanging a request on an unreachable host.
    init(uri: String) throws {
        // libpq is loaded on first use (CDeferredLibraries): a machine without it hears which
        // package to install, not a connection failure.
        guard tamga_lazy_load("libpq.so.5") != 0 else {
            throw DatabaseError(
                code: 0,
                message:
                    "PostgreSQL needs libpq, which cannot be loaded (\(String(cString: tamga_lazy_error("libpq.so.5")))): install the libpq5 package"
            )
        }
        let keywords = ["connect_timeout", "application_name", "dbname"]
        // Later keywords override earlier ones, and the URI (expanded from "dbname") comes
        // last, so its own settings win over these defaults.
        let values = ["5", "tamga-cosigner", uri]
        let connection = Self.withCStrings(keywords) { keys in
            Self.withCStrings(values) { vals in PQconnectdbParams(keys, vals, 1) }
        }
        guard let connection else {
            throw DatabaseError(code: 0, message: "out of memory for a PostgreSQL connection", kind: .unavailable)
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            var message = Self.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            // libpq quotes what it could not parse ("invalid percent-encoded token: …"),
            // which can be the password itself: never let it into an error.
            for password in DatabaseLocation.passwords(in: uri) {
                message = message.replacingAll(password, with: "***")
            }
            throw DatabaseError(code: 0, message: "cannot connect to PostgreSQL: \(message)", kind: .unavailable)
        }
        // Notices ("relation already exists, skipping") are not errors: no stderr lines.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
    }

    deinit { PQfinish(handle) }

    /// False once the server closed the connection (a restart, an idle timeout), noticed
    /// without a round trip: an idle connection has nothing to read unless the server said
    /// goodbye (a FATAL "terminating connection" and the end of the stream), so anything
    /// waiting on its socket means it is not to be used.
    var isUsable: Bool {
        guard PQstatus(handle) == CONNECTION_OK else { return false }
        let socket = PQsocket(handle)
        guard socket >= 0 else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 0
    }

    /// Inside a transaction that a failed statement aborted: its COMMIT would only roll back.
    var inFailedTransaction: Bool { PQtransactionStatus(handle) == PQTRANS_INERROR }

    /// Outside any transaction (a connection left inside one must not go back to the pool).
    var isIdle: Bool { PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// One statement with `$n` parameters: its rows and the number of rows it changed.
    func run(_ sql: String, _ parameters: [SQLValue]) throws -> (rows: [[SQLValue]], changed: Int) {
        let encoded = parameters.map(PostgreSQLValues.encode)
        // Copies that live through the call: libpq reads every value before it returns.
        let buffers: [UnsafeMutablePointer<CChar>?] = encoded.map { value in
            guard let bytes = value.bytes else { return nil }
            let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
            bytes.withUnsafeBytes { source in
                if let base = source.baseAddress {
                    UnsafeMutableRawPointer(buffer).copyMemory(from: base, byteCount: bytes.count)
                }
            }
            return buffer
        }
        defer {
            // Parameters can be secrets (sealed, but also nonces): zero before freeing.
            for (buffer, value) in zip(buffers, encoded) {
                guard let buffer else { continue }
                buffer.update(repeating: 0, count: max(value.bytes?.count ?? 0, 1))
                buffer.deallocate()
            }
        }
        let types = encoded.map { Oid($0.type) }
        let lengths = encoded.map { Int32($0.bytes?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: encoded.count)
        let values = buffers.map { UnsafePointer($0) }
        guard let result = PQexecParams(handle, sql, Int32(encoded.count), types, values, lengths, formats, 1) else {
            throw failure(nil)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(result) }
        var rows: [[SQLValue]] = []
        let rowCount = PQntuples(result), columnCount = PQnfields(result)
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                if PQgetisnull(result, row, column) == 1 {
                    values.append(.null)
                    continue
                }
                let length = Int(PQgetlength(result, row, column))
                let bytes: [UInt8] =
                    PQgetvalue(result, row, column).map { pointer in
                        Array(UnsafeRawBufferPointer(start: pointer, count: length))
                    } ?? []
                values.append(try PostgreSQLValues.decode(type: UInt32(PQftype(result, column)), bytes: bytes))
            }
            rows.append(values)
        }
        let changed = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
        return (rows, changed)
    }

    /// Several statements without parameters (a migration's script), in one round trip.
    func runScript(_ sql: String) throws {
        guard let result = PQexec(handle, sql) else { throw failure(nil) }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY else {
            throw failure(result)
        }
    }

    /// The failure of the last statement: `unavailable` when the connection is gone or the
    /// server is going away, or when the transaction collided with another (worth retrying).
    private func failure(_ result: OpaquePointer?) -> DatabaseError {
        let sqlState = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
        let message =
            result.map { Self.trimmed(PQresultErrorMessage($0)) }.flatMap { $0.isEmpty ? nil : $0 }
            ?? Self.trimmed(PQerrorMessage(handle))
        let lost = PQstatus(handle) != CONNECTION_OK
        let unavailable = lost || sqlState.map(Self.isUnavailable) ?? (result == nil)
        return DatabaseError(
            code: 0, message: lost ? "the connection to PostgreSQL was lost: \(message)" : message,
            kind: unavailable ? .unavailable : .failed, sqlState: sqlState)
    }

    /// Serialization failure, deadlock, connection exceptions (class 08), the server shutting
    /// down or starting (57P01–57P03), out of connections or resources (class 53).
    static func isUnavailable(_ sqlState: String) -> Bool {
        ["40001", "40P01", "57P01", "57P02", "57P03"].contains(sqlState) || sqlState.hasPrefix("08")
            || sqlState.hasPrefix("53")
    }

    private static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0).trimmed() } ?? ""
    }

    private static func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        // Never empty (the nil terminator), so the buffer always has an address.
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
