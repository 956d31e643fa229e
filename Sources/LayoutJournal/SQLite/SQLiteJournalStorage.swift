import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The journal in one SQLite file, in WAL mode: a group commit is one transaction; `sync` durability
/// has SQLite sync the WAL at each commit (`synchronous=FULL`), `async` leaves that to `makeDurable`.
///
/// Tables: `journal_meta` (format and role), `layouts` (one row per key: its version, epoch and the
/// sizes of its bodies; a dropped key stays, not kept, so its version count goes on) and `bodies`
/// (each key's rebuild body and the changes since, by version, each with its checksum).
final class SQLiteJournalStorage: LoggedJournalStorage {
    private let connection: SQLiteConnection
    private let path: String
    private var statements: [Statement: SQLiteStatement] = [:]

    private enum Statement: Hashable {
        case deleteBodies, insertBody, upsertRebuilt, upsertDropped, raiseEpoch, selectBodies, selectLayout, setLogPosition
    }

    /// Opens (creating it when missing) the journal at `path` for `role`; refuses one written for another
    /// role or format, or a file that is not an SQLite database.
    /// - Parameter durability: `sync` has every commit synced; nil leaves syncing to `makeDurable` (as
    ///   `async` does), for a journal whose append-only log keeps what SQLite has not synced.
    init(path: String, role: JournalRole, durability: JournalDurability?) throws(JournalError) {
        self.path = path
        try JournalFolder.make(for: path)
        connection = try SQLiteConnection(path: path)
        // Looked at before anything is set: a database that is not a journal is refused as it was found.
        let names = try tableNames()
        guard names.isEmpty || names.contains("journal_meta") else {
            throw JournalError(.incompatible, "\(path) is an SQLite database but not a layoutd journal (it has no journal_meta table); point journal.url elsewhere")
        }
        guard try connection.text("PRAGMA journal_mode=WAL").lowercased() == "wal" else {
            throw JournalError(.unreadable, "\(path): SQLite would not use WAL mode")
        }
        try connection.execute("PRAGMA synchronous=\(durability == .sync ? "FULL" : "NORMAL")", failing: .unreadable)
        // After a checkpoint the WAL is cut back to this, so a burst of large bodies does not keep its size.
        try connection.execute("PRAGMA journal_size_limit=67108864", failing: .unreadable)
        // No checkpoint inside a group commit (it syncs twice, on the journal thread): the journal runs
        // them from the reading connection, on a thread of its own (`checkpoint()`).
        try connection.execute("PRAGMA wal_autocheckpoint=0", failing: .unreadable)
        try checkOrCreateSchema(role: role, names: names)
    }

    private func tableNames() throws(JournalError) -> Set<String> {
        let tables = try connection.prepare("SELECT name FROM sqlite_master WHERE type='table'", failing: .unreadable)
        var names: Set<String> = []
        while try tables.step() { names.insert(tables.text(at: 0)) }
        return names
    }

    private func checkOrCreateSchema(role: JournalRole, names: Set<String>) throws(JournalError) {
        if names.isEmpty {
            try connection.execute("""
                BEGIN;
                CREATE TABLE journal_meta(name TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE layouts(
                    namespace TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL, epoch INTEGER NOT NULL,
                    items INTEGER NOT NULL, changed_at INTEGER NOT NULL, kept INTEGER NOT NULL, base INTEGER NOT NULL,
                    rebuild_bytes INTEGER NOT NULL, change_bytes INTEGER NOT NULL, changes INTEGER NOT NULL,
                    PRIMARY KEY(namespace, name));
                CREATE TABLE bodies(
                    namespace TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL,
                    checksum INTEGER NOT NULL, written_at INTEGER NOT NULL, items INTEGER NOT NULL, body BLOB NOT NULL);
                CREATE UNIQUE INDEX bodies_by_key ON bodies(namespace, name, version);
                INSERT INTO journal_meta VALUES('format', '\(JournalFormat.current)'), ('role', '\(role.rawValue)');
                COMMIT;
                """, failing: .unreadable)
            return
        }
        let meta = try connection.prepare("SELECT name, value FROM journal_meta", failing: .unreadable)
        var values: [String: String] = [:]
        while try meta.step() { values[meta.text(at: 0)] = meta.text(at: 1) }
        guard values["format"] == JournalFormat.current else {
            throw JournalError(.incompatible, "\(path) is a layoutd journal of format \(values["format"] ?? "unknown"), and this layoutd reads format \(JournalFormat.current); move it away or point journal.url elsewhere")
        }
        guard values["role"] == role.rawValue else {
            throw JournalError(.incompatible, "\(path) is the journal of a \(values["role"] ?? "unknown role"), not of a \(role.rawValue); give each its own journal.url")
        }
    }

