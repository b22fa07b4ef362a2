internal import CSQLite
import FoundationEssentials
import Glibc
import TamgaSupport

/// A consistent copy of a co-signer's SQLite database with SQLite's online backup API
/// (`sqlite3_backup_*`), safe while `cosigner serve` writes to it: the copy is made inside one
/// read transaction, which in WAL mode neither waits for the server's writers nor holds them up,
/// so it is the database as of one commit. The copy goes to a private temporary file beside the
/// destination, is checked, synced, and only then given its name, so a failed or interrupted
/// backup never leaves a half-written file under the name an operator would restore from.
public enum SQLiteBackup {
    /// What was copied.
    public struct Report: Sendable, Equatable {
        public let pages: Int
        public let bytes: Int
        public let schemaVersion: Int
    }

    /// Copies `source` (which must be an existing co-signer database) to `destination`;
    /// `replace` allows an existing destination to be replaced (and its stale `-wal`/`-shm`
    /// removed, which would otherwise be replayed into the new file).
    public static func copy(from source: String, to destination: String, replace: Bool) throws -> Report {
        guard FileManager.default.fileExists(atPath: source) else {
            throw DatabaseError(
                code: SQLITE_CANTOPEN, message: "\(source): no such database; give the co-signer's --db FILE")
        }
        let from = try open(source, flags: SQLITE_OPEN_READWRITE)
        defer { sqlite3_close_v2(from) }
        sqlite3_busy_timeout(from, 5000)
        let version = try integer(from, "PRAGMA user_version")
        guard version > 0,
            try integer(from, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'server_identity'")
                == 1
        else {
            throw DatabaseError(
                code: SQLITE_NOTADB, message: "\(source) is not a co-signer database (no co-signer schema in it)")
        }

        let folder = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        let temporary = folder.appendingPathPart(".\(destination.lastPathPart).partial-\(getpid())")
        // Mode 0600 from the start: the copy holds the sealed shares and the activity log.
        unlink(temporary)
        let descriptor = Glibc.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw DatabaseError(
                code: SQLITE_CANTOPEN,
                message:
                    "cannot create a file in \(folder) (\(String(cString: strerror(errno)))): give OUT in a folder you can write"
            )
        }
        close(descriptor)
        var named = false
        defer { if !named { unlink(temporary) } }

        let pages: Int
        do {
            let to = try open(temporary, flags: SQLITE_OPEN_READWRITE)
            defer { sqlite3_close_v2(to) }
            guard let backup = sqlite3_backup_init(to, "main", from, "main") else { throw failure(to) }
            var status: Int32
            repeat {
                // All pages in one step: one read transaction, so one consistent snapshot. Busy
                // only while a checkpoint or a recovery holds the file; then wait and retry.
                status = sqlite3_backup_step(backup, -1)
                if status == SQLITE_BUSY || status == SQLITE_LOCKED { usleep(50_000) }
            } while status == SQLITE_OK || status == SQLITE_BUSY || status == SQLITE_LOCKED
            pages = Int(sqlite3_backup_pagecount(backup))
            let finished = sqlite3_backup_finish(backup)
            guard status == SQLITE_DONE, finished == SQLITE_OK else { throw failure(to) }
            // The copy is checked before it is given its name: a backup that does not pass is no backup.
            guard try text(to, "PRAGMA integrity_check") == "ok" else {
                throw DatabaseError(
                    code: SQLITE_CORRUPT,
                    message: "the copy of \(source) failed SQLite's integrity check; nothing was written")
            }
        }
        let sync = Glibc.open(temporary, O_RDONLY | O_CLOEXEC)
        if sync >= 0 {
            fsync(sync)
            close(sync)
        }

        if replace {
            for leftover in [destination + "-wal", destination + "-shm"] { unlink(leftover) }
            guard rename(temporary, destination) == 0 else {
                throw DatabaseError(
                    code: SQLITE_CANTOPEN, message: "cannot write \(destination) (\(String(cString: strerror(errno))))")
            }
        } else {
            // link() refuses an existing name atomically: no window in which a file made
            // meanwhile would be overwritten.
            guard link(temporary, destination) == 0 else {
                let reason =
                    errno == EEXIST ? "it exists; give --force to replace it" : String(cString: strerror(errno))
                throw DatabaseError(code: SQLITE_CANTOPEN, message: "will not write \(destination): \(reason)")
            }
            unlink(temporary)
        }
        named = true
        let directory = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
        // stat(2): FoundationEssentials reports the size as UInt, which `as? Int` never matches.
        var status = stat()
        let bytes = stat(destination, &status) == 0 ? Int(status.st_size) : 0
        return Report(pages: pages, bytes: bytes, schemaVersion: version)
    }

    private static func open(_ path: String, flags: Int32) throws -> OpaquePointer {
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw DatabaseError(code: status, message: "\(path): \(message)")
        }
        return handle
    }

    private static func failure(_ connection: OpaquePointer) -> DatabaseError {
        DatabaseError(code: sqlite3_errcode(connection), message: String(cString: sqlite3_errmsg(connection)))
    }

    /// The first column of the first row of `sql`, as text or integer.
    private static func first(_ connection: OpaquePointer, _ sql: String) throws -> (text: String?, integer: Int64) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure(connection)
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw failure(connection) }
        let text = sqlite3_column_text(statement, 0).map { String(cString: $0) }
        return (text, sqlite3_column_int64(statement, 0))
    }
    private static func integer(_ connection: OpaquePointer, _ sql: String) throws -> Int {
        Int(try first(connection, sql).integer)
    }
    private static func text(_ connection: OpaquePointer, _ sql: String) throws -> String? {
        try first(connection, sql).text
    }
}
