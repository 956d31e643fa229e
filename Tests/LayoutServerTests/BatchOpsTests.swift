import Foundation
import Testing
import ZeroMQ
@testable import LayoutServer

/// `update` and `diff` over real sockets, with the `batch` events a subscriber sees.
@Suite(.serialized) struct BatchOpsTests {
    /// A list of five items with ids a…e and heights 10…50 under "feed".
    private func prepareFeed(_ daemon: TestDaemon) throws {
        let reply = try daemon.call(#"{"v":1,"id":"p","op":"prepare","layout":"feed","bounds":{"width":100,"height":800},"spec":{"type":"list"},"sections":[{"items":[{"id":"a","height":10},{"id":"b","height":20},{"id":"c","height":30},{"id":"d","height":40},{"id":"e","height":50}]}]}"#)
        #expect(reply.ok)
    }

    private func subscribe(_ daemon: TestDaemon, _ prefix: String) throws -> Socket {
        let socket = try Socket(.sub, in: daemon.context)
        try socket.set(.receiveTimeout, 5_000)
        try socket.subscribe(prefix)
        try socket.connect(daemon.running.eventsEndpoint)
        for _ in 0..<200 {
            if (try daemon.stats()["subscribers"] as? Int ?? 0) >= 1 { return socket }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw TestFailure("subscription never reached the daemon")
    }

    private func ys(_ daemon: TestDaemon) throws -> [Double] {
        let reply = try daemon.call(#"{"v":1,"id":"q","op":"query","layout":"feed","rect":{"x":0,"y":0,"width":100,"height":100000}}"#)
        return (reply.result["attributes"] as? [[String: Any]] ?? []).compactMap { $0["y"] as? Double }
    }

    @Test(arguments: Topology.all) func updateAppliesTheBatchAndPublishesItNormalized(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        try prepareFeed(daemon)
        let events = try subscribe(daemon, "batch:feed")
        // Delete b (before-index 1), insert x at after-index 0, move e (4) to after-index 1.
        let reply = try daemon.call(#"{"v":1,"id":"u","op":"update","layout":"feed","ifVersion":1,"updates":[{"delete":[0,1]},{"insert":[0,0],"item":{"id":"x","height":5}},{"move":[[0,4],[0,1]]}]}"#)
        #expect(reply.ok)
        #expect(reply.result["version"] as? Int == 2)
        #expect((reply.result["deletes"] as? [[Int]]) == [[0, 1]])
        #expect((reply.result["inserts"] as? [[Int]]) == [[0, 0]])
        let moves = try #require(reply.result["moves"] as? [[String: [Int]]])
        #expect(moves.count == 1 && moves[0]["from"] == [0, 4] && moves[0]["to"] == [0, 1])
        // New order x(5) e(50) a(10) c(30) d(40): stacked from 0.
        #expect(try ys(daemon) == [0, 5, 55, 65, 95])
        #expect((reply.result["contentSize"] as? [String: Any])?["height"] as? Double == 135)

        let event = try TestDaemon.nextEvent(events)
        #expect(event.topic == "batch:feed")
        #expect(event.body["event"] as? String == "batch")
        #expect(event.body["version"] as? Int == 2)
        #expect((event.body["deletes"] as? [[Int]]) == [[0, 1]])
        #expect((event.body["sections"] as? [String: Any])?["inserts"] as? [Int] == [])
    }

    /// With nobody subscribed a change makes no event (`EventAudience`), and its reply is the same; a
    /// subscriber counted in stats receives the next change's event, at the next version.
    @Test func anUpdateNobodySubscribesToMakesNoEventAndTheNextSubscriberSeesTheNext() throws {
        let daemon = try TestDaemon()
        try prepareFeed(daemon)
        let unheard = try daemon.call(#"{"v":1,"id":"u","op":"update","layout":"feed","ifVersion":1,"updates":[{"insert":[0,5],"item":{"id":"f","height":60}}]}"#)
        #expect(unheard.ok)
        #expect(unheard.result["version"] as? Int == 2)
        #expect((unheard.result["inserts"] as? [[Int]]) == [[0, 5]])
        #expect(try daemon.stats()["eventsPublished"] as? Int == 0)

        let events = try subscribe(daemon, "batch:feed")
        let heard = try daemon.call(#"{"v":1,"id":"u","op":"update","layout":"feed","ifVersion":2,"updates":[{"insert":[0,6],"item":{"id":"g","height":70}}]}"#)
        #expect(heard.ok)
        let event = try TestDaemon.nextEvent(events)
        #expect(event.topic == "batch:feed")
        #expect(event.body["version"] as? Int == 3)
        #expect((event.body["inserts"] as? [[Int]]) == [[0, 6]])
        #expect(try daemon.stats()["eventsPublished"] as? Int == 1)
    }

    /// `layoutDirection` is read by `prepare` only; `bounds`, `update` and `diff` keep the layout's.
    @Test(arguments: Topology.all) func aRightToLeftLayoutStaysRightToLeftThroughBoundsUpdateAndDiff(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        // Items 85 wide at x 10 left to right; mirrored in W = 100: x = 100 - (10 + 85) = 5.
        let prepare = try daemon.call(#"{"v":1,"id":"p","op":"prepare","layout":"rtl","layoutDirection":"rightToLeft","bounds":{"width":100,"height":800},"spec":{"type":"list","sectionInsets":{"left":10,"right":5}},"sections":[{"items":[{"id":"a"},{"id":"b"}]}]}"#)
        #expect(prepare.ok)
        func xs() throws -> [Double] {
            let reply = try daemon.call(#"{"v":1,"id":"q","op":"query","layout":"rtl","rect":{"x":0,"y":0,"width":1000,"height":1000}}"#)
            return (reply.result["attributes"] as? [[String: Any]] ?? []).compactMap { $0["x"] as? Double }
        }
        #expect(try xs() == [5, 5])
        // Wider: 185 wide, still 5 from the right edge; a direction sent with bounds is not read.
        #expect(try daemon.call(#"{"v":1,"id":"b","op":"bounds","layout":"rtl","layoutDirection":"leftToRight","bounds":{"width":200,"height":800}}"#).ok)
        #expect(try xs() == [5, 5])
        #expect(try daemon.call(#"{"v":1,"id":"u","op":"update","layout":"rtl","updates":[{"insert":[0,0],"item":{"id":"c"}}]}"#).ok)
        #expect(try xs() == [5, 5, 5])
        #expect(try daemon.call(#"{"v":1,"id":"d","op":"diff","layout":"rtl","sections":[{"items":[{"id":"b"},{"id":"d"}]}]}"#).ok)
        #expect(try xs() == [5, 5])
    }

    @Test(arguments: Topology.all) func aRejectedBatchNamesTheOffenderAndChangesNothing(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        try prepareFeed(daemon)
        // The same item deleted twice: the later update is the offender.
        let reply = try daemon.call(#"{"v":1,"id":"u","op":"update","layout":"feed","updates":[{"delete":[0,2]},{"reload":[0,0],"item":{"height":99}},{"delete":[0,2]}]}"#)
        #expect(reply.errorCode == "invalid_update")
        #expect(reply.errorPath == "updates[2]")
        #expect(try ys(daemon) == [0, 10, 30, 60, 100])
        let list = try daemon.call(#"{"v":1,"id":"l","op":"list"}"#)
        #expect((list.result["layouts"] as? [[String: Any]])?.first?["version"] as? Int == 1)

        let outOfRange = try daemon.call(#"{"v":1,"id":"u","op":"update","layout":"feed","updates":[{"delete":[0,7]}]}"#)
        #expect(outOfRange.errorCode == "invalid_update")
        #expect(outOfRange.errorPath == "updates[0]")
    }

    @Test(arguments: Topology.all) func ifVersionMismatchIsAVersionConflict(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        try prepareFeed(daemon)
        let reply = try daemon.call(#"{"v":1,"id":"u","op":"update","layout":"feed","ifVersion":7,"updates":[{"delete":[0,0]}]}"#)
        #expect(reply.errorCode == "version_conflict")
        #expect(reply.errorPath == "ifVersion")
        #expect(try ys(daemon).count == 5)
    }

    @Test(arguments: Topology.all) func diffComputesMinimalMovesAndVersionsStayConsecutive(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        try prepareFeed(daemon)
        let events = try subscribe(daemon, "batch:feed")
        // Rotate a to the end, drop c, add f, and change d's height: one move, one delete, one insert, one reload.
        let reply = try daemon.call(#"{"v":1,"id":"d","op":"diff","layout":"feed","sections":[{"items":[{"id":"b","height":20},{"id":"d","height":44},{"id":"e","height":50},{"id":"a","height":10},{"id":"f","height":60}]}]}"#)
        #expect(reply.ok)
        #expect((reply.result["moves"] as? [Any])?.count == 1)
        #expect((reply.result["deletes"] as? [[Int]]) == [[0, 2]])
        #expect((reply.result["inserts"] as? [[Int]]) == [[0, 4]])
        #expect((reply.result["reloads"] as? [[Int]]) == [[0, 3]])
        #expect(try ys(daemon) == [0, 20, 64, 114, 124])

        let second = try daemon.call(#"{"v":1,"id":"u","op":"update","layout":"feed","updates":[{"delete":[0,0]}]}"#)
        #expect(second.result["version"] as? Int == 3)
        #expect(try TestDaemon.nextEvent(events).body["version"] as? Int == 2)
        #expect(try TestDaemon.nextEvent(events).body["version"] as? Int == 3)
    }

    @Test(arguments: Topology.all) func duplicateIdsInADiffAreRejected(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        try prepareFeed(daemon)
        let reply = try daemon.call(#"{"v":1,"id":"d","op":"diff","layout":"feed","sections":[{"ids":["a","b","a"],"heights":[1,2,3]}]}"#)
        #expect(reply.errorCode == "invalid_request")
        #expect(reply.errorPath == "sections[0].ids[2]")
    }

    @Test(arguments: Topology.all) func malformedUpdatesGetPathsIntoTheBody(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        try prepareFeed(daemon)
        let noOp = try daemon.call(#"{"v":1,"id":"u","op":"update","layout":"feed","updates":[{"delete":[0,0]},{"frobnicate":1}]}"#)
        #expect(noOp.errorCode == "invalid_request")
        #expect(noOp.errorPath == "updates[1]")
        let badHeight = try daemon.call(#"{"v":1,"id":"u","op":"update","layout":"feed","updates":[{"insert":[0,0],"item":{"id":"z","height":-1}}]}"#)
        #expect(badHeight.errorCode == "invalid_request")
        #expect(badHeight.errorPath == "updates[0].item.height")
        let unknown = try daemon.call(#"{"v":1,"id":"u","op":"update","layout":"nope","updates":[]}"#)
        #expect(unknown.errorCode == "unknown_layout")
    }
}