    private func statement(_ which: Statement) throws(JournalError) -> SQLiteStatement {
        if let prepared = statements[which] { return prepared }
        let sql: String
        switch which {
        case .deleteBodies: sql = "DELETE FROM bodies WHERE namespace=?1 AND name=?2"
        case .insertBody: sql = "INSERT INTO bodies(namespace, name, version, checksum, written_at, items, body) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)"
        case .upsertRebuilt:
            sql = """
                INSERT INTO layouts VALUES(?1, ?2, ?3, ?4, ?5, ?6, 1, ?3, ?7, 0, 0)
                ON CONFLICT(namespace, name) DO UPDATE SET version=?3, epoch=?4, items=?5, changed_at=?6, kept=1,
                base=?3, rebuild_bytes=?7, change_bytes=0, changes=0
                """
        case .upsertDropped:
            sql = """
                INSERT INTO layouts VALUES(?1, ?2, ?3, 0, 0, ?4, 0, ?3, 0, 0, 0)
                ON CONFLICT(namespace, name) DO UPDATE SET version=?3, items=0, changed_at=?4, kept=0,
                base=?3, rebuild_bytes=0, change_bytes=0, changes=0
                """
        case .raiseEpoch: sql = "UPDATE layouts SET epoch = MAX(epoch, ?3) WHERE namespace=?1 AND name=?2"
        case .selectBodies: sql = "SELECT version, checksum, body FROM bodies WHERE namespace=?1 AND name=?2 ORDER BY version"
        case .selectLayout: sql = "SELECT kept, base FROM layouts WHERE namespace=?1 AND name=?2"
        case .setLogPosition: sql = "INSERT OR REPLACE INTO journal_meta VALUES('log_lsn', ?1)"
        }
        let prepared = try connection.prepare(sql, failing: .unreadable)
        statements[which] = prepared
        return prepared
    }

    func loadKeys() throws(JournalError) -> [JournalKeyState] {
        try keyStates(where: "")
    }

    func keyState(for key: JournalKey) throws(JournalError) -> JournalKeyState? {
        // The key named in both the outer query and the bodies' aggregate, so that each reads the
        // key's rows through its index, not the whole table.
        try keyStates(where: "WHERE namespace = ?1 AND name = ?2", outerWhere: "WHERE l.namespace = ?1 AND l.name = ?2", binding: key).first
    }

    /// The states of the keys `outerWhere` selects (every key when empty), `bodiesWhere` narrowing the
    /// bodies' aggregate to them.
    private func keyStates(where bodiesWhere: String, outerWhere: String = "", binding key: JournalKey? = nil) throws(JournalError) -> [JournalKeyState] {
        // A change writes its body alone (one row and its index entry: the fewest pages a commit can
        // touch); what it did to the key's state is read back from the bodies here.
        let rows = try connection.prepare("""
            SELECT l.namespace, l.name, COALESCE(b.version, l.version), l.epoch,
                COALESCE((SELECT items FROM bodies i WHERE i.namespace = l.namespace AND i.name = l.name ORDER BY version DESC LIMIT 1), l.items),
                MAX(l.changed_at, COALESCE(b.written_at, 0)),
                l.kept, l.base, l.rebuild_bytes, COALESCE(b.bytes, l.rebuild_bytes) - l.rebuild_bytes, COALESCE(b.count, 1) - 1
            FROM layouts l LEFT JOIN (
                SELECT namespace, name, MAX(version) AS version, MAX(written_at) AS written_at, COUNT(*) AS count, SUM(LENGTH(body)) AS bytes
                FROM bodies \(bodiesWhere) GROUP BY namespace, name
            ) b ON b.namespace = l.namespace AND b.name = l.name
            \(outerWhere)
            """, failing: .unreadable)
        if let key { rows.bind(.text(key.namespace), .text(key.name)) }
        var keys: [JournalKeyState] = []
        while try rows.step() {
            keys.append(JournalKeyState(
                key: JournalKey(namespace: rows.text(at: 0), name: rows.text(at: 1)),
                version: Int(rows.integer(at: 2)), epoch: UInt64(bitPattern: rows.integer(at: 3)), items: Int(rows.integer(at: 4)),
                changedAtMillis: rows.integer(at: 5), isKept: rows.integer(at: 6) != 0, base: Int(rows.integer(at: 7)),
                rebuildBytes: Int(rows.integer(at: 8)), changeBytes: Int(rows.integer(at: 9)), changes: Int(rows.integer(at: 10))
            ))
        }
        return keys
    }

