import Dispatch
import Foundation
import LayoutTestKit
import Synchronization
import Testing
@testable import LayoutJournal

private func open(_ path: String, durability: JournalDurability = .sync, role: JournalRole = .daemon, compaction: Journal.Compaction = Journal.Compaction()) throws -> Journal {
    guard let journal = try Journal.open(.sqlite(path: path), role: role, durability: durability, syncMillis: 50, compaction: compaction) else {
        throw JournalError(.invalidURL, "no journal")
    }
    return journal
}

private let feed = JournalKey(namespace: "", name: "feed")
private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

@Suite struct JournalTests {
    @Test func aRebuildItsChangesAndItsEpochComeBackAfterReopening() throws {
        let folder = TemporaryFolder("layoutd-journal")
        let path = folder.file("a/b/layoutd.db")
        do {
            let journal = try open(path)
            #expect(try write(.rebuild(feed, version: 3, epoch: 7, items: 10, body: bytes("prepare")), to: journal).get() == ())
            try write(.change(feed, version: 4, items: 11, body: bytes("update 1")), to: journal).get()
            try write(.change(feed, version: 5, items: 12, body: bytes("update 2")), to: journal).get()
            // A cluster key reaches a later epoch; a lower one, or one for a key not held, changes nothing.
            try write(.epoch(feed, epoch: 9), to: journal).get()
            try write(.epoch(feed, epoch: 4), to: journal).get()
            try write(.epoch(JournalKey(namespace: "", name: "absent"), epoch: 12), to: journal).get()
            journal.close()
        }
        let reopened = try open(path)
        defer { reopened.close() }
        let state = try #require(reopened.keysAtOpen.first)
        #expect(reopened.keysAtOpen.count == 1)
        #expect(state.key == feed && state.version == 5 && state.epoch == 9 && state.items == 12 && state.isKept)
        #expect(state.base == 3 && state.changes == 2 && state.rebuildBytes == 7 && state.changeBytes == 16)
        let recipe = try #require(try reopened.recipe(for: feed))
        #expect(recipe.base == 3 && recipe.version == 5)
        #expect(recipe.bodies == [bytes("prepare"), bytes("update 1"), bytes("update 2")])
    }

    @Test func aRebuildForgetsEarlierBodiesAndADropKeepsTheVersionCount() throws {
        let folder = TemporaryFolder("layoutd-journal")
        let journal = try open(folder.file("j.db"))
        defer { journal.close() }
        try write(.rebuild(feed, version: 1, epoch: 0, items: 1, body: bytes("p1")), to: journal).get()
        try write(.change(feed, version: 2, items: 1, body: bytes("c2")), to: journal).get()
        try write(.rebuild(feed, version: 3, epoch: 0, items: 1, body: bytes("snapshot")), to: journal).get()
        #expect(try journal.recipe(for: feed)?.bodies == [bytes("snapshot")])
        try write(.drop(feed, version: 4), to: journal).get()
        #expect(try journal.recipe(for: feed) == nil)
        #expect(journal.entry(for: feed)?.version == 4 && journal.entry(for: feed)?.isKept == false)
        #expect(journal.keptKeys(in: nil).isEmpty)
    }

    @Test func keysComeMostRecentlyChangedFirst() throws {
        let folder = TemporaryFolder("layoutd-journal")
        let path = folder.file("j.db")
        do {
            let journal = try open(path)
            for name in ["a", "b", "c"] {
                try write(.rebuild(JournalKey(namespace: "", name: name), version: 1, epoch: 0, items: 1, body: bytes(name)), to: journal).get()
                // Distinct change times, in ms.
                Thread.sleep(forTimeInterval: 0.005)
            }
            try write(.change(JournalKey(namespace: "", name: "a"), version: 2, items: 1, body: bytes("a2")), to: journal).get()
            journal.close()
        }
        let reopened = try open(path)
        defer { reopened.close() }
        #expect(reopened.keysAtOpen.map(\.key.name) == ["a", "c", "b"])
    }

    @Test func aChangeNeedsASnapshotWhenItDoesNotFollowOnOrTheChangesOutgrowTheRebuild() throws {
        let folder = TemporaryFolder("layoutd-journal")
        var compaction = Journal.Compaction()
        compaction.afterBytes = 10
        compaction.afterChanges = 3
        let journal = try open(folder.file("j.db"), compaction: compaction)
        defer { journal.close() }
        #expect(journal.needsSnapshot(of: feed, changeVersion: 2, bytes: 1))
        journal.append(.rebuild(feed, version: 1, epoch: 0, items: 1, body: bytes("0123456789ab")), completion: { _ in })
        #expect(!journal.needsSnapshot(of: feed, changeVersion: 2, bytes: 5))
        #expect(journal.needsSnapshot(of: feed, changeVersion: 3, bytes: 5), "a version skipped")
        #expect(journal.needsSnapshot(of: feed, changeVersion: 2, bytes: 13), "more bytes than the rebuild body")
        for version in 2...4 { journal.append(.change(feed, version: version, items: 1, body: bytes("x")), completion: { _ in }) }
        #expect(journal.needsSnapshot(of: feed, changeVersion: 5, bytes: 1), "more changes than afterChanges")
    }

