/// What `Database` asks of SQLite and of PostgreSQL alike. Statements use `?` placeholders
/// (the PostgreSQL side rewrites them); a transaction's statements are the calling thread's.
protocol DatabaseBackend: AnyObject, Sendable {
    /// Applies the migrations not yet applied, in order, each in its own transaction; returns
    /// how many it applied. Refuses (`schemaNewer`) a schema newer than `migrations`.
    func migrate(_ migrations: [Migration]) throws -> Int
    func schemaVersion() throws -> Int
    func executeScript(_ sql: String) throws
    func execute(_ sql: String, _ parameters: [SQLValue]) throws -> Int
    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [[SQLValue]]
    func transaction<T>(_ body: () throws -> T) throws -> T
    /// `body` committed without waiting for a disk sync (see `Database.withoutSync`).
    func withoutSync<T>(_ body: () throws -> T) throws -> T
}
