import Foundation
import LayoutTestKit
import Testing
import ZeroMQ

/// Issue 14, defect 3, with real processes: a worker's store evicts under `store.maxBytes`, and tells the
/// broker on its own connection (EVICTED) which layouts it pushed out, so the broker drops their recipes
/// (no rebuild of a layout its client was told is gone) and believes no other worker about them.
@Suite(.serialized) struct ClusterEvictionTests {
    @Test func aWorkersEvictionsReachTheBrokerFromTheOwnerAlone() throws {
        let cluster = try ProcessCluster(workers: 1, workerEnvironment: ["LAYOUTD_STORE_MAX_BYTES": String(2 << 20)])
        try cluster.waitForWorkers(alive: 1)
        let dealer = try cluster.dealer()
        // Layouts of a few hundred KB each until the store's bound pushes the first ones out.
        var prepared = 0
        while prepared < 40, (try routing(cluster)["evictions"] ?? 0) == 0 {
            #expect(try cluster.call(prepareBody("wall-\(prepared)"), on: dealer).ok)
            prepared += 1
        }
        let seen = try routing(cluster)
        try #require(prepared < 40, "no eviction after \(prepared) layouts: \(seen)")
        // Each eviction was reported by the key's owner and taken: the broker keeps exactly the recipes of
        // the layouts still kept.
        try poll("every recipe of an evicted layout dropped") {
            let kept = try cluster.workerStates().map(\.keys).reduce(0, +)
            let recipes = ((try cluster.brokerStats()["cluster"] as? [String: Any])?["recipes"] as? [String: Any])?["count"] as? Int
            let evictions = try routing(cluster)["evictions"] ?? 0
            return evictions > 0 && recipes == prepared - evictions && kept == prepared
        }
        #expect(try routing(cluster)["staleEvictions"] == 0)
        // The first layout went first (least recently used), and answers as gone.
        let reply = try cluster.call(#"{"v":1,"id":"q","op":"query","layout":"wall-0","rect":{"x":0,"y":0,"width":320,"height":100}}"#, on: dealer)
        #expect((reply["error"] as? [String: Any])?["code"] as? String == "unknown_layout")
    }

    private func routing(_ cluster: ProcessCluster) throws -> [String: Int] {
        let cluster = try cluster.brokerStats()["cluster"] as? [String: Any]
        return (cluster?["routing"] as? [String: Any])?.compactMapValues { $0 as? Int } ?? [:]
    }

    /// Polls `condition` every 20 ms for up to 30 s.
    private func poll(_ what: String, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if (try? condition()) == true { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw TestFailure("never: \(what)")
    }

    private func prepareBody(_ key: String) -> String {
        let heights = (0..<4000).map { String(40 + $0 % 90) }.joined(separator: ",")
        return #"{"v":1,"id":"p","op":"prepare","layout":"\#(key)","bounds":{"width":320,"height":600},"spec":{"type":"waterfall","columns":2},"sections":[{"heights":[\#(heights)]}]}"#
    }
}
