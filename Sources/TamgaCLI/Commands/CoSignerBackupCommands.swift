import CoSigner
import FoundationEssentials
import Glibc

/// A `--db` value that names a PostgreSQL database rather than a SQLite file: backing it up is
/// PostgreSQL's own tools' job.
private func refusePostgreSQL(_ database: String, tool: String) throws {
    if database.hasPrefix("postgresql://") || database.hasPrefix("postgres://") {
        throw UsageError(
            "--db is a PostgreSQL database: use PostgreSQL's \(tool) (pg_dump -Fc for a backup, pg_restore to restore it); cosigner backup and restore copy SQLite files"
        )
    }
}

/// Refuses to replace `file` unless `--force`, as a usage error naming the option (the copy
/// itself refuses too, atomically, should the file appear meanwhile).
private func refuseOverwrite(_ file: String, force: Bool) throws {
    if !force && FileManager.default.fileExists(atPath: file) {
        throw UsageError("\(file) exists: give --force to replace it")
    }
}

/// Refuses a copy from a file that is not there, naming what to give.
private func requireSource(_ file: String, _ what: String) throws {
    guard FileManager.default.fileExists(atPath: file) else { throw UsageError("there is no \(what) at \(file)") }
}

/// What backup and restore print with --json.
private struct CopyReport: Encodable {
    let from: String, to: String
    let pages: Int, bytes: Int, schemaVersion: Int
}

/// `tamga cosigner backup`
struct CoSignerBackupCommand: Command {
    static let path = ["cosigner", "backup"]
    static let abstract = "Copies the co-signer's SQLite database to a file, safely while it serves."
    static let usage = "OUT [--db FILE] [--force] [--json]"
    static let help = """
        Writes a consistent copy of the database (--db, default ./cosigner.db) to OUT with SQLite's
        online backup API: the co-signer may keep serving meanwhile; the copy is the database as of
        one commit, checked with SQLite's integrity check before it gets its name, mode 0600. OUT
        is not overwritten unless --force. The copy does not include the server key (--key, default
        FILE.key): without that key its shares cannot be opened, so keep a copy of the key too,
        somewhere else. For a PostgreSQL --db, use pg_dump. Restore with cosigner restore.
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--force"])
    static let options: Set<String> = ["--db"]

    let database: String, output: String
    let force: Bool
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1, let output = arguments.positionals.first, !output.isEmpty else {
            throw UsageError("give the file to write the backup to")
        }
        self.output = output
        database = arguments.value("--db") ?? "cosigner.db"
        force = arguments.has("--force")
        global = GlobalOptions(arguments)
        try refusePostgreSQL(database, tool: "pg_dump")
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        try copyDatabase(
            from: database, named: "co-signer database (--db FILE, default ./cosigner.db)", to: output, force: force,
            global: global, context
        ) { from, to, report in
            "backed up \(from) to \(to) (\(report.bytes) bytes, schema version \(report.schemaVersion)); keep the server key with it"
        }
    }
}

/// `tamga cosigner restore`
struct CoSignerRestoreCommand: Command {
    static let path = ["cosigner", "restore"]
    static let abstract = "Puts a backup made by cosigner backup back as a co-signer database."
    static let usage = "BACKUP [--db FILE] [--force] [--json]"
    static let help = """
        Copies BACKUP (checked first: a co-signer database that passes SQLite's integrity check) to
        the database --db (default ./cosigner.db). Stop the co-signer that uses --db first: a
        running co-signer would keep answering from what it holds in memory. An existing --db is
        replaced only with --force (its -wal and -shm files are removed with it). Start the
        co-signer again with the server key the backup was made with (--key).
        """
    static let flags: Set<String> = GlobalOptions.flags.union(["--force"])
    static let options: Set<String> = ["--db"]

    let database: String, backup: String
    let force: Bool
    let global: GlobalOptions

    init(_ arguments: ParsedArguments) throws {
        guard arguments.positionals.count == 1, let backup = arguments.positionals.first, !backup.isEmpty else {
            throw UsageError("give the backup file to restore")
        }
        self.backup = backup
        database = arguments.value("--db") ?? "cosigner.db"
        force = arguments.has("--force")
        global = GlobalOptions(arguments)
        try refusePostgreSQL(database, tool: "pg_restore")
    }

    func run(_ context: CommandContext) async throws -> ExitCode {
        try copyDatabase(from: backup, named: "backup", to: database, force: force, global: global, context) {
            from, to, report in
            "restored \(from) to \(to) (schema version \(report.schemaVersion)); start the co-signer with the server key it was backed up with"
        }
    }
}

/// Backup and restore are the same checked copy in opposite directions: the source must exist,
/// the target is replaced only with --force, and the report is the same JSON either way.
private func copyDatabase(
    from source: String, named label: String, to target: String, force: Bool, global: GlobalOptions,
    _ context: CommandContext,
    line: (String, String, SQLiteBackup.Report) -> String
) throws -> ExitCode {
    try requireSource(source, label)
    try refuseOverwrite(target, force: force)
    let report = try SQLiteBackup.copy(from: source, to: target, replace: force)
    let (from, to) = (
        URL(fileURLWithPath: source).standardizedFileURL.path, URL(fileURLWithPath: target).standardizedFileURL.path
    )
    if global.json {
        context.terminal.json(
            CopyReport(
                from: from, to: to, pages: report.pages, bytes: report.bytes, schemaVersion: report.schemaVersion))
    } else if !global.quiet {
        context.terminal.line(line(from, to, report))
    }
    return .success
}
