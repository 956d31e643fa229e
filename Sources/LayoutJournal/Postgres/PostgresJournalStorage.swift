import Dispatch

/// The journal in a PostgreSQL database (`journal.url` `postgres://…`), which a cluster's brokers can
/// share: the same tables and statements as `SQLiteJournalStorage` (`PostgresJournalSchema`), through
/// one connection of its own (`PostgresSession`).
///
/// A group commit is one transaction. `sync` durability sets `synchronous_commit = on` for the session,
/// so COMMIT answers once the commit is flushed to the server's disk; `async` sets it `off`: COMMIT
/// answers before the flush, and `makeDurable` then flushes every commit before it (see there).
final class PostgresJournalStorage: LoggedJournalStorage {
    /// Internal, not private: tests look at the statements its connection has prepared.
    let session: PostgresSession
    private let durability: JournalDurability
    /// The broker lease's epoch this writer holds (`BrokerLease`); nil for a journal without a lease.
    private let fencingEpoch: UInt64?
    private let statementBytes: Int
    private var cachedBytes = 0
    private var bytesReadAt: DispatchTime?

    /// How long `byteCount` answers from its cache: it is asked after every group commit, and a size
    /// in the statistics can be a second old.
    private static let bytesCacheNanoseconds: UInt64 = 1_000_000_000

    /// Connects to the database at `url` and makes the journal's tables there (or checks those found)
    /// for `role`; refuses a database holding another role's or format's journal, or tables of the same
    /// names that are not a journal's.
    /// - Parameter statementBytes: the bodies one statement carries at most (a test's is small):
    ///   PostgreSQL takes at most 1 GB in one parameter and in one message, and a run of changes sends
    ///   its bodies as one array.
    init(url: String, role: JournalRole, durability: JournalDurability, fencingEpoch: UInt64? = nil, statementBytes: Int = 64 << 20) throws(JournalError) {
        let parsed = try PostgresURL(url)
        self.statementBytes = max(1, statementBytes)
        self.durability = durability
        self.fencingEpoch = fencingEpoch
        session = try PostgresSession(url: parsed, setUp: ["SET synchronous_commit = \(durability == .sync ? "on" : "off")"])
        try session.withConnection(failing: .unreadable) { link throws(JournalError) in
            try PostgresJournalSchema.createOrCheck(on: link, role: role)
        }
    }

    func loadKeys() throws(JournalError) -> [JournalKeyState] {
        try session.withConnection(failing: .unreadable) { link throws(JournalError) in
            let rows = try link.query("""
                SELECT namespace, name, version, epoch, items, changed_at, kept, base, rebuild_bytes, change_bytes, changes FROM layouts
                """)
            var keys: [JournalKeyState] = []
            keys.reserveCapacity(rows.count)
            for row in rows { keys.append(try Self.keyState(of: row, on: link)) }
            return keys
        }
    }

    func keyState(for key: JournalKey) throws(JournalError) -> JournalKeyState? {
        try session.withConnection(failing: .unreadable) { link throws(JournalError) -> JournalKeyState? in
            let rows = try link.query("""
                SELECT namespace, name, version, epoch, items, changed_at, kept, base, rebuild_bytes, change_bytes, changes FROM layouts
                WHERE namespace = \(key.namespace) AND name = \(key.name)
                """)
            guard let row = rows.first else { return nil }
            return try Self.keyState(of: row, on: link)
        }
    }

    private static func keyState(of row: PostgresRow, on link: PostgresSession.Link) throws(JournalError) -> JournalKeyState {
        let (namespace, name, version, epoch, items, changedAt, kept, base, rebuildBytes, changeBytes, changes) =
            try link.decode(row, as: (String, String, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64).self)
        return JournalKeyState(
            key: JournalKey(namespace: namespace, name: name), version: Int(version), epoch: UInt64(bitPattern: epoch), items: Int(items),
            changedAtMillis: changedAt, isKept: kept != 0, base: Int(base),
            rebuildBytes: Int(rebuildBytes), changeBytes: Int(changeBytes), changes: Int(changes)
        )
    }

