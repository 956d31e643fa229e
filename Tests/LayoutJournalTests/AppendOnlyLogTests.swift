import Dispatch
import Foundation
import LayoutTestKit
import Synchronization
import Testing
@testable import LayoutJournal

/// The journal with its append-only log in front of SQLite: what a crash leaves in the log alone comes
/// back, a torn tail and a damaged body are found, and a restore waits for SQLite to have the key.
@Suite struct AppendOnlyLogTests {
    private let feed = JournalKey(namespace: "", name: "feed")

    private func open(_ path: String, durability: JournalDurability = .async) throws -> Journal {
        guard let journal = try Journal.open(.sqlite(path: path), role: .daemon, durability: durability, syncMillis: 50, appendOnlyLog: true) else {
            throw JournalError(.invalidURL, "no journal")
        }
        return journal
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// SQLite held by another connection, so the journal thread cannot commit: what is appended
    /// meanwhile is in the log alone.
    private func holdingTheDatabase(_ path: String, _ body: () throws -> Void) throws {
        let other = try SQLiteConnection(path: path)
        try other.execute("BEGIN EXCLUSIVE")
        defer { try? other.execute("ROLLBACK") }
        try body()
    }

    /// The journal's files as a crash would leave them: copied while it is open.
    private func crashImage(of path: String, to copy: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let copyFolder = (copy as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: copyFolder, withIntermediateDirectories: true)
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasPrefix(name) {
            try FileManager.default.copyItem(atPath: folder + "/" + file, toPath: copy + file.dropFirst(name.count))
        }
    }

    /// `crashed`'s log with the byte `change` picks in the bytes of `text` (the range it is found at)
    /// changed, as damage on the disk would.
    private func damaging(_ text: String, in crashed: String, _ change: (inout Data, Range<Data.Index>) -> Void) throws {
        let segment = try #require(try segment(holding: text, of: crashed))
        var data = try Data(contentsOf: URL(fileURLWithPath: segment))
        let at = try #require(data.range(of: Data(text.utf8)))
        change(&data, at)
        try data.write(to: URL(fileURLWithPath: segment))
    }

    /// A journal with a prepare and two changes of `feed` appended while SQLite could not take them,
    /// copied as a crash leaves it to `crashed`; the copy has them in its log alone.
    private func crashWithChangesInTheLogAlone(in folder: TemporaryFolder) throws -> String {
        let path = folder.file("live/j.db")
        let crashed = folder.file("crashed/j.db")
        let journal = try open(path)
        defer { journal.close() }
        try holdingTheDatabase(path) {
            // With `async`, each is answered as soon as it is in the log.
            #expect(try write(.rebuild(feed, version: 1, epoch: 0, items: 2, body: bytes("prepare")), to: journal).get() == ())
            try write(.change(feed, version: 2, items: 3, body: bytes("update one")), to: journal).get()
            try write(.change(feed, version: 3, items: 4, body: bytes("update two")), to: journal).get()
            try crashImage(of: path, to: crashed)
        }
        return crashed
    }

    @Test func changesInTheLogAloneComeBackAfterACrash() throws {
        let folder = TemporaryFolder("layoutd-log")
        let crashed = try crashWithChangesInTheLogAlone(in: folder)
        let reopened = try open(crashed)
        defer { reopened.close() }
        let state = try #require(reopened.keysAtOpen.first)
        #expect(state.version == 3 && state.items == 4 && state.changes == 2)
        #expect(try reopened.recipe(for: feed)?.bodies == [bytes("prepare"), bytes("update one"), bytes("update two")])
        #expect(reopened.notesAtOpen.contains { $0.contains("3 changes replayed") }, "\(reopened.notesAtOpen)")
        // Replayed into SQLite and the old segments gone: a new segment, and the next made ahead.
        #expect(try logSegments(of: crashed).count <= 2)
        #expect(try segment(holding: "update one", of: crashed) == nil)
    }

    @Test func aLogTornByACrashIsReadUpToItsLastWholeRecord() throws {
        let folder = TemporaryFolder("layoutd-log")
        let crashed = try crashWithChangesInTheLogAlone(in: folder)
        let segment = try #require(try segment(holding: "update two", of: crashed))
        var data = try Data(contentsOf: URL(fileURLWithPath: segment))
        // The last record cut short, as a file the crash left shorter than the write (with `async`
        // the first segment, where these records are, has nothing written ahead of the appends).
        #expect(data.suffix(10) == Data("update two".utf8))
        data.removeLast(4)
        try data.write(to: URL(fileURLWithPath: segment))
        let reopened = try open(crashed)
        defer { reopened.close() }
        #expect(reopened.keysAtOpen.first?.version == 2)
        #expect(try reopened.recipe(for: feed)?.bodies == [bytes("prepare"), bytes("update one")])
        #expect(reopened.notesAtOpen.contains { $0.contains("torn") }, "\(reopened.notesAtOpen)")
    }

    @Test func aBodyDamagedInTheLogIsReportedCorruptNotReplayedAsOtherBytes() throws {
        let folder = TemporaryFolder("layoutd-log")
        let crashed = try crashWithChangesInTheLogAlone(in: folder)
        try damaging("update one", in: crashed) { data, at in data[at.upperBound - 1] = UInt8(ascii: "x") }
        let reopened = try open(crashed)
        defer { reopened.close() }
        #expect(reopened.keysAtOpen.first?.version == 3)
        #expect { _ = try reopened.recipe(for: feed) } throws: { ($0 as? JournalError)?.code == .corrupt && "\($0)".contains("checksum") }
    }

    @Test func aDamagedLastRecordIsReportedCorruptNotTakenForATornWrite() throws {
        let folder = TemporaryFolder("layoutd-log")
        let crashed = try crashWithChangesInTheLogAlone(in: folder)
        try damaging("update two", in: crashed) { data, at in data[at.lowerBound] = UInt8(ascii: "U") }
        let reopened = try open(crashed)
        defer { reopened.close() }
        #expect(reopened.keysAtOpen.first?.version == 3)
        #expect(!reopened.notesAtOpen.contains { $0.contains("torn") }, "\(reopened.notesAtOpen)")
        #expect { _ = try reopened.recipe(for: feed) } throws: { ($0 as? JournalError)?.code == .corrupt }
    }

    /// A `sync` journal's prepare and a 20,006-byte change (its body starting "marker"), the change in
    /// the log alone (a segment filled with zeros ahead), copied as a crash leaves it: the copy, its
    /// segment's path and bytes, and where the change's body starts and its record ends in them.
    private func crashWithALargeChangeInTheLogAlone(in folder: TemporaryFolder) throws -> (crashed: String, segment: String, data: Data, body: Int, recordEnd: Int) {
        let path = folder.file("live/j.db")
        let crashed = folder.file("crashed/j.db")
        let large = Array(repeating: UInt8(ascii: "A"), count: 20_000)
        do {
            let journal = try open(path, durability: .sync)
            defer { journal.close() }
            try holdingTheDatabase(path) {
                try write(.rebuild(feed, version: 1, epoch: 0, items: 2, body: bytes("prepare")), to: journal).get()
                try write(.change(feed, version: 2, items: 3, body: bytes("marker") + large), to: journal).get()
                try crashImage(of: path, to: crashed)
            }
        }
        let segment = try #require(try segment(holding: "marker", of: crashed))
        let data = try Data(contentsOf: URL(fileURLWithPath: segment))
        let body = try #require(data.range(of: Data("marker".utf8))).lowerBound
        return (crashed, segment, data, body, body + 6 + large.count)
    }

    @Test func aWriteTornInASegmentFilledWithZerosAheadIsLeftOut() throws {
        let folder = TemporaryFolder("layoutd-log")
        let (crashed, segment, image, body, recordEnd) = try crashWithALargeChangeInTheLogAlone(in: folder)
        var data = image
        #expect(data[recordEnd..<min(data.count, recordEnd + 4096)].allSatisfy { $0 == 0 }, "zeros written ahead follow the record")
        // The pages from the one after the body's start on never reached the disk.
        let firstLostPage = (body / 4096 + 1) * 4096
        data.replaceSubrange(firstLostPage..<recordEnd, with: Data(count: recordEnd - firstLostPage))
        try data.write(to: URL(fileURLWithPath: segment))
        let reopened = try open(crashed)
        defer { reopened.close() }
        #expect(reopened.keysAtOpen.first?.version == 1)
        #expect(try reopened.recipe(for: feed)?.bodies == [bytes("prepare")])
        #expect(reopened.notesAtOpen.contains { $0.contains("torn") }, "\(reopened.notesAtOpen)")
    }

    @Test func zerosThatDoNotStartOnAPageAreDamageNotATornWrite() throws {
        let folder = TemporaryFolder("layoutd-log")
        let (crashed, segment, image, _, recordEnd) = try crashWithALargeChangeInTheLogAlone(in: folder)
        var data = image
        // Zeros from the middle of the record's last page to its end: no whole page the kernel left
        // unwritten, so no torn write.
        let lastPageStart = (recordEnd - 1) / 4096 * 4096
        try #require(recordEnd - lastPageStart > 10)
        data.replaceSubrange(lastPageStart + 10..<recordEnd, with: Data(count: recordEnd - lastPageStart - 10))
        try data.write(to: URL(fileURLWithPath: segment))
        let reopened = try open(crashed)
        defer { reopened.close() }
        #expect(reopened.keysAtOpen.first?.version == 2)
        #expect(!reopened.notesAtOpen.contains { $0.contains("torn") }, "\(reopened.notesAtOpen)")
        #expect { _ = try reopened.recipe(for: feed) } throws: { ($0 as? JournalError)?.code == .corrupt }
    }

    @Test func aSegmentWhoseHeaderNeverReachedTheDiskHoldsNothing() throws {
        let folder = TemporaryFolder("layoutd-log")
        let crashed = try crashWithChangesInTheLogAlone(in: folder)
        try Data(count: 4096).write(to: URL(fileURLWithPath: crashed + "-log.99"))
        let reopened = try open(crashed)
        defer { reopened.close() }
        #expect(reopened.keysAtOpen.first?.version == 3)
    }

    @Test func aLogOfAnotherRoleIsRefused() throws {
        let folder = TemporaryFolder("layoutd-log")
        let crashed = try crashWithChangesInTheLogAlone(in: folder)
        #expect { _ = try Journal.open(.sqlite(path: crashed), role: .broker, durability: .async, syncMillis: 50, appendOnlyLog: true) } throws: {
            ($0 as? JournalError)?.code == .incompatible
        }
    }

