import Foundation
import Testing
import ZeroMQ
@testable import LayoutCluster
@testable import LayoutServer

/// Issue 25, first slice: the broker's route table (`route` and its event), and reads answered by a
/// key's owner on its direct endpoint, under the conditions that keep them from being stale; over real
/// sockets, with a broker and workers in this process.
@Suite(.serialized) struct ClusterDirectReadTests {
    @Test func theRouteTableNamesEachKeysOwnerEpochAndTheWorkersDirectEndpoints() throws {
        let direct = try DirectReadCluster(workers: ["direct-0", "direct-1"])
        let front = try direct.dealer()
        for index in 0..<12 { #expect(try direct.call(mosaicJob(key: "k-\(index)", count: 10), on: front).ok) }

        let table = try direct.route()
        let workers = try #require(table["workers"] as? [[String: Any]])
        var advertised: [String: String] = [:]
        for worker in workers { advertised[worker["worker"] as? String ?? ""] = worker["direct"] as? String }
        #expect(advertised == direct.directEndpoints)
        #expect(table["version"] as? Int ?? 0 > 0)
        #expect(table["epoch"] as? Int ?? 0 > 0)
        let keys = try #require(table["keys"] as? [[String: Any]])
        #expect(keys.compactMap { $0["layout"] as? String } == (0..<12).map { "k-\($0)" }.sorted())
        #expect(keys.allSatisfy { $0["version"] as? Int == 1 && ($0["epoch"] as? Int ?? 0) > 0 })
        let owners = keys.compactMap { $0["worker"] as? String }
        #expect(owners.count == 12)
        #expect(Set(owners) == ["direct-0", "direct-1"], "rendezvous spreads 12 keys over both workers: \(owners)")
        // Each owner named holds the key: the broker's stats count the same keys per worker.
        let stats = try TestDaemon.object(try statsBytes(direct))
        let counted = ((stats["cluster"] as? [String: Any])?["workers"] as? [[String: Any]] ?? []).reduce(into: [String: Int]()) {
            $0[$1["id"] as? String ?? ""] = $1["keys"] as? Int
        }
        #expect(counted["direct-0"] == owners.filter { $0 == "direct-0" }.count)

        // One key alone; a key never prepared is not listed.
        let one = try direct.route(layout: "k-3")["keys"] as? [[String: Any]]
        #expect(one?.count == 1 && one?.first?["layout"] as? String == "k-3")
        #expect((try direct.route(layout: "nosuch")["keys"] as? [[String: Any]])?.isEmpty == true)
    }

    @Test func aChangeOfOwnershipIsPublishedUnderTheRouteTopic() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        let events = try Socket(.sub, in: direct.context)
        try events.set(.receiveTimeout, 10_000)
        try events.subscribe("route")
        try events.connect(direct.cluster.broker.eventsEndpoint)
        let before = try direct.route()["version"] as? Int ?? 0
        // The subscription reaches the broker's XPUB asynchronously: prepare keys until an event comes.
        let front = try direct.dealer()
        try events.set(.receiveTimeout, 200)
        var event: (topic: String, body: [String: Any])?
        for index in 0..<50 where event == nil {
            #expect(try direct.call(mosaicJob(key: "new-\(index)", count: 5), on: front).ok)
            event = try? TestDaemon.nextEvent(events)
        }
        let published = try #require(event, "no route event after 50 new keys")
        #expect(published.topic == "route")
        #expect(published.body["event"] as? String == "route")
        #expect(published.body["version"] as? Int ?? 0 > before)
    }