    func write(_ batch: [JournalWrite], atMillis now: Int64) throws(JournalError) {
        try write(batch.map { LoggedWrite(lsn: 0, write: $0, atMillis: now, checksum: Checksum.of($0.body)) }, logPosition: nil)
    }

    /// A single daemon's journal with the append-only log in front of it (`async` durability and
    /// `journal.logPath`): the log's writes, with the lsn of the last.
    func write(logged batch: [LoggedWrite]) throws(JournalError) {
        try write(batch, logPosition: batch.last?.lsn)
    }

    func logPosition() throws(JournalError) -> UInt64 {
        try session.withConnection(failing: .unreadable) { link throws(JournalError) -> UInt64 in
            let rows = try link.query("SELECT value FROM journal_meta WHERE name = 'log_lsn'")
            guard let row = rows.first else { return 0 }
            return UInt64(try link.decode(row, as: (String).self)) ?? 0
        }
    }

    private func write(_ batch: [LoggedWrite], logPosition: UInt64?) throws(JournalError) {
        let chunks = Self.chunks(of: batch[...], atMost: statementBytes)
        if fencingEpoch == nil, chunks.count == 1, batch.allSatisfy(\.write.isChange) {
            // The common group commit, changes alone, in one statement that commits by itself (an
            // implicit transaction, at the statement's Sync), and a check behind it, both sent at once:
            // one round trip. The server runs the check once the first's Sync has committed it, so the
            // answer to the second is what says the first is committed (with `sync`, on the server's
            // disk); a statement's own answer comes at its CommandComplete, before that commit. The
            // second is true only when its own transaction has written nothing, so that a session left
            // inside a transaction block by mistake could never pass a commit not made for one made.
            // Both statements are prepared once a connection: parsing and planning the first cost the
            // server about a third of its time a commit.
            let statements = [Self.statement(forChanges: batch[...], logPosition: logPosition), PreparedStatement(Self.committedCheck, [])]
            try session.withConnection(failing: .writeFailed) { link throws(JournalError) in
                let answers: [[PostgresRow]]
                do throws(JournalError) {
                    answers = try link.run(statements)
                } catch {
                    // A session left inside a transaction block that a failure aborted would fail every
                    // commit after it: the block goes (outside one, ROLLBACK only warns).
                    link.rollBack()
                    throw error
                }
                var committed = false
                if let row = answers.last?.first { committed = try link.decode(row, as: (String).self) == "committed" }
                guard committed else {
                    // Whatever the open transaction holds goes, and the connection's next use starts clean.
                    link.rollBack()
                    throw JournalError(.writeFailed, "PostgreSQL at \(link.location): the group commit ran inside an open transaction, not committed")
                }
            }
            return
        }
        var queries: [PostgresQuery] = ["BEGIN"]
        queries.reserveCapacity(batch.count * 3 + 4)
        if let fencingEpoch {
            // Fencing: the lease row is locked for the transaction (a standby taking it waits for the
            // commit), and a lease taken since makes the commit fail before anything is written. The
            // failing cast reads a column, so the planner cannot fold it into an error for every commit.
            let epoch = Int64(fencingEpoch)
            queries.append("SELECT epoch FROM layoutd_lease WHERE name = 'broker' FOR SHARE")
            queries.append("""
                SELECT CASE WHEN EXISTS (SELECT 1 FROM layoutd_lease WHERE name = 'broker' AND epoch = \(epoch)) THEN 1
                ELSE (SELECT CAST('fenced: the broker lease is now held by ' || holder AS INTEGER) FROM layoutd_lease WHERE name = 'broker') END
                """)
        }
        var next = batch.startIndex
        while next < batch.endIndex {
            guard batch[next].write.isChange else {
                let logged = batch[next]
                queries += Self.statements(for: logged.write, atMillis: logged.atMillis, checksum: logged.checksum)
                next += 1
                continue
            }
            let run = batch[next...].prefix { $0.write.isChange }
            for chunk in Self.chunks(of: run, atMost: statementBytes) { queries.append(Self.statement(forChanges: chunk).query) }
            next = run.endIndex
        }
        if let logPosition {
            let position = String(logPosition)
            queries.append("INSERT INTO journal_meta(name, value) VALUES('log_lsn', \(position)) ON CONFLICT(name) DO UPDATE SET value = EXCLUDED.value")
        }
        queries.append("COMMIT")
        try session.withConnection(failing: .writeFailed) { link throws(JournalError) in
            // One round of waiting for the whole group commit. Should a statement fail, those after it
            // fail too and COMMIT answers ROLLBACK: nothing of the batch is kept.
            let answers = try link.pipeline(queries)
            guard answers.last?.command == "COMMIT" else {
                throw JournalError(.writeFailed, "PostgreSQL at \(link.location) rolled the group commit back (it answered \(answers.last?.command ?? "nothing") to COMMIT)")
            }
        }
    }

