/// The journal's tables in a PostgreSQL database: made when missing, checked when found.
///
/// The same tables as the SQLite journal's (`SQLiteJournalStorage`), with `BIGINT` integers and `BYTEA`
/// bodies, in the database's default schema (the first of `search_path` that exists), so that several
/// journals (a cluster's brokers) share one database, and an operator who wants them apart gives each
/// its own database or `search_path`.
enum PostgresJournalSchema {
    /// The advisory lock that makes creation safe when brokers start at once: without it, two
    /// `CREATE TABLE IF NOT EXISTS` racing can both find the table missing, and one fails on the catalog's
    /// unique index. Its value is arbitrary ("layoutdJ"), shared by every layoutd.
    static let creationLock: Int64 = 0x6C61_796F_7574_644A

    private static let tables = ["journal_meta", "layouts", "bodies"]

    /// Makes the tables in the database `link` is connected to, or checks those there; refuses a
    /// database whose tables are another format's, another role's, or not a journal's.
    static func createOrCheck(on link: PostgresSession.Link, role: JournalRole) throws(JournalError) {
        let location = link.location
        try link.transaction { () throws(JournalError) in
            try link.query("SELECT pg_advisory_xact_lock(\(creationLock))")
            let columns = try link.query("""
                SELECT table_name::text, column_name::text FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name IN ('journal_meta', 'layouts', 'bodies')
                """)
            var found: [String: Set<String>] = [:]
            for row in columns {
                let (table, column) = try link.decode(row, as: (String, String).self)
                found[table, default: []].insert(column)
            }
            if found.isEmpty {
                try create(on: link, role: role)
                return
            }
            guard let meta = found["journal_meta"] else {
                let names = found.keys.sorted().joined(separator: " and ")
                throw JournalError(.incompatible, "PostgreSQL at \(location) has a table \(names) but no journal_meta: it is not a layoutd journal; give journal.url another database (or its role a search_path with a schema of its own)")
            }
            guard meta.isSuperset(of: ["name", "value"]) else {
                throw JournalError(.incompatible, "PostgreSQL at \(location) has a journal_meta table that is not layoutd's (no name and value columns); give journal.url another database or schema")
            }
            var values: [String: String] = [:]
            for row in try link.query("SELECT name::text, value::text FROM journal_meta") {
                let (name, value) = try link.decode(row, as: (String, String).self)
                values[name] = value
            }
            guard let format = values["format"] else {
                throw JournalError(.incompatible, "PostgreSQL at \(location) has a journal_meta table without a format: it is not a layoutd journal; give journal.url another database or schema")
            }
            guard format == JournalFormat.current else {
                throw JournalError(.incompatible, "PostgreSQL at \(location) holds a layoutd journal of format \(format), and this layoutd reads format \(JournalFormat.current); move its tables away or point journal.url elsewhere")
            }
            guard values["role"] == role.rawValue else {
                throw JournalError(.incompatible, "PostgreSQL at \(location) holds the journal of a \(values["role"] ?? "unknown role"), not of a \(role.rawValue); give each its own database or schema")
            }
            let missing = tables.filter { found[$0] == nil }
            guard missing.isEmpty else {
                throw JournalError(.incompatible, "PostgreSQL at \(location) holds a layoutd journal without its table \(missing.joined(separator: " and ")); it was changed by hand: restore it or point journal.url elsewhere")
            }
        }
    }

    private static func create(on link: PostgresSession.Link, role: JournalRole) throws(JournalError) {
        // IF NOT EXISTS although the lock serialises creators: a layoutd that made the tables without the
        // lock (none does) must not make this one fail.
        try link.query("CREATE TABLE IF NOT EXISTS journal_meta(name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        try link.query("""
            CREATE TABLE IF NOT EXISTS layouts(
                namespace TEXT NOT NULL, name TEXT NOT NULL, version BIGINT NOT NULL, epoch BIGINT NOT NULL,
                items BIGINT NOT NULL, changed_at BIGINT NOT NULL, kept BIGINT NOT NULL, base BIGINT NOT NULL,
                rebuild_bytes BIGINT NOT NULL, change_bytes BIGINT NOT NULL, changes BIGINT NOT NULL,
                PRIMARY KEY(namespace, name))
            """)
        try link.query("""
            CREATE TABLE IF NOT EXISTS bodies(
                namespace TEXT NOT NULL, name TEXT NOT NULL, version BIGINT NOT NULL,
                checksum BIGINT NOT NULL, body BYTEA NOT NULL)
            """)
        try link.query("CREATE UNIQUE INDEX IF NOT EXISTS bodies_by_key ON bodies(namespace, name, version)")
        try link.query("""
            INSERT INTO journal_meta(name, value) VALUES('format', \(JournalFormat.current)), ('role', \(role.rawValue))
            ON CONFLICT(name) DO NOTHING
            """)
    }
}