    @Test func theOwnerAnswersADirectQueryAsTheBrokerDoes() throws {
        let direct = try DirectReadCluster(workers: ["direct-0", "direct-1"])
        let front = try direct.dealer()
        #expect(try direct.call(mosaicJob(key: "feed", count: 30), on: front).ok)
        let owner = try direct.entry("feed")
        let socket = try direct.dealer(direct.directEndpoints[owner.worker])
        let query = #"{"v":1,"id":"q","op":"query","layout":"feed","epoch":\#(owner.epoch),"minVersion":1,"rect":{"x":0,"y":0,"width":375,"height":300}}"#
        let answered = try direct.callUntilAnswered(query, on: socket)
        #expect(answered.ok, "\(answered)")
        #expect(answered["id"] as? String == "q")
        #expect(answered.result["version"] as? Int == 1)
        let throughBroker = try direct.call(query, on: front)
        #expect((answered.result["attributes"] as? [[String: Any]])?.count ?? 0 > 0)
        #expect(NSDictionary(dictionary: answered.result).isEqual(to: throughBroker.result))

        // The layout's own entry, as `list` gives it.
        let listed = try direct.call(#"{"v":1,"id":"l","op":"list","layout":"feed","epoch":\#(owner.epoch)}"#, on: socket)
        let entry = try #require((listed.result["layouts"] as? [[String: Any]])?.first, "\(listed)")
        #expect(entry["layout"] as? String == "feed" && entry["version"] as? Int == 1 && entry["items"] as? Int == 30)
        #expect((listed.result["layouts"] as? [[String: Any]])?.count == 1)

        // A change through the broker, then a read that asks for it: the reply names the new version.
        let update = try direct.call(#"{"v":1,"id":"u","op":"update","layout":"feed","updates":[{"delete":[0,0]}]}"#, on: front)
        #expect(update.ok && update.result["version"] as? Int == 2)
        let after = try direct.call(#"{"v":1,"op":"query","layout":"feed","epoch":\#(owner.epoch),"minVersion":2,"items":[[0,0]]}"#, on: socket)
        #expect(after.ok && after.result["version"] as? Int == 2, "\(after)")
    }

    @Test func aReadNamingAnotherEpochIsAnsweredMovedWithTheCopyHeld() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        #expect(try direct.call(mosaicJob(key: "feed", count: 10), on: try direct.dealer()).ok)
        let owner = try direct.entry("feed")
        let socket = try direct.dealer(direct.directEndpoints[owner.worker])
        let reply = try direct.call(#"{"v":1,"id":1,"op":"query","layout":"feed","epoch":\#(owner.epoch - 1),"items":[[0,0]]}"#, on: socket)
        #expect(!reply.ok)
        let error = try #require(reply["error"] as? [String: Any])
        #expect(error["code"] as? String == "moved")
        let copy = try #require(error["copy"] as? [String: Any])
        #expect(copy["epoch"] as? Int == owner.epoch && copy["version"] as? Int == 1)
    }

    @Test func aReadAheadOfTheCopyIsAnsweredBehind() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        #expect(try direct.call(mosaicJob(key: "feed", count: 10), on: try direct.dealer()).ok)
        let owner = try direct.entry("feed")
        let socket = try direct.dealer(direct.directEndpoints[owner.worker])
        let reply = try direct.call(#"{"v":1,"id":2,"op":"query","layout":"feed","epoch":\#(owner.epoch),"minVersion":2,"items":[[0,0]]}"#, on: socket)
        let error = try #require(reply["error"] as? [String: Any], "\(reply)")
        #expect(error["code"] as? String == "behind")
        #expect(error["path"] as? String == "minVersion")
        #expect((error["copy"] as? [String: Any])?["version"] as? Int == 1)
    }

    @Test func aKeyTheWorkerDoesNotKeepIsAnsweredMoved() throws {
        let direct = try DirectReadCluster(workers: ["direct-0", "direct-1"])
        let front = try direct.dealer()
        #expect(try direct.call(mosaicJob(key: "feed", count: 10), on: front).ok)
        let owner = try direct.entry("feed")
        let other = try #require(direct.directEndpoints.first { $0.key != owner.worker }?.value)
        for endpoint in [other, direct.directEndpoints[owner.worker] ?? ""] {
            let layout = endpoint == other ? "feed" : "nosuch"
            let reply = try direct.call(#"{"v":1,"id":3,"op":"query","layout":"\#(layout)","epoch":\#(owner.epoch),"items":[[0,0]]}"#, on: try direct.dealer(endpoint))
            let error = try #require(reply["error"] as? [String: Any], "\(reply)")
            #expect(error["code"] as? String == "moved", "\(layout): \(reply)")
            #expect(error["copy"] == nil)
        }
        // The broker is who says a key is unknown.
        #expect((try direct.call(#"{"v":1,"op":"query","layout":"nosuch","items":[[0,0]]}"#, on: front)["error"] as? [String: Any])?["code"] as? String == "unknown_layout")
    }

    @Test func changesAndReadsWithoutTheirFieldsAreRefusedOnTheDirectEndpoint() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        let front = try direct.dealer()
        #expect(try direct.call(mosaicJob(key: "feed", count: 10), on: front).ok)
        let owner = try direct.entry("feed")
        let socket = try direct.dealer(direct.directEndpoints[owner.worker])
        let changes = [
            mosaicJob(key: "feed", count: 3),
            #"{"v":1,"op":"update","layout":"feed","updates":[{"delete":[0,0]}]}"#,
            #"{"v":1,"op":"bounds","layout":"feed","bounds":{"width":100,"height":100}}"#,
            #"{"v":1,"op":"diff","layout":"feed","sections":[]}"#,
            #"{"v":1,"op":"drop","layout":"feed"}"#,
            mosaicJob(op: "layout", key: nil, count: 3),
        ]
        for body in changes {
            let error = try #require(try direct.call(body, on: socket)["error"] as? [String: Any])
            #expect(error["code"] as? String == "read_only" && error["path"] as? String == "op", "\(error)")
            #expect((error["message"] as? String)?.contains("broker") == true)
        }
        // Nothing changed: the broker still answers version 1.
        #expect(try direct.call(#"{"v":1,"op":"query","layout":"feed","items":[[0,0]]}"#, on: front).result["version"] as? Int == 1)

        let faults = [
            (#"{"v":1,"op":"query","layout":"feed","items":[[0,0]]}"#, "epoch"),
            (#"{"v":1,"op":"query","layout":"feed","epoch":"x","items":[[0,0]]}"#, "epoch"),
            (#"{"v":1,"op":"query","layout":"feed","epoch":\#(owner.epoch),"minVersion":-1,"items":[[0,0]]}"#, "minVersion"),
            (#"{"v":1,"op":"list","epoch":\#(owner.epoch)}"#, "layout"),
        ]
        for (body, path) in faults {
            let error = try #require(try direct.call(body, on: socket)["error"] as? [String: Any])
            #expect(error["code"] as? String == "invalid_request" && error["path"] as? String == path, "\(body): \(error)")
        }
        #expect(try direct.call(#"{"v":1,"op":"ping"}"#, on: socket).ok)
    }

    @Test func everyChangeReplyNamesTheVersionItMade() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        let front = try direct.dealer()
        let changes: [(String, Int)] = [
            (mosaicJob(key: "feed", count: 4), 1),
            (#"{"v":1,"op":"update","layout":"feed","updates":[{"delete":[0,0]}]}"#, 2),
            (#"{"v":1,"op":"bounds","layout":"feed","bounds":{"width":200,"height":100}}"#, 3),
            (#"{"v":1,"op":"bounds","layout":"feed","bounds":{"width":200,"height":100}}"#, 3),
            (#"{"v":1,"op":"drop","layout":"feed"}"#, 4),
        ]
        for (body, version) in changes {
            let reply = try direct.call(body, on: front)
            #expect(reply.ok && reply.result["version"] as? Int == version, "\(body): \(reply)")
        }
    }

    @Test func aWorkerWhoseBrokerStoppedAnswersMoved() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        #expect(try direct.call(mosaicJob(key: "feed", count: 10), on: try direct.dealer()).ok)
        let owner = try direct.entry("feed")
        let socket = try direct.dealer(direct.directEndpoints[owner.worker])
        let query = #"{"v":1,"op":"query","layout":"feed","epoch":\#(owner.epoch),"items":[[0,0]]}"#
        #expect(try direct.callUntilAnswered(query, on: socket).ok)
        direct.cluster.broker.stop()
        var code: String?
        for _ in 0..<400 where code != "moved" {
            code = (try direct.call(query, on: socket)["error"] as? [String: Any])?["code"] as? String
            if code != "moved" { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(code == "moved")
    }

    private func statsBytes(_ direct: DirectReadCluster) throws -> [UInt8] {
        let socket = try Socket(.req, in: direct.context)
        try socket.set(.receiveTimeout, 5_000)
        try socket.connect(direct.cluster.broker.statsEndpoint)
        _ = try socket.send("stats")
        return try #require(try socket.receiveBytes())
    }
}

/// Keys moving to a worker that joins: the old owner stops answering them directly, the new one answers.
@Suite(.serialized) struct ClusterDirectReadMoveTests {
    @Test func aKeyMovedToAJoiningWorkerIsAnsweredByItsNewOwnerOnly() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        let front = try direct.dealer()
        let keys = (0..<12).map { "m-\($0)" }
        for key in keys { #expect(try direct.call(mosaicJob(key: key, count: 10), on: front).ok) }
        let before = try Dictionary(uniqueKeysWithValues: keys.map { ($0, try direct.entry($0)) })
        try direct.addWorker(named: "direct-1")
        // The table shows the moves once they are settled.
        var moved: [String] = []
        let bound = Date().addingTimeInterval(20)
        while moved.isEmpty || moved.contains(where: { (try? direct.entry($0).worker) != "direct-1" }), Date() < bound {
            moved = keys.filter { (try? direct.entry($0).worker) == "direct-1" }
            Thread.sleep(forTimeInterval: 0.02)
        }
        #expect(!moved.isEmpty, "direct-1 wins some of 12 keys")
        let old = try direct.dealer(direct.directEndpoints["direct-0"])
        let new = try direct.dealer(direct.directEndpoints["direct-1"])
        for key in moved {
            let stale = #"{"v":1,"op":"query","layout":"\#(key)","epoch":\#(before[key]?.epoch ?? 0),"items":[[0,0]]}"#
            #expect((try direct.call(stale, on: old)["error"] as? [String: Any])?["code"] as? String == "moved")
            let now = try direct.entry(key)
            let fresh = #"{"v":1,"op":"query","layout":"\#(key)","epoch":\#(now.epoch),"minVersion":1,"items":[[0,0]]}"#
            let answered = try direct.callUntilAnswered(fresh, on: new)
            #expect(answered.ok && answered.result["version"] as? Int == 1, "\(key): \(answered)")
        }
        let routing = (try TestDaemon.object(try statsBytes(direct))["cluster"] as? [String: Any])?["routing"] as? [String: Any]
        #expect(routing?["fences"] as? Int ?? 0 >= moved.count)
    }

    private func statsBytes(_ direct: DirectReadCluster) throws -> [UInt8] {
        let socket = try Socket(.req, in: direct.context)
        try socket.set(.receiveTimeout, 5_000)
        try socket.connect(direct.cluster.broker.statsEndpoint)
        _ = try socket.send("stats")
        return try #require(try socket.receiveBytes())
    }
}