    private static func statements(for write: JournalWrite, atMillis now: Int64, checksum: UInt64) -> [PostgresQuery] {
        switch write {
        case .rebuild(let key, let version, let epoch, let items, let body):
            let (version, epoch, items, bytes) = (Int64(version), Int64(bitPattern: epoch), Int64(items), Int64(body.count))
            return [
                "DELETE FROM bodies WHERE namespace = \(key.namespace) AND name = \(key.name)",
                insertBody(key, version: version, body: body, checksum: checksum),
                """
                INSERT INTO layouts(namespace, name, version, epoch, items, changed_at, kept, base, rebuild_bytes, change_bytes, changes)
                VALUES(\(key.namespace), \(key.name), \(version), \(epoch), \(items), \(now), 1, \(version), \(bytes), 0, 0)
                ON CONFLICT(namespace, name) DO UPDATE SET version = EXCLUDED.version, epoch = EXCLUDED.epoch, items = EXCLUDED.items,
                changed_at = EXCLUDED.changed_at, kept = 1, base = EXCLUDED.base, rebuild_bytes = EXCLUDED.rebuild_bytes, change_bytes = 0, changes = 0
                """,
            ]
        case .change(let key, let version, let items, let body):
            let (version, items, bytes) = (Int64(version), Int64(items), Int64(body.count))
            return [
                insertBody(key, version: version, body: body, checksum: checksum),
                """
                UPDATE layouts SET version = \(version), items = \(items), changed_at = \(now), change_bytes = change_bytes + \(bytes), changes = changes + 1
                WHERE namespace = \(key.namespace) AND name = \(key.name)
                """,
            ]
        case .drop(let key, let version):
            let version = Int64(version)
            // The row stays, not kept, so that the key's version count goes on after it is made again.
            return [
                "DELETE FROM bodies WHERE namespace = \(key.namespace) AND name = \(key.name)",
                """
                INSERT INTO layouts(namespace, name, version, epoch, items, changed_at, kept, base, rebuild_bytes, change_bytes, changes)
                VALUES(\(key.namespace), \(key.name), \(version), 0, 0, \(now), 0, \(version), 0, 0, 0)
                ON CONFLICT(namespace, name) DO UPDATE SET version = EXCLUDED.version, items = 0, changed_at = EXCLUDED.changed_at,
                kept = 0, base = EXCLUDED.base, rebuild_bytes = 0, change_bytes = 0, changes = 0
                """,
            ]
        case .epoch(let key, let epoch):
            let epoch = Int64(bitPattern: epoch)
            return ["UPDATE layouts SET epoch = GREATEST(epoch, \(epoch)) WHERE namespace = \(key.namespace) AND name = \(key.name)"]
        }
    }