    func write(_ batch: [JournalWrite], atMillis now: Int64) throws(JournalError) {
        try write(batch.map { LoggedWrite(lsn: 0, write: $0, atMillis: now, checksum: Checksum.of($0.body)) }, logPosition: nil)
    }

    /// Writes `batch`, which came through the append-only log, in one transaction, with the lsn of its
    /// last record: a start replays the log from there.
    func write(logged batch: [LoggedWrite]) throws(JournalError) {
        try write(batch, logPosition: batch.last?.lsn)
    }

    /// The lsn of the last logged record SQLite has (0 before the first).
    func logPosition() throws(JournalError) -> UInt64 {
        let row = try connection.prepare("SELECT value FROM journal_meta WHERE name = 'log_lsn'", failing: .unreadable)
        guard try row.step() else { return 0 }
        return UInt64(row.text(at: 0)) ?? 0
    }

    private func write(_ batch: [LoggedWrite], logPosition: UInt64?) throws(JournalError) {
        try connection.execute("BEGIN IMMEDIATE")
        do throws(JournalError) {
            for logged in batch {
                let (now, checksum) = (logged.atMillis, Int64(bitPattern: logged.checksum))
                switch logged.write {
                case .rebuild(let key, let version, let epoch, let items, let body):
                    try statement(.deleteBodies).run(.text(key.namespace), .text(key.name))
                    try statement(.insertBody).run(.text(key.namespace), .text(key.name), .integer(Int64(version)), .integer(checksum), .integer(now), .integer(Int64(items)), .blob(body))
                    try statement(.upsertRebuilt).run(.text(key.namespace), .text(key.name), .integer(Int64(version)), .integer(Int64(bitPattern: epoch)), .integer(Int64(items)), .integer(now), .integer(Int64(body.count)))
                case .change(let key, let version, let items, let body):
                    try statement(.insertBody).run(.text(key.namespace), .text(key.name), .integer(Int64(version)), .integer(checksum), .integer(now), .integer(Int64(items)), .blob(body))
                case .drop(let key, let version):
                    try statement(.deleteBodies).run(.text(key.namespace), .text(key.name))
                    try statement(.upsertDropped).run(.text(key.namespace), .text(key.name), .integer(Int64(version)), .integer(now))
                case .epoch(let key, let epoch):
                    try statement(.raiseEpoch).run(.text(key.namespace), .text(key.name), .integer(Int64(bitPattern: epoch)))
                }
            }
            if let logPosition {
                try statement(.setLogPosition).run(.text(String(logPosition)))
            }
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    func recipe(for key: JournalKey) throws(JournalError) -> JournalRecipe? {
        let layout = try statement(.selectLayout)
        layout.bind(.text(key.namespace), .text(key.name))
        guard try layout.step(), layout.integer(at: 0) != 0 else { return nil }
        let base = Int(layout.integer(at: 1))
        let rows = try statement(.selectBodies)
        rows.bind(.text(key.namespace), .text(key.name))
        var bodies: [[UInt8]] = []
        while try rows.step() {
            let expected = base + bodies.count
            guard rows.integer(at: 0) == Int64(expected) else {
                throw JournalError(.corrupt, "\(key): the body of version \(expected) is missing (found \(rows.integer(at: 0)))")
            }
            let body = rows.blob(at: 2)
            guard Checksum.of(body) == UInt64(bitPattern: rows.integer(at: 1)) else {
                throw JournalError(.corrupt, "\(key): the body of version \(expected) does not match its checksum")
            }
            bodies.append(body)
        }
        guard !bodies.isEmpty else {
            throw JournalError(.corrupt, "\(key): kept, but none of its bodies is there")
        }
        return JournalRecipe(base: base, bodies: bodies)
    }

    func makeDurable() throws(JournalError) {
        // fsync of the WAL, which holds every commit since the last checkpoint (which syncs by itself).
        let descriptor = open(path + "-wal", O_RDONLY)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw JournalError(.writeFailed, "\(path)-wal: fsync failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Copies the WAL's commits into the database file, so the WAL stays short (PASSIVE: never waits
    /// for the writer, whose commits go on meanwhile).
    func checkpoint() {
        try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
    }

    func byteCount() -> Int {
        Self.fileSize(path) + Self.fileSize(path + "-wal")
    }

    /// Writes 1 MB and takes it away again: a write that changes nothing could fit in the WAL's pages
    /// already on the disk and pass on a full disk, so the probe must make the WAL grow.
    func probe() throws(JournalError) {
        do throws(JournalError) {
            try connection.execute("BEGIN IMMEDIATE; INSERT OR REPLACE INTO journal_meta VALUES('probe', randomblob(1048576)); COMMIT;")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        try? connection.execute("DELETE FROM journal_meta WHERE name='probe'")
    }

    private static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }
}