    @Test func aRestoreWaitsForTheDatabaseToHaveTheKeysLastChange() throws {
        let folder = TemporaryFolder("layoutd-log")
        let path = folder.file("j.db")
        let journal = try open(path)
        defer { journal.close() }
        try write(.rebuild(feed, version: 1, epoch: 0, items: 2, body: bytes("prepare")), to: journal).get()
        let read = Mutex<JournalRecipe?>(nil)
        let done = DispatchSemaphore(value: 0)
        try holdingTheDatabase(path) {
            try write(.change(feed, version: 2, items: 3, body: bytes("update one")), to: journal).get()
            Thread { () -> Void in
                let recipe = try? journal.recipe(for: feed)
                read.withLock { $0 = recipe }
                done.signal()
            }.start()
            // Held: the read cannot have what SQLite does not.
            #expect(done.wait(timeout: .now() + .milliseconds(100)) == .timedOut)
        }
        #expect(done.wait(timeout: .now() + .seconds(30)) == .success)
        #expect(read.withLock { $0?.bodies } == [bytes("prepare"), bytes("update one")])
    }

    @Test func aBodyJournaledFromItsPartsIsTheJoinedRecordInTheLogAndInTheDatabase() throws {
        let folder = TemporaryFolder("layoutd-log")
        let path = folder.file("live/j.db")
        let parts = Parts([bytes(#"{"op":"prepare"}"#), Array(repeating: 7, count: 70_001), bytes("second frame")])
        let expected = parts.arrays[0].withUnsafeBytes { JournalBody.joining($0, frames: Array(parts.arrays.dropFirst())) }
        let journal = try open(path)
        defer { journal.close() }
        try holdingTheDatabase(path) {
            let outcome = try #require(journal.appendAtOnce(.rebuild(feed, version: 1, epoch: 0, items: 3, body: []), body: parts))
            try outcome.get()
            #expect(journal.entry(for: feed)?.version == 1)
            try crashImage(of: path, to: folder.file("crashed/j.db"))
        }
        // From the log alone (the crash image), and from SQLite once the journal thread joined it.
        let reopened = try open(folder.file("crashed/j.db"))
        defer { reopened.close() }
        #expect(try reopened.recipe(for: feed)?.bodies == [expected])
        #expect(reopened.keysAtOpen.first?.rebuildBytes == expected.count)
        #expect(try journal.recipe(for: feed)?.bodies == [expected])
    }

    @Test(arguments: [1, 2, 3, 7, 8, 9, 64, 1000])
    func aChecksumOfPiecesIsTheChecksumOfTheirBytesJoined(pieceCount: Int) {
        var random = SeededGenerator(seed: UInt64(pieceCount))
        let pieces = (0..<pieceCount).map { _ in (0..<Int.random(in: 0...19, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) } }
        let joined = pieces.flatMap { $0 }
        let viewed = Parts(pieces).withJournalParts { Checksum.of(pieces: $0) }
        #expect(viewed == Checksum.of(joined))
        #expect(Checksum.of(pieces: []) == Checksum.of([]))
    }

    @Test func aFailedSyncOfTheLogIsNotForgottenUntilTheDatabaseHasWhatItMayHaveLost() throws {
        let folder = TemporaryFolder("layoutd-log")
        let path = folder.file("j.db")
        // A disk error on the log's syncs while `failing` is set.
        let failing = Atomic<Bool>(false)
        let logSync: AppendOnlyLog.FileSync = { descriptor in
            guard !failing.load(ordering: .relaxed) else {
                errno = EIO
                return -1
            }
            return fdatasync(descriptor)
        }
        do {
            let journal = try #require(try Journal.open(
                .sqlite(path: path), role: .daemon, durability: .sync, syncMillis: 50, compaction: Journal.Compaction(),
                fencingEpoch: nil, appendOnlyLog: true, postgresLogPath: nil, logSync: logSync
            ))
            defer { journal.close() }
            try write(.rebuild(feed, version: 1, epoch: 0, items: 2, body: bytes("prepare")), to: journal).get()
            failing.store(true, ordering: .relaxed)
            #expect(throws: JournalError.self) { try write(.change(feed, version: 2, items: 3, body: bytes("update one")), to: journal).get() }
            #expect(!journal.isWritable)
            // The disk answers again, but what the failed sync was to write may be gone: the next sync
            // still fails.
            failing.store(false, ordering: .relaxed)
            #expect(throws: JournalError.self) { try write(.change(feed, version: 3, items: 4, body: bytes("update two")), to: journal).get() }
            // Once SQLite has those writes on its disk, syncing works again by itself.
            #expect(eventually { journal.isWritable })
            try write(.change(feed, version: 4, items: 5, body: bytes("update three")), to: journal).get()
        }
        // The refused writes were journaled all the same (not acknowledged: a client reads the version).
        let reopened = try open(path)
        defer { reopened.close() }
        #expect(try reopened.recipe(for: feed)?.bodies.count == 4)
    }

    /// The journal thread rotates the log (syncing and closing the segment it leaves) while the log's
    /// syncing thread may be syncing that segment for a reply: the rotation waits for the sync, which
    /// ends on the descriptor it began with, and the change is acknowledged.
    @Test func aRotationWaitsForASyncOfTheSegmentItLeaves() throws {
        let folder = TemporaryFolder("layoutd-log")
        let path = folder.file("j.db")
        let inSync = Atomic(0)
        let overlapped = Atomic(false)
        let syncs = Atomic(0)
        let committed = Atomic(false)
        // The first sync (the reply's, on the syncing thread) lasts until the journal thread has copied
        // the change into SQLite, and 100 ms more, in which it syncs SQLite and rotates (every 20 ms).
        let logSync: AppendOnlyLog.FileSync = { descriptor in
            if inSync.add(1, ordering: .sequentiallyConsistent).newValue > 1 { overlapped.store(true, ordering: .relaxed) }
            defer { inSync.subtract(1, ordering: .sequentiallyConsistent) }
            if syncs.add(1, ordering: .relaxed).newValue == 1 {
                let deadline = ContinuousClock.now + .seconds(10)
                while !committed.load(ordering: .relaxed) && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.005) }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return fdatasync(descriptor)
        }
        let journal = try #require(try Journal.open(
            .sqlite(path: path), role: .daemon, durability: .sync, syncMillis: 20, compaction: Journal.Compaction(),
            fencingEpoch: nil, appendOnlyLog: true, postgresLogPath: nil, logSync: logSync,
            onCommit: { _ in committed.store(true, ordering: .relaxed) }
        ))
        defer { journal.close() }
        try write(.rebuild(feed, version: 1, epoch: 0, items: 2, body: bytes("prepare")), to: journal).get()
        // Rotated meanwhile: the segment holding the change was synced again as it was left.
        #expect(eventually { syncs.load(ordering: .relaxed) >= 2 })
        let didOverlap = overlapped.load(ordering: .relaxed)
        #expect(!didOverlap, "a rotation synced (and closed) the segment while a reply's sync was on it")
        try write(.change(feed, version: 2, items: 3, body: bytes("update one")), to: journal).get()
    }

    @Test func aCleanCloseLeavesEverythingInTheDatabaseAndNoLog() throws {
        let folder = TemporaryFolder("layoutd-log")
        let path = folder.file("j.db")
        do {
            let journal = try open(path, durability: .sync)
            try write(.rebuild(feed, version: 1, epoch: 0, items: 2, body: bytes("prepare")), to: journal).get()
            try write(.change(feed, version: 2, items: 3, body: bytes("update one")), to: journal).get()
            #expect(journal.statistics.records == 2)
            journal.close()
        }
        #expect(try logSegments(of: path).isEmpty)
        let storage = try SQLiteJournalStorage(path: path, role: .daemon, durability: nil)
        #expect(try storage.recipe(for: feed)?.bodies == [bytes("prepare"), bytes("update one")])
        #expect(try storage.logPosition() == 2)
    }
}

/// A body in parts held in arrays, as a request's message and frames are.
private struct Parts: JournalBodySource {
    let arrays: [[UInt8]]

    init(_ arrays: [[UInt8]]) {
        self.arrays = arrays
    }

    func withJournalParts<Result>(_ body: ([UnsafeRawBufferPointer]) -> Result) -> Result {
        func nest(_ index: Int, _ views: [UnsafeRawBufferPointer]) -> Result {
            guard index < arrays.count else { return body(views) }
            return arrays[index].withUnsafeBytes { nest(index + 1, views + [$0]) }
        }
        return nest(0, [])
    }
}
