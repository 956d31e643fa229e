import Foundation
@testable import LayoutJournal
import LayoutTestKit
import Testing
import ZeroMQ
@testable import LayoutServer

/// A single daemon with a journal: what was acknowledged comes back after a restart, an evicted layout
/// comes back when asked for, and a record that cannot be read is published `lost`, never served wrong.
@Suite struct DurableLayoutsTests {
    private static func daemon(_ folder: TemporaryFolder, durability: JournalDurability = .sync, configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> TestDaemon {
        try TestDaemon(.single) { configuration in
            configuration.journalURL = .sqlite(path: folder.journalPath)
            configuration.journalDurability = durability
            configure(&configuration)
        }
    }

    private static let all = #""rect":{"x":0,"y":0,"width":100000,"height":100000000}"#

    /// What a query of the whole layout answers: its version and attributes.
    private static func whole(_ key: String, on daemon: TestDaemon) throws -> (version: Int?, attributes: NSArray?, error: String?) {
        let reply = try daemon.call(#"{"op":"query","layout":"\#(key)",\#(all)}"#)
        let result = reply["result"] as? [String: Any]
        return (result?["version"] as? Int, result?["attributes"] as? NSArray, (reply["error"] as? [String: Any])?["code"] as? String)
    }

    private static func changes(_ key: String) -> [String] {
        [
            #"{"op":"update","layout":"\#(key)","updates":[{"insert":[0,0],"item":{"height":33}},{"delete":[0,4]}]}"#,
            #"{"op":"bounds","layout":"\#(key)","bounds":{"width":320,"height":600}}"#,
            #"{"op":"update","layout":"\#(key)","updates":[{"move":[[0,1],[0,7]]},{"reload":[0,2],"item":{"height":71}}]}"#,
            #"{"op":"update","layout":"\#(key)","updates":[{"insertSection":1,"section":{"count":3,"heights":[10,20,30]}}]}"#,
        ]
    }

    private static func prepare(_ key: String, spec: String) -> String {
        let heights = (0..<60).map { String(30 + ($0 * 37) % 90) }.joined(separator: ",")
        return #"{"op":"prepare","layout":"\#(key)","bounds":{"width":375,"height":800},"spec":\#(spec),"sections":[{"count":60,"heights":[\#(heights)]}]}"#
    }

    private static let specs = [
        "feed": #"{"type":"waterfall","columns":3}"#,
        "grid": #"{"type":"flow","defaultItemSize":{"width":80,"height":80}}"#,
        "list": #"{"type":"list"}"#,
    ]

    @Test(arguments: JournalDurability.allCases)
    func aRestartedDaemonAnswersEveryLayoutAtItsVersionBitForBit(durability: JournalDurability) throws {
        let folder = TemporaryFolder()
        var before: [String: (Int?, NSArray?)] = [:]
        do {
            let daemon = try Self.daemon(folder, durability: durability)
            for (key, spec) in Self.specs {
                let prepared = try daemon.call(Self.prepare(key, spec: spec))
                #expect(prepared.ok, "\(prepared)")
                for change in Self.changes(key) {
                    let reply = try daemon.call(change)
                    #expect(reply.ok, "\(change): \(reply)")
                }
                let answer = try Self.whole(key, on: daemon)
                before[key] = (answer.version, answer.attributes)
            }
            // With `sync`, what the replies waited for: the log's syncs, one or more for 15 changes.
            let journal = try #require(try daemon.stats()["journal"] as? [String: Any])
            let syncs = (journal["syncMicros"] as? [String: Any])?["count"] as? Int
            #expect(durability == .sync ? (syncs ?? 0) >= 1 && (syncs ?? 0) <= 15 : syncs == nil, "\(journal)")
        }
        let restarted = try Self.daemon(folder, durability: durability)
        for key in Self.specs.keys {
            let after = try Self.whole(key, on: restarted)
            #expect(after.version == 5 && after.version == before[key]?.0, "\(key)")
            #expect(after.attributes != nil && after.attributes == before[key]?.1, "\(key): the frames after the restart")
        }
        let listed = try restarted.call(#"{"op":"list"}"#).result["layouts"] as? [[String: Any]]
        #expect(listed?.compactMap { $0["layout"] as? String }.sorted() == Self.specs.keys.sorted())
        // The next change goes on from the journaled version.
        let next = try restarted.call(#"{"op":"bounds","layout":"feed","bounds":{"width":300,"height":600}}"#)
        #expect(next.result["version"] as? Int == 6)
    }

    @Test func attachedFramesAreJournaledWithTheirBodyAndSnapshotsStandInForChangesPastTheCompactionBound() throws {
        let folder = TemporaryFolder()
        let configure: (inout ServerConfiguration) -> Void = { $0.journalCompaction.afterChanges = 2 }
        var before: (Int?, NSArray?)
        do {
            let daemon = try Self.daemon(folder, configure: configure)
            let socket = try daemon.dealer()
            let heights = (0..<40).flatMap { (index: Int) in withUnsafeBytes(of: Double(20 + index % 13).bitPattern.littleEndian) { Array($0) } }
            let body = #"{"op":"prepare","layout":"wall","bounds":{"width":375,"height":700},"spec":{"type":"waterfall","columns":2},"sections":[{"heights":{"frame":1}}]}"#
            _ = try socket.send(multipart: [[], Array(body.utf8)] + [heights])
            let reply = try #require(try socket.receiveMultipart())
            #expect(try TestDaemon.object(reply[1]).ok)
            for change in Self.changes("wall") { #expect(try daemon.call(change).ok) }
            let answer = try Self.whole("wall", on: daemon)
            before = (answer.version, answer.attributes)
            let journal = try #require(try daemon.stats()["journal"] as? [String: Any])
            #expect(journal["records"] as? Int == 5 && journal["keys"] as? Int == 1)
        }
        let restarted = try Self.daemon(folder, configure: configure)
        let after = try Self.whole("wall", on: restarted)
        #expect(after.version == 5 && after.version == before.0)
        #expect(after.attributes != nil && after.attributes == before.1)
    }

    @Test func anEvictedLayoutComesBackFromTheJournalAtItsVersionAndNothingIsPublished() throws {
        let folder = TemporaryFolder()
        // Room for about one of these layouts in memory.
        let daemon = try Self.daemon(folder) { $0.storeCapacityBytes = 4_000 }
        #expect(try daemon.call(Self.prepare("feed", spec: Self.specs["feed"] ?? "")).ok)
        #expect(try daemon.call(Self.changes("feed")[0]).ok)
        let first = try Self.whole("feed", on: daemon)
        let published = try daemon.stats()["eventsPublished"] as? Int
        #expect(try daemon.call(Self.prepare("list", spec: Self.specs["list"] ?? "")).ok)
        let stats = try daemon.stats()
        let journal = try #require(stats["journal"] as? [String: Any])
        #expect((journal["evictions"] as? Int ?? 0) >= 1, "the second layout pushed the first out of memory")
        let again = try Self.whole("feed", on: daemon)
        #expect(again.version == 2 && again.version == first.version)
        #expect(again.attributes != nil && again.attributes == first.attributes)
        #expect(try daemon.stats()["eventsPublished"] as? Int == published, "an eviction is not an invalidation when the journal keeps the layout")
        let listed = try daemon.call(#"{"op":"list"}"#).result["layouts"] as? [[String: Any]]
        #expect(listed?.compactMap { $0["layout"] as? String } == ["feed", "list"])
    }

    @Test func aDroppedLayoutStaysDroppedAndItsVersionsGoOnAfterARestart() throws {
        let folder = TemporaryFolder()
        do {
            let daemon = try Self.daemon(folder)
            #expect(try daemon.call(Self.prepare("feed", spec: Self.specs["feed"] ?? "")).ok)
            #expect(try daemon.call(#"{"op":"drop","layout":"feed"}"#).result["version"] as? Int == 2)
        }
        let restarted = try Self.daemon(folder)
        #expect(try Self.whole("feed", on: restarted).error == "unknown_layout")
        #expect(try restarted.call(Self.prepare("feed", spec: Self.specs["feed"] ?? "")).result["version"] as? Int == 3)
    }

    @Test func aCorruptRecordIsPublishedLostAndTheOtherLayoutsAreServed() throws {
        let folder = TemporaryFolder()
        var good: NSArray?
        do {
            let daemon = try Self.daemon(folder)
            for key in ["feed", "list"] {
                #expect(try daemon.call(Self.prepare(key, spec: Self.specs[key] ?? "")).ok)
                #expect(try daemon.call(Self.changes(key)[0]).ok)
            }
            good = try Self.whole("list", on: daemon).attributes
        }
        // A flipped byte in feed's change, as a bad disk page leaves it.
        let raw = try SQLiteConnection(path: folder.journalPath)
        try raw.execute("UPDATE bodies SET body = CAST(REPLACE(CAST(body AS TEXT), '33', '34') AS BLOB) WHERE name = 'feed' AND version = 2")
        let restarted = try Self.daemon(folder)
        // Published before a subscriber could be there; counted in stats, and the key is gone.
        let deadline = ContinuousClock.now + .seconds(30)
        var lost = 0
        while lost == 0 && ContinuousClock.now < deadline {
            lost = ((try restarted.stats()["journal"] as? [String: Any])?["lost"] as? Int) ?? 0
            if lost == 0 { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(lost == 1)
        #expect(try Self.whole("feed", on: restarted).error == "unknown_layout")
        #expect(try Self.whole("list", on: restarted).attributes == good)
        // The lost event took version 3; a new prepare goes on from there.
        #expect(try restarted.call(Self.prepare("feed", spec: Self.specs["feed"] ?? "")).result["version"] as? Int == 4)
    }
}
