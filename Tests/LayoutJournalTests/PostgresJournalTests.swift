import Dispatch
import Foundation
import LayoutTestKit
import Synchronization
import Testing
@testable import LayoutJournal

#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL journal against a real server that each test starts for itself (`PostgresServer`).
@Suite(.timeLimit(.minutes(3)))
struct PostgresJournalTests {
    private let feed = JournalKey(namespace: "", name: "feed")

    private func open(_ url: String, durability: JournalDurability = .sync, role: JournalRole = .daemon) throws -> Journal {
        guard let journal = try Journal.open(.postgres(url: url), role: role, durability: durability, syncMillis: 50) else {
            throw JournalError(.invalidURL, "no journal")
        }
        return journal
    }

    /// Runs statements through a connection of the test's own, as an operator's psql would.
    private func execute(_ url: String, _ statements: String...) throws {
        let session = try PostgresSession(url: PostgresURL(url))
        try session.withConnection(failing: .writeFailed) { link throws(JournalError) in
            for statement in statements { try link.query("\(unescaped: statement)") }
        }
    }

    private func count(_ url: String, _ sql: String) throws -> Int64 {
        let session = try PostgresSession(url: PostgresURL(url))
        return try session.withConnection(failing: .unreadable) { link throws(JournalError) -> Int64 in
            let rows = try link.query("\(unescaped: sql)")
            guard let row = rows.first else { return -1 }
            return try link.decode(row, as: (Int64).self)
        }
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func aRebuildItsChangesAndItsEpochComeBackAfterReopening() throws {
        let server = try PostgresServer()
        // Kept to the end of the test: ARC may otherwise stop the server after the last use of its URL.
        defer { withExtendedLifetime(server) {} }
        do {
            let journal = try open(server.url)
            try write(.rebuild(feed, version: 3, epoch: 7, items: 10, body: bytes("prepare")), to: journal).get()
            try write(.change(feed, version: 4, items: 11, body: bytes("update 1")), to: journal).get()
            try write(.change(feed, version: 5, items: 12, body: bytes("update 2")), to: journal).get()
            // A cluster key reaches a later epoch; a lower one, or one for a key not held, changes nothing.
            try write(.epoch(feed, epoch: 9), to: journal).get()
            try write(.epoch(feed, epoch: 4), to: journal).get()
            try write(.epoch(JournalKey(namespace: "", name: "absent"), epoch: 12), to: journal).get()
            journal.close()
        }
        let reopened = try open(server.url)
        defer { reopened.close() }
        let state = try #require(reopened.keysAtOpen.first)
        #expect(reopened.keysAtOpen.count == 1)
        #expect(state.key == feed && state.version == 5 && state.epoch == 9 && state.items == 12 && state.isKept)
        #expect(state.base == 3 && state.changes == 2 && state.rebuildBytes == 7 && state.changeBytes == 16)
        let recipe = try #require(try reopened.recipe(for: feed))
        #expect(recipe.base == 3 && recipe.version == 5)
        #expect(recipe.bodies == [bytes("prepare"), bytes("update 1"), bytes("update 2")])
        #expect(reopened.statistics.bytes > 0)
    }

    @Test func aLogInFrontOfPostgresBringsADaemonsAsyncChangesInAfterACrash() throws {
        let folder = TemporaryFolder("layoutd-pglog")
        let (live, crashed) = (folder.file("live/journal"), folder.file("crashed/journal"))
        try FileManager.default.createDirectory(atPath: folder.file("crashed"), withIntermediateDirectories: true)
        let first = try PostgresServer()
        defer { withExtendedLifetime(first) {} }
        do {
            guard let journal = try Journal.open(.postgres(url: first.url), role: .daemon, durability: .async, syncMillis: 60_000, appendOnlyLog: true, postgresLogPath: live) else {
                throw JournalError(.invalidURL, "no journal")
            }
            // Each answered once it is in the log.
            try write(.rebuild(feed, version: 1, epoch: 0, items: 2, body: bytes("prepare")), to: journal).get()
            try write(.change(feed, version: 2, items: 3, body: bytes("update one")), to: journal).get()
            try write(.change(feed, version: 3, items: 4, body: bytes("update two")), to: journal).get()
            // The log as a crash would leave it.
            for file in try FileManager.default.contentsOfDirectory(atPath: folder.file("live")) where file.hasPrefix("journal-log.") {
                try FileManager.default.copyItem(atPath: folder.file("live/\(file)"), toPath: folder.file("crashed/\(file)"))
            }
            journal.close()
        }
        #expect(try count(first.url, "SELECT count(*)::bigint FROM bodies") == 3, "a clean close leaves the database everything")
        // Another database, empty: the log alone brings the changes in, also to a daemon restarted with
        // `sync` (which keeps no log, but replays the one it finds).
        let second = try PostgresServer()
        defer { withExtendedLifetime(second) {} }
        do {
            guard let reopened = try Journal.open(.postgres(url: second.url), role: .daemon, durability: .sync, syncMillis: 50, appendOnlyLog: true, postgresLogPath: crashed) else {
                throw JournalError(.invalidURL, "no journal")
            }
            defer { reopened.close() }
            #expect(reopened.keysAtOpen.first?.version == 3)
            #expect(try reopened.recipe(for: feed)?.bodies == [bytes("prepare"), bytes("update one"), bytes("update two")])
            #expect(reopened.notesAtOpen.contains { $0.contains("3 changes replayed") }, "\(reopened.notesAtOpen)")
            #expect(try count(second.url, "SELECT value::bigint FROM journal_meta WHERE name = 'log_lsn'") == 3)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("crashed")).isEmpty, "the log, replayed, is gone")
        }
        // The log's position goes on in the database: a later run's writes follow the replayed ones.
        try appendThroughLog(.change(feed, version: 4, items: 5, body: bytes("update three")), at: crashed, of: second.url)
        #expect(try count(second.url, "SELECT value::bigint FROM journal_meta WHERE name = 'log_lsn'") == 4)
        guard let again = try Journal.open(.postgres(url: second.url), role: .daemon, durability: .async, syncMillis: 50, appendOnlyLog: true, postgresLogPath: crashed) else {
            throw JournalError(.invalidURL, "no journal")
        }
        defer { again.close() }
        #expect(again.keysAtOpen.first?.version == 4)
        #expect(try again.recipe(for: feed)?.bodies.count == 4)
    }

    /// Appends `change` through a journal with the log at `path` on `url`, and closes it.
    private func appendThroughLog(_ change: JournalWrite, at path: String, of url: String) throws {
        guard let journal = try Journal.open(.postgres(url: url), role: .daemon, durability: .async, syncMillis: 50, appendOnlyLog: true, postgresLogPath: path) else {
            throw JournalError(.invalidURL, "no journal")
        }
        try write(change, to: journal).get()
        journal.close()
    }

    @Test func aRebuildForgetsEarlierBodiesAndADropKeepsTheVersionCount() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        let journal = try open(server.url)
        try write(.rebuild(feed, version: 1, epoch: 0, items: 1, body: bytes("p1")), to: journal).get()
        try write(.change(feed, version: 2, items: 1, body: bytes("c2")), to: journal).get()
        try write(.rebuild(feed, version: 3, epoch: 0, items: 1, body: bytes("snapshot")), to: journal).get()
        #expect(try journal.recipe(for: feed)?.bodies == [bytes("snapshot")])
        #expect(try count(server.url, "SELECT count(*) FROM bodies") == 1)
        try write(.drop(feed, version: 4), to: journal).get()
        #expect(try journal.recipe(for: feed) == nil)
        #expect(journal.entry(for: feed)?.version == 4 && journal.entry(for: feed)?.isKept == false)
        #expect(journal.keptKeys(in: nil).isEmpty)
        journal.close()
        // The tombstone row stays, with its version, and no body.
        let reopened = try open(server.url)
        defer { reopened.close() }
        let state = try #require(reopened.keysAtOpen.first)
        #expect(state.key == feed && state.version == 4 && !state.isKept)
        #expect(try count(server.url, "SELECT count(*) FROM bodies") == 0)
    }

