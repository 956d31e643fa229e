import Dispatch
import Foundation
import LayoutTestKit
import Synchronization
import Testing
@testable import LayoutJournal

/// A journal opened with its keys left to a background read (`loadsKeysInBackground`, a daemon's start):
/// a key looked up meanwhile is read from the database by itself, a write made meanwhile wins over what
/// the background read finds, and once read the index is what a full open would have made.
@Suite(.timeLimit(.minutes(3)))
struct JournalKeyLoadingTests {
    private static func key(_ name: String) -> JournalKey { JournalKey(namespace: "", name: name) }
    private static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// a: rebuilt then changed (v2); b: rebuilt (v1); c: rebuilt then dropped (v2).
    private static func fill(_ journal: Journal) throws {
        try write(.rebuild(key("a"), version: 1, epoch: 0, items: 3, body: bytes("a1")), to: journal).get()
        try write(.change(key("a"), version: 2, items: 4, body: bytes("a2")), to: journal).get()
        try write(.rebuild(key("b"), version: 1, epoch: 0, items: 5, body: bytes("b1")), to: journal).get()
        try write(.rebuild(key("c"), version: 1, epoch: 0, items: 6, body: bytes("c1")), to: journal).get()
        try write(.drop(key("c"), version: 2), to: journal).get()
        journal.close()
    }

    private static func check(_ open: () throws -> Journal?) throws {
        try fill(try #require(try open()))
        let journal = try #require(try open())
        defer { journal.close() }
        #expect(journal.keysAtOpen.isEmpty && !journal.isIndexComplete)
        #expect(journal.statistics.keys == 0 && !journal.statistics.isIndexComplete)
        // Not in the index yet; looked up by itself.
        #expect(journal.entry(for: key("a")) == nil)
        let a = try #require(try journal.resolvedEntry(for: key("a")))
        #expect(a.version == 2 && a.isKept && a.items == 4 && a.changes == 1)
        let c = try #require(try journal.resolvedEntry(for: key("c")))
        #expect(c.version == 2 && !c.isKept)
        #expect(try journal.resolvedEntry(for: key("never")) == nil)
        #expect(journal.statistics.keys == 1)
        // A write while the keys load: newer than what the background read will find.
        try write(.change(key("a"), version: 3, items: 5, body: bytes("a3")), to: journal).get()

        let read = Mutex<[JournalKeyState]?>(nil)
        let failures = Mutex<[String]>([])
        let loaded = DispatchSemaphore(value: 0)
        journal.loadKeysInBackground(onFailure: { error in failures.withLock { $0.append(error.message) } }) { keys in
            read.withLock { $0 = keys }
            loaded.signal()
        }
        #expect(loaded.wait(timeout: .now() + 60) == .success, "the keys were not read")
        #expect(failures.withLock { $0 }.isEmpty)
        #expect(read.withLock { $0 }?.map(\.key.name).sorted() == ["a", "b", "c"])
        #expect(journal.isIndexComplete && journal.statistics.isIndexComplete)
        #expect(journal.statistics.keys == 2, "a and b are kept, c dropped")
        #expect(journal.entry(for: key("a"))?.version == 3 && journal.entry(for: key("a"))?.changes == 2)
        #expect(journal.entry(for: key("b"))?.version == 1 && journal.entry(for: key("b"))?.items == 5)
        #expect(journal.entry(for: key("c"))?.isKept == false)
        #expect(try journal.recipe(for: key("a"))?.bodies == [bytes("a1"), bytes("a2"), bytes("a3")])
        // Once complete, a key the index lacks is not looked up again.
        #expect(try journal.resolvedEntry(for: key("never")) == nil)
    }

    @Test(arguments: [false, true])
    func sqlite(appendOnlyLog: Bool) throws {
        let folder = TemporaryFolder("layoutd-journal-keys")
        let path = folder.file("j.db")
        var first = true
        try Self.check {
            defer { first = false }
            return try Journal.open(.sqlite(path: path), role: .daemon, durability: .sync, syncMillis: 20, appendOnlyLog: appendOnlyLog, loadsKeysInBackground: !first)
        }
    }

    @Test func postgres() throws {
        let server = try PostgresServer()
        defer { withExtendedLifetime(server) {} }
        var first = true
        try Self.check {
            defer { first = false }
            return try Journal.open(.postgres(url: server.url), role: .daemon, durability: .sync, syncMillis: 20, loadsKeysInBackground: !first)
        }
    }

    /// Without `loadsKeysInBackground` the keys are read at open, and handed over the same way.
    @Test func aJournalReadAtOpenHandsOverItsKeys() throws {
        let folder = TemporaryFolder("layoutd-journal-keys")
        let path = folder.file("j.db")
        try Self.fill(try #require(try Journal.open(.sqlite(path: path), role: .daemon, durability: .sync, syncMillis: 20)))
        let journal = try #require(try Journal.open(.sqlite(path: path), role: .daemon, durability: .sync, syncMillis: 20))
        defer { journal.close() }
        #expect(journal.isIndexComplete && journal.statistics.keys == 2)
        let read = Mutex<[String]>([])
        let loaded = DispatchSemaphore(value: 0)
        journal.loadKeysInBackground(onFailure: { _ in }) { keys in
            read.withLock { $0 = keys.map(\.key.name) }
            loaded.signal()
        }
        #expect(loaded.wait(timeout: .now() + 60) == .success)
        #expect(read.withLock { $0 }.sorted() == ["a", "b", "c"])
    }
}