    /// `writes` cut into consecutive pieces whose bodies add up to `bytes` at most (a larger body alone).
    private static func chunks(of writes: ArraySlice<LoggedWrite>, atMost bytes: Int) -> [ArraySlice<LoggedWrite>] {
        var chunks: [ArraySlice<LoggedWrite>] = []
        var start = writes.startIndex
        var total = 0
        for index in writes.indices {
            let size = writes[index].write.bodyBytes
            if index > start && total + size > bytes {
                chunks.append(writes[start..<index])
                (start, total) = (index, 0)
            }
            total += size
        }
        if start < writes.endIndex { chunks.append(writes[start...]) }
        return chunks
    }

    /// Whether the statement before it committed: `committed` only outside a transaction that wrote.
    private static let committedCheck = "SELECT CASE WHEN txid_current_if_assigned() IS NULL THEN 'committed' ELSE 'open' END"

    /// A run of changes in one statement, whatever its length: their bodies inserted from arrays, and
    /// each key's row updated once (and, given `logPosition`, the log's position recorded). With two
    /// statements a change, a group commit of 32 changes cost the server 66 statements to parse, plan and
    /// run, and an `async` second's batch of 20,000 changes, 40,000. Its SQL is the same for every run,
    /// so that it can be prepared once.
    private static func statement(forChanges run: ArraySlice<LoggedWrite>, logPosition: UInt64? = nil) -> PreparedStatement {
        var namespaces: [String] = [], names: [String] = [], versions: [Int64] = [], checksums: [Int64] = []
        var bodies: [PostgresBytes] = []
        for logged in run {
            guard case .change(let key, let version, _, let body) = logged.write else { continue }
            namespaces.append(key.namespace)
            names.append(key.name)
            versions.append(Int64(version))
            checksums.append(Int64(bitPattern: logged.checksum))
            bodies.append(PostgresBytes(body))
        }
        let rows = RowChanges(run)
        return PreparedStatement(changesSQL, [
            namespaces, names, versions, checksums, bodies,
            rows.namespaces, rows.names, rows.versions, rows.items, rows.changedAt, rows.bytes, rows.counts,
            logPosition.map { String($0) },
        ])
    }

    /// A key changed twice in the run is one row of `c`: an UPDATE … FROM takes one row per target.
    /// The three parts touch three tables, so that running them on one snapshot changes nothing.
    private static let changesSQL = """
        WITH inserted AS (
            INSERT INTO bodies(namespace, name, version, checksum, body)
            SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bytea[])
        ), updated AS (
            UPDATE layouts SET version = c.version, items = c.items, changed_at = c.changed_at,
            change_bytes = layouts.change_bytes + c.bytes, changes = layouts.changes + c.count
            FROM unnest($6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[])
            AS c(namespace, name, version, items, changed_at, bytes, count)
            WHERE layouts.namespace = c.namespace AND layouts.name = c.name
        ), logged AS (
            INSERT INTO journal_meta(name, value) SELECT 'log_lsn', $13::text WHERE $13::text IS NOT NULL
            ON CONFLICT(name) DO UPDATE SET value = EXCLUDED.value
        )
        SELECT 1
        """

    /// - Parameter checksum: the body's as it was logged (a body read back damaged from the log keeps
    ///   it, and is found corrupt when its layout is rebuilt).
    private static func insertBody(_ key: JournalKey, version: Int64, body: [UInt8], checksum: UInt64) -> PostgresQuery {
        let checksum = Int64(bitPattern: checksum)
        return """
            INSERT INTO bodies(namespace, name, version, checksum, body)
            VALUES(\(key.namespace), \(key.name), \(version), \(checksum), \(PostgresBytes(body)))
            """
    }

