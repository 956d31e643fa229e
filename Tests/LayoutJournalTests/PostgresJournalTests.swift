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