    @Test func writesAppendedTogetherAllCompleteInAppendOrder() throws {
        let folder = TemporaryFolder("layoutd-journal")
        let journal = try open(folder.file("j.db"), durability: .async)
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
        let reopened = try open(folder.file("j.db"))
        defer { reopened.close() }
        #expect(try reopened.recipe(for: JournalKey(namespace: "n", name: "k3"))?.bodies == [bytes("body 199")])
    }

    @Test func aBodyWhoseBytesChangedOnTheDiskIsReportedCorrupt() throws {
        let folder = TemporaryFolder("layoutd-journal")
        let path = folder.file("j.db")
        do {
            let journal = try open(path)
            try write(.rebuild(feed, version: 1, epoch: 0, items: 1, body: bytes("prepare body")), to: journal).get()
            try write(.change(feed, version: 2, items: 1, body: bytes("change body")), to: journal).get()
            journal.close()
        }
        // A flipped byte, as a bad disk page would leave it.
        let raw = try SQLiteConnection(path: path)
        try raw.execute("UPDATE bodies SET body = CAST('change bodz' AS BLOB) WHERE version = 2")
        let reopened = try open(path)
        defer { reopened.close() }
        #expect(throws: JournalError.self) { try reopened.recipe(for: feed) }
        do {
            _ = try reopened.recipe(for: feed)
        } catch {
            #expect(error.code == .corrupt && error.message.contains("checksum"))
        }
    }

    @Test func aJournalTornByACrashIsReadUpToItsLastWholeCommit() throws {
        let folder = TemporaryFolder("layoutd-journal")
        let path = folder.file("j.db")
        let journal = try open(path)
        try write(.rebuild(feed, version: 1, epoch: 0, items: 1, body: bytes("prepare")), to: journal).get()
        for version in 2...20 { try write(.change(feed, version: version, items: 1, body: Array(repeating: UInt8(version), count: 3000)), to: journal).get() }
        // The files as a crash would leave them (the journal still open), with the WAL's tail cut mid-frame.
        let crashed = folder.file("crashed.db")
        try FileManager.default.copyItem(atPath: path, toPath: crashed)
        var wal = try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))
        #expect(wal.count > 70_000)
        wal.removeLast(1000)
        try wal.write(to: URL(fileURLWithPath: crashed + "-wal"))
        journal.close()
        let reopened = try open(crashed)
        defer { reopened.close() }
        let state = try #require(reopened.keysAtOpen.first)
        #expect(state.version < 20 && state.version >= 1)
        let recipe = try #require(try reopened.recipe(for: feed))
        #expect(recipe.version == state.version && recipe.bodies.count == state.version)
    }

    @Test func aJournalOfAnotherRoleOrFormatOrNotAJournalIsRefused() throws {
        let folder = TemporaryFolder("layoutd-journal")
        let path = folder.file("j.db")
        try open(path).close()
        #expect { _ = try open(path, role: .broker) } throws: { ($0 as? JournalError)?.code == .incompatible && "\($0)".contains("broker") }
        let raw = try SQLiteConnection(path: path)
        try raw.execute("UPDATE journal_meta SET value = '99' WHERE name = 'format'")
        #expect { _ = try open(path) } throws: { ($0 as? JournalError)?.code == .incompatible && "\($0)".contains("format 99") }
        let other = folder.file("other.db")
        try SQLiteConnection(path: other).execute("CREATE TABLE t(x)")
        #expect { _ = try open(other) } throws: { ($0 as? JournalError)?.code == .incompatible }
        let garbage = folder.file("garbage.db")
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: garbage))
        #expect { _ = try open(garbage) } throws: { ($0 as? JournalError)?.code == .unreadable }
    }

    @Test func aBodyAndItsFramesMakeOneRecordAndComeApartAgain() throws {
        let body = bytes(#"{"op":"prepare","sections":[{"heights":{"frame":1}}]}"#)
        let frames: [[UInt8]] = [[1, 2, 3, 4, 5, 6, 7, 8], [], Array(repeating: 9, count: 1000)]
        let record = body.withUnsafeBytes { JournalBody.joining($0, frames: frames) }
        #expect(JournalBody.parts(of: record) == [body] + frames)
        // A plain body is no record of parts, and neither is one cut short or with bytes left over.
        #expect(JournalBody.parts(of: body) == nil)
        #expect(JournalBody.parts(of: Array(record.dropLast())) == nil)
        #expect(JournalBody.parts(of: record + [0]) == nil)
    }

    @Test func urlsParseAndHideAPassword() throws {
        #expect(try JournalURL(parsing: "none") == .none)
        #expect(try JournalURL(parsing: "sqlite:data/layoutd.db") == .sqlite(path: "data/layoutd.db"))
        #expect(try JournalURL(parsing: "sqlite:///var/lib/layoutd/j.db") == .sqlite(path: "/var/lib/layoutd/j.db"))
        #expect(try JournalURL(parsing: "postgres://u:secret@db:5432/layoutd").description == "postgres://u:***@db:5432/layoutd")
        #expect(throws: JournalError.self) { try JournalURL(parsing: "redis://x") }
        #expect(throws: JournalError.self) { try JournalURL(parsing: "sqlite:") }
    }
}