    func recipe(for key: JournalKey) throws(JournalError) -> JournalRecipe? {
        try session.withConnection(failing: .unreadable) { link throws(JournalError) -> JournalRecipe? in
            // One statement, so one snapshot: a commit landing between two reads cannot look like a gap.
            let rows = try link.query("""
                SELECT l.kept, l.base, l.version, b.version, b.checksum, b.body
                FROM layouts l LEFT JOIN bodies b ON b.namespace = l.namespace AND b.name = l.name
                WHERE l.namespace = \(key.namespace) AND l.name = \(key.name)
                ORDER BY b.version
                """)
            guard let first = rows.first else { return nil }
            let (kept, base, version) = try link.decode(first, as: (Int64, Int64, Int64).self)
            guard kept != 0 else { return nil }
            var bodies: [[UInt8]] = []
            for row in rows {
                let (_, _, _, bodyVersion, checksum, body) = try link.decode(row, as: (Int64, Int64, Int64, Int64?, Int64?, PostgresBytes?).self)
                guard let bodyVersion, let checksum, let body else { break }
                let expected = base + Int64(bodies.count)
                guard bodyVersion == expected else {
                    throw JournalError(.corrupt, "\(key): the body of version \(expected) is missing (found \(bodyVersion))")
                }
                let bytes = body.bytes
                guard Checksum.of(bytes) == UInt64(bitPattern: checksum) else {
                    throw JournalError(.corrupt, "\(key): the body of version \(expected) does not match its checksum")
                }
                bodies.append(bytes)
            }
            guard !bodies.isEmpty, base + Int64(bodies.count) - 1 == version else {
                throw JournalError(.corrupt, "\(key): its bodies reach version \(base + Int64(bodies.count) - 1), not \(version)")
            }
            return JournalRecipe(base: Int(base), bodies: bodies)
        }
    }

    /// With `async` durability, a small transaction committed with `synchronous_commit = on`: its commit
    /// waits for the WAL to be flushed up to it, and so for every asynchronous commit before it, which
    /// keeps `journal.syncMillis` the bound it is with SQLite (PostgreSQL's own WAL writer would flush
    /// them too, within three `wal_writer_delay`s, but on its clock, not the operator's). With `sync`,
    /// every commit is already flushed: nothing to do.
    func makeDurable() throws(JournalError) {
        guard durability == .async else { return }
        try session.withConnection(failing: .writeFailed) { link throws(JournalError) in
            let answers = try link.pipeline([
                "BEGIN", "SET LOCAL synchronous_commit = on",
                "UPDATE journal_meta SET value = value WHERE name = 'format'", "COMMIT",
            ])
            guard answers.last?.command == "COMMIT" else {
                throw JournalError(.writeFailed, "PostgreSQL at \(link.location) did not commit the flush of the journal")
            }
        }
    }

    /// `pg_total_relation_size` of `layouts` and `bodies` (with their indexes and TOAST, where large
    /// bodies go), read at most once a second, and never by connecting: after a failure, the last size.
    func byteCount() -> Int {
        if let bytesReadAt, DispatchTime.now().uptimeNanoseconds - bytesReadAt.uptimeNanoseconds < Self.bytesCacheNanoseconds {
            return cachedBytes
        }
        guard session.isConnected else { return cachedBytes }
        bytesReadAt = .now()
        let size = try? session.withConnection(failing: .unreadable) { link throws(JournalError) -> Int64 in
            let rows = try link.query("SELECT (pg_total_relation_size('layouts') + pg_total_relation_size('bodies'))::bigint")
            guard let row = rows.first else { return 0 }
            return try link.decode(row, as: (Int64).self)
        }
        if let size { cachedBytes = Int(size) }
        return cachedBytes
    }

    /// A write in a transaction, not just a round trip: a server that answers but cannot write (a full
    /// disk, a read-only replica after a failover) must not look writable again.
    func probe() throws(JournalError) {
        try session.withConnection(failing: .writeFailed) { link throws(JournalError) in
            let answers = try link.pipeline(["BEGIN", "UPDATE journal_meta SET value = value WHERE name = 'format'", "COMMIT"])
            guard answers.count == 3, answers[1].affectedRows == 1, answers[2].command == "COMMIT" else {
                throw JournalError(.writeFailed, "PostgreSQL at \(link.location): the journal's journal_meta has no format row to probe")
            }
        }
    }
}

private extension JournalWrite {
    var isChange: Bool {
        if case .change = self { return true }
        return false
    }
}
