import Testing
import ZeroMQ
@testable import LayoutServer

/// Requests the I/O thread answers itself (`FrontDesk`): the same answers as from the pool, and the pool's
/// rules kept (arrival order per layout, a slow request still on a worker).
@Suite struct FrontDeskTests {
    /// Sends `bodies` on one DEALER at once and returns the replies' ids in the order they arrived, and the
    /// replies by id.
    private func pipeline(_ bodies: [String], on daemon: TestDaemon) throws -> (order: [String], byID: [String: [String: Any]]) {
        let dealer = try daemon.dealer()
        for body in bodies { _ = try dealer.send(multipart: [[], Array(body.utf8)]) }
        var order: [String] = []
        var byID: [String: [String: Any]] = [:]
        for _ in bodies {
            let frames = try #require(try dealer.receiveMultipart())
            let reply = try TestDaemon.object(frames[frames.count - 1])
            let id = reply["id"] as? String ?? "?"
            order.append(id)
            byID[id] = reply
        }
        return (order, byID)
    }

    @Test func aRectQueryRightAfterAChangeOnItsLayoutSeesTheChangeAndIsAnsweredAfterIt() throws {
        let daemon = try TestDaemon { $0.workers = 2 }
        // Version 1 first, so that a query run too early would find a layout (of the wrong version).
        #expect(try daemon.call(mosaicJob(key: "order", count: 10)).ok)
        let replaced = mosaicJob(key: "order", count: 200_000).replacingOccurrences(of: #""id":"prepare-1""#, with: #""id":"replace""#)
        let (order, replies) = try pipeline([
            replaced,
            #"{"v":1,"id":"after","op":"query","layout":"order","rect":{"x":0,"y":0,"width":375,"height":300}}"#,
        ], on: daemon)
        #expect(replies["replace"]?.ok == true)
        #expect(replies["after"]?.ok == true)
        #expect(replies["after"]?.result["version"] as? Int == 2, "the query ran after the prepare it followed")
        #expect(order == ["replace", "after"], "replies on one layout leave in arrival order")
    }

    @Test func aPingIsAnsweredWhileTheOnlyWorkerRunsALargeJob() throws {
        let daemon = try TestDaemon { $0.workers = 1 }
        let (order, replies) = try pipeline([
            mosaicJob(key: "big", count: 1_000_000),
            #"{"v":1,"id":"ping","op":"ping"}"#,
        ], on: daemon)
        #expect(replies["prepare-1"]?.ok == true)
        #expect(replies["ping"]?.ok == true)
        #expect(order == ["ping", "prepare-1"], "the ping did not wait for the worker")
    }

    @Test func queriesOverTheBoundAndWithPinningAnswerAsTheSmallOnesDo() throws {
        let daemon = try TestDaemon()
        #expect(try daemon.call(mosaicJob(key: "feed", count: 1_000)).ok)
        // Every cell: over the bound, so a worker answers it.
        let all = try daemon.call(#"{"v":1,"id":"all","op":"query","layout":"feed","rect":{"x":0,"y":0,"width":375,"height":1000000}}"#)
        #expect((all.result["attributes"] as? [[String: Any]])?.count == 1_000)
        // A screenful, answered here; the same rect asked in columns answers the same cells.
        let small = try daemon.call(#"{"v":1,"id":"s","op":"query","layout":"feed","rect":{"x":0,"y":0,"width":375,"height":300}}"#)
        #expect((small.result["attributes"] as? [[String: Any]])?.map { $0["item"] as? Int } == [0, 1, 2])
        let columns = try daemon.call(#"{"v":1,"id":"c","op":"query","layout":"feed","format":"columns","rect":{"x":0,"y":0,"width":375,"height":300}}"#)
        #expect((columns.result["attributes"] as? [String: Any])?["item"] as? [Int] == [0, 1, 2])
        // Errors answered here read as the pool's: an unknown layout, a body that does not decode.
        let unknown = try daemon.call(#"{"v":1,"id":"u","op":"query","layout":"nope","rect":{"x":0,"y":0,"width":1,"height":1}}"#)
        #expect(unknown.errorCode == "unknown_layout")
        let broken = try daemon.call(#"{"v":1,"id":"b","op":"query","layout":"feed","rect":{"x":0}}"#)
        #expect(broken.errorCode == "invalid_request")
        #expect(broken.errorPath?.hasPrefix("rect") == true)
    }

    @Test func requestsAnsweredHereAreCountedInStats() throws {
        let daemon = try TestDaemon()
        for _ in 0..<3 { #expect(try daemon.call(#"{"v":1,"id":"p","op":"ping"}"#).ok) }
        let stats = try daemon.stats()
        #expect((stats["requests"] as? [String: Int])?["ping"] == 3, "stats: \(stats)")
    }
}
