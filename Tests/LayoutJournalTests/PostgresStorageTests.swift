import LayoutTestKit
import Testing
@testable import LayoutJournal

/// The PostgreSQL storage under the journal, against a real server each test starts for itself: what its
/// batches leave beside SQLite's, its own flush, probe and size, and its prepared statements (a group
/// commit's are prepared once a connection; statements or the commit check that the server lost, as a
/// pooler in transaction mode loses them, are sent again with their SQL).
@Suite(.timeLimit(.minutes(3)))
struct PostgresStorageTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// PostgreSQL writes a run of changes in one statement (in several when their bodies pass
    /// `statementBytes`); SQLite, a statement a write. Both must end holding the same thing after the
    /// same batches, whatever a batch mixes.
    @Test(arguments: [64 << 20, 5])
    func batchesMixingChangesRebuildsAndDropsLeaveWhatSQLiteLeaves(statementBytes: Int) throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        let folder = TemporaryFolder("layoutd-batches")
        let postgres = try PostgresJournalStorage(url: server.url, role: .daemon, durability: .sync, statementBytes: statementBytes)
        let sqlite = try SQLiteJournalStorage(path: folder.path + "/journal.db", role: .daemon, durability: .sync)
        let (a, b, c) = (JournalKey(namespace: "n", name: "a"), JournalKey(namespace: "n", name: "b"), JournalKey(namespace: "m", name: "a"))
        let batches: [[JournalWrite]] = [
            [.rebuild(a, version: 1, epoch: 2, items: 1, body: bytes("a1")), .rebuild(b, version: 1, epoch: 0, items: 1, body: bytes("b1")),
             .change(a, version: 2, items: 2, body: bytes("a2")), .rebuild(c, version: 5, epoch: 1, items: 9, body: bytes("c5"))],
            // Two keys changed twice in one run, a rebuild between runs, a key dropped after its change.
            [.change(a, version: 3, items: 3, body: bytes("a3 longer")), .change(b, version: 2, items: 2, body: bytes("b2")),
             .change(a, version: 4, items: 4, body: bytes("a4")), .change(c, version: 6, items: 8, body: bytes("c6")),
             .change(b, version: 3, items: 5, body: bytes("b3")),
             .rebuild(b, version: 4, epoch: 0, items: 5, body: bytes("b4 snapshot")),
             .change(b, version: 5, items: 6, body: bytes("b5")), .change(a, version: 5, items: 7, body: bytes("a5")),
             .drop(c, version: 7), .epoch(a, epoch: 3)],
            [.change(a, version: 6, items: 6, body: bytes("a6"))],
            // Changes alone, over several statements when they are small.
            [.change(a, version: 7, items: 7, body: bytes("a7")), .change(b, version: 6, items: 7, body: bytes("b6")),
             .change(a, version: 8, items: 8, body: bytes("a8")), .change(b, version: 7, items: 8, body: bytes("b7"))],
        ]
        for (index, batch) in batches.enumerated() {
            try postgres.write(batch, atMillis: Int64(1_000 + index))
            try sqlite.write(batch, atMillis: Int64(1_000 + index))
        }
        let keys = try postgres.loadKeys().sorted { $0.key < $1.key }
        #expect(keys == (try sqlite.loadKeys().sorted { $0.key < $1.key }))
        #expect(keys.map(\.version) == [7, 8, 7] && keys.map(\.changes) == [0, 7, 3])
        for key in [a, b, c] {
            let (fromPostgres, fromSQLite) = (try postgres.recipe(for: key), try sqlite.recipe(for: key))
            #expect(fromPostgres?.base == fromSQLite?.base && fromPostgres?.bodies == fromSQLite?.bodies, "\(key)")
        }
        #expect(try postgres.recipe(for: a)?.bodies.map { String(decoding: $0, as: UTF8.self) } == ["a1", "a2", "a3 longer", "a4", "a5", "a6", "a7", "a8"])
    }

    @Test func theStorageFlushesProbesAndMeasuresItself() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        let storage = try PostgresJournalStorage(url: server.url, role: .daemon, durability: .async)
        let key = JournalKey(namespace: "ns", name: "big")
        let body = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try storage.write([.rebuild(key, version: 1, epoch: UInt64.max, items: 5, body: body)], atMillis: 1_000)
        try storage.makeDurable()
        try storage.probe()
        #expect(storage.byteCount() > 8192)
        let state = try #require(try storage.loadKeys().first)
        #expect(state.epoch == UInt64.max && state.changedAtMillis == 1_000 && state.rebuildBytes == body.count)
        #expect(try storage.recipe(for: key)?.bodies == [body])
        #expect(try storage.recipe(for: JournalKey(namespace: "ns", name: "never")) == nil)
        // A statement that fails rolls the whole group commit back.
        #expect(throws: JournalError.self) {
            try storage.write([
                .rebuild(JournalKey(namespace: "ns", name: "other"), version: 1, epoch: 0, items: 1, body: [1]),
                .change(key, version: 1, items: 1, body: [2]),
            ], atMillis: 2_000)
        }
        #expect(try storage.loadKeys().count == 1)
        try storage.probe()
    }

    /// Statements prepared on the storage's own connection, as its session sees them.
    private func preparedStatements(of storage: PostgresJournalStorage) throws -> Int64 {
        try storage.session.withConnection(failing: .unreadable) { link throws(JournalError) -> Int64 in
            guard let row = try link.query("SELECT count(*) FROM pg_prepared_statements").first else { return -1 }
            return try link.decode(row, as: (Int64).self)
        }
    }

    private func changes(of key: JournalKey, versions: ClosedRange<Int>) -> [JournalWrite] {
        versions.map { .change(key, version: $0, items: 1, body: bytes("change \($0)")) }
    }

    /// A `sync` storage on `server` whose key has been prepared and changed twice (versions 1 to 3), so
    /// that its connection has prepared the group commit's statements.
    private func storagePreparingStatements(on server: PostgresServer) throws -> (PostgresJournalStorage, JournalKey) {
        let storage = try PostgresJournalStorage(url: server.url, role: .daemon, durability: .sync)
        let key = JournalKey(namespace: "ns", name: "feed")
        try storage.write([.rebuild(key, version: 1, epoch: 0, items: 1, body: bytes("prepare"))], atMillis: 1_000)
        try storage.write(changes(of: key, versions: 2...3), atMillis: 2_000)
        return (storage, key)
    }

    /// Deallocates, on the storage's own connection, the commit check's prepared statement (what a
    /// pooler in transaction mode does to it), then runs `after` there; how many were deallocated.
    @discardableResult
    private func loseTheCheck(of storage: PostgresJournalStorage, then after: String? = nil) throws -> Int {
        try storage.session.withConnection(failing: .writeFailed) { link throws(JournalError) -> Int in
            let rows = try link.query("SELECT name FROM pg_prepared_statements WHERE statement LIKE '%txid_current_if_assigned%'")
            for row in rows {
                let name = try link.decode(row, as: (String).self)
                _ = try link.query("DEALLOCATE \(unescaped: "\"" + name + "\"")")
            }
            if let after { _ = try link.query("\(unescaped: after)") }
            return rows.count
        }
    }

    @Test func aRunOfChangesIsPreparedOnceAConnectionAndAgainAfterAReconnect() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        let (storage, key) = try storagePreparingStatements(on: server)
        // The run of changes and the check behind it, prepared once and then run by name.
        #expect(try preparedStatements(of: storage) == 2)
        try storage.write(changes(of: key, versions: 4...6), atMillis: 3_000)
        #expect(try preparedStatements(of: storage) == 2)

        // The server ends the storage's connection: the next connection prepares them again.
        try execute(server.url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()")
        do {
            try storage.write(changes(of: key, versions: 7...7), atMillis: 4_000)
        } catch {
            // The write that finds the connection gone fails; the next connects again.
            try storage.write(changes(of: key, versions: 7...7), atMillis: 4_000)
        }
        try storage.write(changes(of: key, versions: 8...9), atMillis: 5_000)
        #expect(try preparedStatements(of: storage) == 2)
        #expect(storage.session.preparesStatements)
        #expect(try storage.recipe(for: key)?.bodies == [bytes("prepare")] + (2...9).map { bytes("change \($0)") })
        #expect(try storage.loadKeys().first?.version == 9)
    }

    @Test func statementsTheServerLostAreSentWithTheirSQLFromThenOn() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        let (storage, key) = try storagePreparingStatements(on: server)
        #expect(try preparedStatements(of: storage) == 2)

        // What a pooler in transaction mode does to a client's prepared statements: they are gone
        // from the server connection its next transaction gets.
        try storage.session.withConnection(failing: .writeFailed) { link throws(JournalError) in _ = try link.query("DEALLOCATE ALL") }
        try storage.write(changes(of: key, versions: 4...5), atMillis: 3_000)
        #expect(!storage.session.preparesStatements)
        try storage.write(changes(of: key, versions: 6...6), atMillis: 4_000)
        #expect(try preparedStatements(of: storage) == 0)
        #expect(try storage.recipe(for: key)?.bodies == [bytes("prepare")] + (2...6).map { bytes("change \($0)") })
        #expect(try storage.loadKeys().first?.version == 6)
    }

    @Test func aCheckTheServerLostIsSentAgainAloneAfterTheChangesItFollows() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        let (storage, key) = try storagePreparingStatements(on: server)

        // The check behind the changes is lost, not the changes: they commit where they run, and only
        // the check may go again (sent again, they would break the bodies' unique key).
        #expect(try loseTheCheck(of: storage) == 1)
        try storage.write(changes(of: key, versions: 4...5), atMillis: 3_000)
        #expect(!storage.session.preparesStatements)
        #expect(try storage.recipe(for: key)?.bodies == [bytes("prepare")] + (2...5).map { bytes("change \($0)") })
        #expect(try storage.loadKeys().first?.version == 5)
    }

    @Test func aFailedCommitInsideAnOpenTransactionLeavesTheSessionClean() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        let (storage, key) = try storagePreparingStatements(on: server)

        // The session inside a transaction block by mistake, and the check lost: the check sent again
        // fails in the block its loss aborted, and nothing commits.
        #expect(try loseTheCheck(of: storage, then: "BEGIN") == 1)
        #expect(throws: JournalError.self) { try storage.write(self.changes(of: key, versions: 4...4), atMillis: 3_000) }
        // The block is gone with the failure: the next commit is made.
        try storage.write(changes(of: key, versions: 4...5), atMillis: 4_000)
        #expect(try storage.recipe(for: key)?.bodies == [bytes("prepare")] + (2...5).map { bytes("change \($0)") })
    }
}
