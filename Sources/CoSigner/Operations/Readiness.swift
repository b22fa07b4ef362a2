/// Whether an instance can take requests: its database answers and holds the schema this
/// program was built for (a database migrated by a newer version, or not yet migrated, is not
/// one this code may write to).
public enum Readiness: Sendable, Equatable {
    case ready(schemaVersion: Int)
    case databaseUnavailable(String)
    case schemaMismatch(found: Int, expected: Int)
}

extension CoSignerStore {
    /// Asks the database now (one small read each time: a load balancer probes every few seconds).
    public func readiness() -> Readiness {
        let found: Int
        do {
            _ = try database.query("SELECT 1")
            found = database.schemaVersion
        } catch {
            return .databaseUnavailable(String(describing: error))
        }
        let expected = Self.migrations.count
        return found == expected ? .ready(schemaVersion: found) : .schemaMismatch(found: found, expected: expected)
    }
}
