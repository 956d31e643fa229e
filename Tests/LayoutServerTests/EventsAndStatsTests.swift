import Foundation
import Testing
import ZeroMQ
@testable import LayoutServer

@Suite(.serialized) struct EventsAndStatsTests {
    /// Subscribes and waits until the daemon has seen the subscription (XPUB reports it in stats),
    /// so that no event is lost to ZeroMQ's slow-joiner window.
    private func subscribe(_ daemon: TestDaemon, _ prefixes: String...) throws -> Socket {
        let socket = try Socket(.sub, in: daemon.context)
        try socket.set(.receiveTimeout, 5_000)
        for prefix in prefixes { try socket.subscribe(prefix) }
        try socket.connect(daemon.running.eventsEndpoint)
        for _ in 0..<200 {
            if (try daemon.stats()["subscribers"] as? Int ?? 0) >= prefixes.count { return socket }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw TestFailure("subscription never reached the daemon")
    }

    @Test(arguments: Topology.all) func subscriberSeesConsecutiveVersionsForEveryChange(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let subscriber = try subscribe(daemon, "invalidated:feed")
        #expect(try daemon.call(mosaicJob(key: "feed")).ok)          // v1: no event
        #expect(try daemon.call(mosaicJob(key: "feed")).ok)          // v2: replaced
        #expect(try daemon.call(#"{"v":1,"id":"b","op":"bounds","layout":"feed","bounds":{"width":400,"height":800}}"#).ok) // v3
        #expect(try daemon.call(#"{"v":1,"id":"b","op":"bounds","layout":"feed","bounds":{"width":400,"height":900}}"#).ok) // v4: height only still a size change
        #expect(try daemon.call(#"{"v":1,"id":"d","op":"drop","layout":"feed"}"#).ok)  // v5
        #expect(try daemon.call(mosaicJob(key: "feed")).ok)          // v6: replaced (after a drop)
        var seen: [(String, Int, String)] = []
        for _ in 0..<5 {
            let event = try TestDaemon.nextEvent(subscriber)
            #expect(event.topic == "invalidated:feed")
            #expect(event.body["event"] as? String == "invalidated")
            #expect(event.body["layout"] as? String == "feed")
            seen.append((event.topic, event.body["version"] as? Int ?? -1, event.body["reason"] as? String ?? ""))
        }
        #expect(seen.map(\.1) == [2, 3, 4, 5, 6])
        #expect(seen.map(\.2) == ["replaced", "bounds", "bounds", "dropped", "replaced"])
    }

    @Test(arguments: Topology.oneStore) func evictionPublishesEvictedForTheLeastRecentlyUsed(_ topology: Topology) throws {
        // Room for about two 1000-item mosaics (~33 KB each with index and bookkeeping).
        let daemon = try TestDaemon(topology) { $0.storeCapacityBytes = 80_000 }
        let subscriber = try subscribe(daemon, "invalidated:")
        #expect(try daemon.call(mosaicJob(key: "a", count: 1000)).ok)
        #expect(try daemon.call(mosaicJob(key: "b", count: 1000)).ok)
        #expect(try daemon.call(#"{"v":1,"id":"q","op":"query","layout":"a","items":[[0,0]]}"#).ok)  // a is now more recent than b
        #expect(try daemon.call(mosaicJob(key: "c", count: 1000)).ok)
        let event = try TestDaemon.nextEvent(subscriber)
        #expect(event.topic == "invalidated:b")
        #expect(event.body["reason"] as? String == "evicted")
        #expect(try daemon.call(#"{"v":1,"id":"q","op":"query","layout":"b","items":[[0,0]]}"#).errorCode == "unknown_layout")
        #expect(try daemon.call(#"{"v":1,"id":"q","op":"query","layout":"a","items":[[0,0]]}"#).ok)
    }

    @Test func statsCountsRiseWithTraffic() throws {
        let daemon = try TestDaemon()
        let before = try daemon.stats()
        for _ in 0..<3 { #expect(try daemon.call(#"{"v":1,"id":1,"op":"ping"}"#).ok) }
        #expect(try daemon.call(mosaicJob(key: "s", count: 100)).ok)
        #expect(try daemon.call("garbage").errorCode == "invalid_json")
        let after = try daemon.stats()
        let pings = { (s: [String: Any]) in (s["requests"] as? [String: Int])?["ping"] ?? 0 }
        #expect(pings(after) == pings(before) + 3)
        #expect((after["errors"] as? [String: Int])?["invalid_json"] == 1)
        #expect(after["itemsPrepared"] as? Int == 100)
        #expect((after["layouts"] as? [String: Any])?["count"] as? Int == 1)
        #expect((after["workers"] as? [String: Any])?["threads"] as? Int == 2)
        let latency = try #require((after["latencyMicros"] as? [String: Any])?["ping"] as? [String: Any])
        #expect((latency["p50"] as? Int ?? -1) >= 0 && (latency["max"] as? Int ?? -1) >= (latency["p50"] as? Int ?? 0))
        let metrics = try daemon.metrics()
        #expect(metrics.contains("layoutd_requests_total{op=\"ping\"} 3"))
        #expect(metrics.contains("# TYPE layoutd_latency_microseconds gauge"))
    }
}
