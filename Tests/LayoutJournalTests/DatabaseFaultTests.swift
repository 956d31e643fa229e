import Foundation
import LayoutTestKit
import Synchronization
import Testing
@testable import LayoutJournal

/// The database behind the append-only log failing as a disk or a connection does: a sync that fails,
/// a commit whose answer is lost. Nothing acknowledged is lost, and writing goes on by itself.
@Suite(.timeLimit(.minutes(3)))
struct DatabaseFaultTests {
    private let feed = JournalKey(namespace: "", name: "feed")

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// SQLite behind the log, failing on demand.
    private final class FaultyDatabase: LoggedJournalStorage, @unchecked Sendable {
        // @unchecked Sendable: `inner` is used by the journal thread alone; the test reads the counters.
        private var inner: (any LoggedJournalStorage)?
        /// While set, `makeDurable` fails as an `fsync` that met a disk error does.
        let failsSyncs = Atomic(false)
        /// The next `write(logged:)` commits, then fails as a connection lost before the answer.
        let losesNextAnswer = Atomic(false)
        let failedSyncs = Atomic(0)
        let syncsAfterFailure = Atomic(0)
        let lostAnswers = Atomic(0)
        /// How many of the next probes fail, as a disk still full would.
        let failingProbes = Atomic(0)

        func wrapping(_ storage: any LoggedJournalStorage) -> any LoggedJournalStorage {
            inner = storage
            return self
        }

        private var storage: any LoggedJournalStorage {
            get throws(JournalError) {
                guard let inner else { throw JournalError(.unreadable, "not wrapped yet") }
                return inner
            }
        }

        func write(logged batch: [LoggedWrite]) throws(JournalError) {
            try storage.write(logged: batch)
            if losesNextAnswer.exchange(false, ordering: .relaxed) {
                lostAnswers.add(1, ordering: .relaxed)
                throw JournalError(.writeFailed, "the connection was lost before the commit's answer")
            }
        }

        func makeDurable() throws(JournalError) {
            if failsSyncs.load(ordering: .relaxed) {
                failedSyncs.add(1, ordering: .relaxed)
                throw JournalError(.writeFailed, "fsync: input/output error")
            }
            try storage.makeDurable()
            if failedSyncs.load(ordering: .relaxed) > 0 { syncsAfterFailure.add(1, ordering: .relaxed) }
        }

        func logPosition() throws(JournalError) -> UInt64 { try storage.logPosition() }
        func loadKeys() throws(JournalError) -> [JournalKeyState] { try storage.loadKeys() }
        func keyState(for key: JournalKey) throws(JournalError) -> JournalKeyState? { try storage.keyState(for: key) }
        func write(_ batch: [JournalWrite], atMillis: Int64) throws(JournalError) { try storage.write(batch, atMillis: atMillis) }
        func recipe(for key: JournalKey) throws(JournalError) -> JournalRecipe? { try storage.recipe(for: key) }
        func byteCount() -> Int { inner?.byteCount() ?? 0 }
        func probe() throws(JournalError) {
            if failingProbes.load(ordering: .relaxed) > 0 {
                failingProbes.subtract(1, ordering: .relaxed)
                throw JournalError(.writeFailed, "no room yet")
            }
            try storage.probe()
        }
    }

    private func open(_ path: String, through database: FaultyDatabase? = nil) throws -> Journal {
        let journal = try Journal.open(
            .sqlite(path: path), role: .daemon, durability: .async, syncMillis: 50, compaction: Journal.Compaction(),
            fencingEpoch: nil, appendOnlyLog: true, postgresLogPath: nil, logSync: AppendOnlyLog.fdatasyncFile,
            wrapLogged: { database?.wrapping($0) ?? $0 }
        )
        guard let journal else { throw JournalError(.invalidURL, "no journal") }
        return journal
    }

