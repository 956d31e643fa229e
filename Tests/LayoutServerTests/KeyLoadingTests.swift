import Foundation
@testable import LayoutJournal
import LayoutEngine
import LayoutTestKit
import Logging
import Synchronization
import Testing
@testable import LayoutServer

/// A daemon's start with its journal's keys read in the background (`DurableLayouts+Start`): ops on keys
/// not read yet see the journaled versions, `list` waits for every key rather than answering a part,
/// and `stats` says the keys are loading. The pieces are put together here as the daemon does, so that
/// the background read starts only when the test says.
@Suite struct KeyLoadingTests {
    /// a: prepared and resized (v2); b: prepared (v1); c: prepared then dropped (v2).
    private static func journal(in folder: TemporaryFolder) throws {
        let daemon = try TestDaemon(.single) { configuration in
            configuration.journalURL = .sqlite(path: folder.journalPath)
            configuration.journalDurability = .sync
        }
        for key in ["a", "b", "c"] {
            #expect(try daemon.call(mosaicJob(key: key)).ok)
        }
        let resized = try daemon.call(#"{"op":"bounds","layout":"a","bounds":{"width":320,"height":800}}"#)
        #expect(resized.ok && resized.result["version"] as? Int == 2, "\(resized)")
        #expect(try daemon.call(#"{"op":"drop","layout":"c"}"#).ok)
    }

    private struct Pieces {
        let journal: Journal
        let stats = ServerStats()
        let store: LayoutStore
        let durable: DurableLayouts
        let handler: RequestHandler

        init(_ folder: TemporaryFolder, listWaitForKeys: Duration = .seconds(20)) throws {
            journal = try #require(try Journal.open(
                .sqlite(path: folder.journalPath), role: .daemon, durability: .sync, syncMillis: 20, appendOnlyLog: true, loadsKeysInBackground: true
            ))
            store = LayoutStore(capacityBytes: 1 << 30, backing: .journal, perKeyBytes: Journal.indexBytesPerKey) { _ in }
            var logger = Logger(label: "layoutd-test")
            logger.logLevel = .warning
            durable = DurableLayouts(journal: journal, store: store, events: nil, limits: InputLimits(), stats: stats, logger: logger)
            var handler = RequestHandler(store: store, stats: stats, limits: InputLimits(), startedAt: Date(), durable: durable)
            handler.listWaitForKeys = listWaitForKeys
            self.handler = handler
        }

        /// `body` run as the pool runs it, its reply not yet waited for.
        func run(_ body: String) -> JobReply {
            switch handler.decode(RequestBody(Array(body.utf8))) {
            case .run(let admitted, _): handler.execute(admitted)
            case .reply(let reply): reply
            }
        }

        /// `body`'s reply once it may leave (a change: once journaled).
        func call(_ body: String) throws -> [String: Any] {
            let reply = run(body)
            guard let deferral = reply.deferral else { return try TestDaemon.object(reply.body.bytes) }
            let settled = Settled()
            deferral.wait { settled.set($0) }
            return try TestDaemon.object(try #require(settled.await(), "\(body): no reply").body.bytes)
        }

        var journalStats: [String: Any] {
            stats.journalReport(durable, evictions: 0).jsonObject
        }
    }

    /// A deferred reply, once it comes.
    private final class Settled: Sendable {
        private let reply = Mutex<JobReply?>(nil)
        private let done = DispatchSemaphore(value: 0)

        func set(_ value: JobReply) {
            reply.withLock { $0 = value }
            done.signal()
        }

        var isSet: Bool { reply.withLock { $0 != nil } }

        func await() -> JobReply? {
            _ = done.wait(timeout: .now() + 60)
            return reply.withLock { $0 }
        }
    }

    /// Keys that are never read (a journal that cannot be read) do not hold a `list` forever: it is
    /// answered `unavailable` once its wait is over.
    @Test func aListWhoseKeysAreNeverReadIsAnsweredUnavailable() throws {
        let folder = TemporaryFolder("layoutd-key-loading")
        try Self.journal(in: folder)
        let pieces = try Pieces(folder, listWaitForKeys: .milliseconds(200))
        defer { pieces.durable.close() }
        let list = pieces.run(#"{"v":1,"id":"l","op":"list"}"#)
        let deferral = try #require(list.deferral, "a list while the keys load must wait for them")
        let listed = Settled()
        deferral.wait { listed.set($0) }
        let reply = try TestDaemon.object(try #require(listed.await(), "the list was never answered").body.bytes)
        #expect(reply.errorCode == "unavailable" && reply["id"] as? String == "l", "\(reply)")
        #expect(pieces.durable.restoreProgress.isLoadingKeys)
    }

    @Test func opsListAndStatsWhileTheKeysAreStillBeingRead() throws {
        let folder = TemporaryFolder("layoutd-key-loading")
        try Self.journal(in: folder)
        let pieces = try Pieces(folder)
        defer { pieces.durable.close() }

        #expect(pieces.durable.restoreProgress.isLoadingKeys)
        #expect(pieces.journalStats["loadingKeys"] as? Bool == true)
        #expect(pieces.journalStats["keys"] as? Int == 0)

        // A list waits for the keys: it does not answer the part known so far.
        let list = pieces.run(#"{"op":"list"}"#)
        let deferral = try #require(list.deferral, "a list while the keys load must wait for them")
        let listed = Settled()
        deferral.wait { listed.set($0) }

        // Ops on keys not read yet see them as journaled.
        let b = try pieces.call(#"{"op":"query","layout":"b","rect":{"x":0,"y":0,"width":1000,"height":100000}}"#)
        #expect(b.ok && b.result["version"] as? Int == 1, "\(b)")
        let a = try pieces.call(mosaicJob(key: "a", extra: #","ifVersion":2"#))
        #expect(a.ok && a.result["version"] as? Int == 3, "the version goes on from the journal's: \(a)")
        let c = try pieces.call(mosaicJob(key: "c", extra: #","ifVersion":2"#))
        #expect(c.ok && c.result["version"] as? Int == 3, "a dropped key's count goes on too: \(c)")
        let d = try pieces.call(mosaicJob(key: "d"))
        #expect(d.ok && d.result["version"] as? Int == 1, "\(d)")
        #expect(!listed.isSet)
        #expect(pieces.journalStats["loadingKeys"] as? Bool == true)

        pieces.durable.startInBackground(restoreConcurrency: 1)
        let reply = try #require(listed.await(), "the list was never answered")
        let layouts = try #require(try TestDaemon.object(reply.body.bytes).result["layouts"] as? [[String: Any]])
        let versions = Dictionary(uniqueKeysWithValues: layouts.compactMap { entry in
            (entry["layout"] as? String).map { ($0, entry["version"] as? Int ?? -1) }
        })
        #expect(versions == ["a": 3, "b": 1, "c": 3, "d": 1], "\(layouts)")

        #expect(!pieces.durable.restoreProgress.isLoadingKeys)
        #expect(pieces.journalStats["loadingKeys"] as? Bool == false)
        #expect(pieces.journalStats["keys"] as? Int == 4)
        // Once read, a list answers at once.
        #expect(pieces.run(#"{"op":"list"}"#).deferral == nil)
        // The background restore does not bring back what an op changed meanwhile.
        let deadline = Date().addingTimeInterval(60)
        while pieces.journalStats["restoring"] as? Int != 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(pieces.journalStats["restoring"] as? Int == 0)
        let after = try pieces.call(#"{"op":"query","layout":"a","rect":{"x":0,"y":0,"width":1000,"height":100000}}"#)
        #expect(after.ok && after.result["version"] as? Int == 3, "\(after)")
    }
}