    @Test func keysComeMostRecentlyChangedFirst() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        do {
            let journal = try open(server.url)
            for name in ["a", "b", "c"] {
                try write(.rebuild(JournalKey(namespace: "", name: name), version: 1, epoch: 0, items: 1, body: bytes(name)), to: journal).get()
                // Distinct change times, in ms.
                Thread.sleep(forTimeInterval: 0.005)
            }
            try write(.change(JournalKey(namespace: "", name: "a"), version: 2, items: 1, body: bytes("a2")), to: journal).get()
            journal.close()
        }
        let reopened = try open(server.url)
        defer { reopened.close() }
        #expect(reopened.keysAtOpen.map(\.key.name) == ["a", "c", "b"])
    }

    @Test func writesAppendedTogetherAllCompleteInAppendOrder() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        let journal = try open(server.url, durability: .async)
        let order = Mutex<[Int]>([])
        let done = DispatchGroup()
        for index in 0..<200 {
            done.enter()
            let key = JournalKey(namespace: "n", name: "k\(index % 7)")
            journal.append(.rebuild(key, version: index + 1, epoch: 0, items: index, body: bytes("body \(index)"))) { result in
                if case .success = result { order.withLock { $0.append(index) } }
                done.leave()
            }
        }
        done.wait()
        #expect(order.withLock { $0 } == Array(0..<200))
        let statistics = journal.statistics
        #expect(statistics.records == 200 && statistics.commits <= 200 && statistics.keys == 7 && statistics.isWritable)
        journal.close()
        #expect(journal.statistics.errors == 0, "makeDurable at close failed: \(journal.statistics.lastError ?? "")")
        let reopened = try open(server.url)
        defer { reopened.close() }
        #expect(try reopened.recipe(for: JournalKey(namespace: "n", name: "k3"))?.bodies == [bytes("body 199")])
    }

    @Test func aBodyWhoseBytesChangedOrWentMissingIsReportedCorrupt() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        do {
            let journal = try open(server.url)
            try write(.rebuild(feed, version: 1, epoch: 0, items: 1, body: bytes("prepare body")), to: journal).get()
            try write(.change(feed, version: 2, items: 1, body: bytes("change body")), to: journal).get()
            try write(.change(feed, version: 3, items: 1, body: bytes("change 3")), to: journal).get()
            journal.close()
        }
        // A flipped byte, through a connection of its own.
        try execute(server.url, "UPDATE bodies SET body = convert_to('change bodz', 'UTF8') WHERE version = 2")
        let reopened = try open(server.url)
        defer { reopened.close() }
        #expect { _ = try reopened.recipe(for: self.feed) } throws: {
            ($0 as? JournalError)?.code == .corrupt && "\($0)".contains("checksum") && "\($0)".contains("version 2")
        }
        try execute(server.url, "DELETE FROM bodies WHERE version = 2")
        #expect { _ = try reopened.recipe(for: self.feed) } throws: {
            ($0 as? JournalError)?.code == .corrupt && "\($0)".contains("version 2 is missing")
        }
        try execute(server.url, "DELETE FROM bodies WHERE version = 3")
        #expect { _ = try reopened.recipe(for: self.feed) } throws: {
            ($0 as? JournalError)?.code == .corrupt && "\($0)".contains("reach version 1, not 3")
        }
    }

    @Test func aJournalOfAnotherRoleOrFormatOrNotAJournalIsRefused() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        try open(server.url).close()
        #expect { _ = try self.open(server.url, role: .broker) } throws: {
            ($0 as? JournalError)?.code == .incompatible && "\($0)".contains("broker")
        }
        try execute(server.url, "UPDATE journal_meta SET value = '99' WHERE name = 'format'")
        #expect { _ = try self.open(server.url) } throws: {
            ($0 as? JournalError)?.code == .incompatible && "\($0)".contains("format 99")
        }
        try execute(server.url, "CREATE DATABASE foreign_tables", "CREATE DATABASE shared_tables")
        let foreign = server.url(database: "foreign_tables")
        try execute(foreign, "CREATE TABLE layouts(id INTEGER)")
        #expect { _ = try self.open(foreign) } throws: {
            ($0 as? JournalError)?.code == .incompatible && "\($0)".contains("not a layoutd journal")
        }
        // A database that holds other things is shared, not refused.
        let shared = server.url(database: "shared_tables")
        try execute(shared, "CREATE TABLE orders(id INTEGER)")
        let journal = try open(shared)
        try write(.rebuild(feed, version: 1, epoch: 0, items: 1, body: bytes("p")), to: journal).get()
        journal.close()
        #expect(try count(shared, "SELECT count(*) FROM orders") == 0)
    }

    @Test func journalsOpeningAtOnceMakeTheTablesOnce() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        let failures = Mutex<[String]>([])
        let journals = Mutex<[Journal]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                let journal = try open(server.url, role: .broker)
                journals.withLock { $0.append(journal) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        for journal in journals.withLock({ $0 }) { journal.close() }
        #expect(try count(server.url, "SELECT count(*) FROM journal_meta") == 2)
    }

    @Test func aServerStoppedMidStreamFailsWritesAndWritingResumesWhenItIsBack() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        let health = Mutex<[Bool]>([])
        guard let journal = try Journal.open(
            .postgres(url: server.url), role: .daemon, durability: .sync, syncMillis: 50,
            onHealthChange: { writable, _ in health.withLock { $0.append(writable) } }
        ) else { throw JournalError(.invalidURL, "no journal") }
        defer { journal.close() }
        try write(.rebuild(feed, version: 1, epoch: 0, items: 1, body: bytes("prepare")), to: journal).get()

        try server.halt()
        let started = DispatchTime.now()
        let failed = write(.change(feed, version: 2, items: 1, body: bytes("lost")), to: journal)
        #expect(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds < 10_000_000_000, "a stopped server is reported, not waited for")
        #expect(throws: JournalError.self) { try failed.get() }
        if case .failure(let error) = failed {
            #expect(error.code == .writeFailed && error.message.contains("127.0.0.1"), "\(error)")
        }
        #expect(!journal.isWritable)
        #expect(journal.unwritableReason?.contains("connect") == true, "\(journal.unwritableReason ?? "no reason")")
        #expect { _ = try journal.recipe(for: self.feed) } throws: { ($0 as? JournalError)?.code == .unreadable }

        try server.start()
        // The journal thread probes by itself; nothing here reopens it.
        let deadline = DispatchTime.now() + .seconds(30)
        while !journal.isWritable && DispatchTime.now() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(journal.isWritable)
        #expect(health.withLock { $0 } == [false, true])
        // The failed change broke the key's chain: what follows is a snapshot.
        #expect(journal.needsSnapshot(of: feed, changeVersion: 3, bytes: 1))
        try write(.rebuild(feed, version: 3, epoch: 0, items: 1, body: bytes("snapshot")), to: journal).get()
        try write(.change(feed, version: 4, items: 1, body: bytes("after")), to: journal).get()
        #expect(try journal.recipe(for: feed)?.bodies == [bytes("snapshot"), bytes("after")])
    }

    @Test func anUnreachableServerIsReportedNotWaitedFor() throws {
        // A port where nothing listens: refused at once.
        let closed = try LoopbackListener()
        let port = closed.port
        closed.close()
        var started = DispatchTime.now()
        #expect { _ = try self.open("postgres://layoutd@127.0.0.1:\(port)/layoutd") } throws: {
            ($0 as? JournalError)?.code == .unreadable && "\($0)".contains("cannot connect to PostgreSQL at 127.0.0.1:\(port)/layoutd")
        }
        #expect(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds < 5_000_000_000)

        // A port that takes the connection and never answers: given up after connect_timeout.
        let silent = try LoopbackListener()
        defer { silent.close() }
        started = DispatchTime.now()
        #expect { _ = try self.open("postgres://layoutd@127.0.0.1:\(silent.port)/layoutd?connect_timeout=1") } throws: {
            ($0 as? JournalError)?.code == .unreadable && "\($0)".contains("cannot connect")
        }
        #expect(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds < 10_000_000_000)
    }

    @Test func aQueryNotAnsweredInTimeClosesTheConnectionAndTheNextConnectsAgain() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        let session = try PostgresSession(url: PostgresURL(server.url + "?query_timeout=1"))
        let started = DispatchTime.now()
        #expect {
            try session.withConnection(failing: .unreadable) { link throws(JournalError) in try link.query("SELECT pg_sleep(20)") }
        } throws: {
            ($0 as? JournalError)?.code == .unreadable && "\($0)".contains("did not answer within 1 s")
        }
        #expect(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds < 10_000_000_000)
        #expect(!session.isConnected)
        let answer = try session.withConnection(failing: .unreadable) { link throws(JournalError) -> Int64 in
            let rows = try link.query("SELECT 41 + 1")
            guard let row = rows.first else { return 0 }
            return try link.decode(row, as: (Int64).self)
        }
        #expect(answer == 42)
    }

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

    @Test func urlsAreTakenApartAsLibpqDoes() throws {
        let plain = try PostgresURL("postgres://layoutd@127.0.0.1:5433/journal")
        #expect(plain.host == "127.0.0.1" && plain.port == 5433 && plain.user == "layoutd" && plain.database == "journal")
        #expect(plain.password == nil && plain.tlsMode == .prefer && plain.connectTimeoutSeconds == 10 && plain.queryTimeoutSeconds == 30)
        let full = try PostgresURL("postgresql://u%40x:p%2Fw@db.example:6000?sslmode=verify-full&connect_timeout=3&query_timeout=7")
        #expect(full.user == "u@x" && full.password == "p/w" && full.database == "u@x" && full.tlsMode == .verifyFull)
        #expect(full.connectTimeoutSeconds == 3 && full.queryTimeoutSeconds == 7 && full.location == "db.example:6000/u@x")
        let socket = try PostgresURL("postgres://layoutd@/layoutd?host=/run/postgresql")
        #expect(socket.unixSocketPath == "/run/postgresql/.s.PGSQL.5432")
        for bad in ["postgres://h/db?sslmode=sometimes", "postgres://h/db?connect_timeout=0", "postgres://h/db?colour=blue", "postgres://h/a/b", "postgres://h:99999/db"] {
            #expect(throws: JournalError.self, "\(bad)") { try JournalURL(parsing: bad) }
        }
        #expect(try JournalURL(parsing: "postgres://u:secret@db:5432/layoutd?sslmode=require").description == "postgres://u:***@db:5432/layoutd?sslmode=require")
    }
}

/// A TCP port on 127.0.0.1 that accepts connections into its backlog and never answers them.
private final class LoopbackListener {
    private var descriptor: Int32
    let port: Int

    init() throws {
        let opened = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(opened, $0, length) == 0 && getsockname(opened, $0, &length) == 0 }
        }
        guard opened >= 0, bound, listen(opened, 8) == 0 else {
            let reason = String(cString: strerror(errno))
            if opened >= 0 { Glibc.close(opened) }
            throw PostgresServer.Failure(description: "cannot listen on 127.0.0.1: \(reason)")
        }
        descriptor = opened
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
    }

    deinit { close() }
}