    /// After a failed `fsync` the kernel may have dropped SQLite's pages, and the next sync succeeds
    /// without them: from then on the log is kept. Here SQLite's file comes back as it was at its last
    /// good sync (what such a loss leaves), with the log the crash left: the next start has everything.
    @Test func aFailedSyncOfTheDatabaseKeepsTheLogForTheNextStart() throws {
        let folder = TemporaryFolder("layoutd-dbfault")
        let path = folder.file("live/j.db")
        let crashed = folder.file("crashed/j.db")
        try FileManager.default.createDirectory(atPath: folder.file("crashed"), withIntermediateDirectories: true)
        let database = FaultyDatabase()
        let journal = try open(path, through: database)
        defer { journal.close() }
        try write(.rebuild(feed, version: 1, epoch: 0, items: 2, body: bytes("prepare")), to: journal).get()
        try write(.change(feed, version: 2, items: 3, body: bytes("update one")), to: journal).get()
        // Synced into SQLite once its segment is gone.
        #expect(try eventually { try segment(holding: "update one", of: path) == nil })
        // SQLite as its disk holds it after that sync.
        try SQLiteConnection(path: path).execute("VACUUM INTO '\(crashed)'")
        database.failsSyncs.store(true, ordering: .relaxed)
        try write(.change(feed, version: 3, items: 4, body: bytes("update two")), to: journal).get()
        #expect(eventually { database.failedSyncs.load(ordering: .relaxed) > 0 })
        database.failsSyncs.store(false, ordering: .relaxed)
        // Syncs that work again, each of which would have let the log go (the second, once the first
        // has had its chance to).
        try write(.change(feed, version: 4, items: 5, body: bytes("update three")), to: journal).get()
        #expect(eventually { database.syncsAfterFailure.load(ordering: .relaxed) >= 1 })
        try write(.change(feed, version: 5, items: 6, body: bytes("update four")), to: journal).get()
        #expect(eventually { database.syncsAfterFailure.load(ordering: .relaxed) >= 2 })
        #expect(try segment(holding: "update two", of: path) != nil && segment(holding: "update three", of: path) != nil)
        for segment in try logSegments(of: path) {
            try FileManager.default.copyItem(atPath: segment, toPath: folder.file("crashed/\((segment as NSString).lastPathComponent)"))
        }
        let reopened = try open(crashed)
        defer { reopened.close() }
        #expect(reopened.keysAtOpen.first?.version == 5)
        #expect(try reopened.recipe(for: feed)?.bodies == ["prepare", "update one", "update two", "update three", "update four"].map(bytes))
    }

    /// A write that failed (here: as a log that cannot take an append) is probed for again soon,
    /// though the journal thread had gone to sleep for a `syncMillis` of a minute after its last
    /// commit, and again and again while the probes fail (behind the log, the first two fail): writing
    /// resumes by itself as soon as it can.
    @Test(arguments: [true, false])
    func writingResumesSoonAfterAFailureHoweverLongSyncMillisIs(appendOnlyLog: Bool) throws {
        let folder = TemporaryFolder("layoutd-dbfault")
        let database = FaultyDatabase()
        let journal = try #require(try Journal.open(
            .sqlite(path: folder.file("j.db")), role: .daemon, durability: .async, syncMillis: 60_000, compaction: Journal.Compaction(),
            fencingEpoch: nil, appendOnlyLog: appendOnlyLog, postgresLogPath: nil, logSync: AppendOnlyLog.fdatasyncFile,
            wrapLogged: { database.wrapping($0) }
        ))
        defer { journal.close() }
        try write(.rebuild(feed, version: 1, epoch: 0, items: 2, body: bytes("prepare")), to: journal).get()
        // Committed: the thread now waits up to `syncMillis` to sync it.
        #expect(eventually { journal.statistics.commits >= 1 })
        if appendOnlyLog { database.failingProbes.store(2, ordering: .relaxed) }
        journal.noteFailure(JournalError(.writeFailed, "a stand-in for an append the disk refused"), keys: [feed])
        #expect(journal.statistics.errors == 1)
        #expect(eventually { journal.isWritable }, "probed again only after a syncMillis")
        #expect(database.failingProbes.load(ordering: .relaxed) == 0)
    }

    /// A commit made whose answer was lost: the next try reads the database's position first, and
    /// writes only what it lacks (writing the same bodies again would fail on every try).
    @Test func aCommitWhoseAnswerWasLostIsNotWrittenTwice() throws {
        let folder = TemporaryFolder("layoutd-dbfault")
        let path = folder.file("j.db")
        let database = FaultyDatabase()
        do {
            let journal = try open(path, through: database)
            defer { journal.close() }
            try write(.rebuild(feed, version: 1, epoch: 0, items: 2, body: bytes("prepare")), to: journal).get()
            // In SQLite before the commit whose answer is lost (a rebuild in that batch would make
            // writing it twice harmless).
            #expect(try journal.recipe(for: feed)?.bodies == [bytes("prepare")])
            database.losesNextAnswer.store(true, ordering: .relaxed)
            try write(.change(feed, version: 2, items: 3, body: bytes("update one")), to: journal).get()
            #expect(eventually { database.lostAnswers.load(ordering: .relaxed) == 1 && journal.statistics.errors >= 1 })
            try write(.change(feed, version: 3, items: 4, body: bytes("update two")), to: journal).get()
            // Writing works again, and SQLite takes the next change.
            #expect(eventually { journal.isWritable })
            #expect(try journal.recipe(for: feed)?.bodies == ["prepare", "update one", "update two"].map(bytes))
            #expect(journal.statistics.isWritable)
        }
        let storage = try SQLiteJournalStorage(path: path, role: .daemon, durability: nil)
        let state = try #require(try storage.loadKeys().first)
        #expect(state.version == 3 && state.changes == 2)
    }
}
