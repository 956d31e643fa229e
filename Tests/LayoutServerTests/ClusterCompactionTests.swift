import Foundation
import LayoutTestKit
import Testing
import ZeroMQ

/// Recipe compaction in a cluster of real `layoutd` processes: a key changed many times has its recipe
/// replaced by snapshots of its layout, and when its worker is killed it is rebuilt from the compacted
/// recipe on the other worker, frames and version unchanged.
@Suite(.serialized) struct ClusterCompactionTests {
    private static let items = 2000

    private static func prepareBody(_ key: String) -> String {
        let ids = (0..<items).map { "\"i\($0)\"" }.joined(separator: ",")
        let heights = (0..<items).map { String(20 + ($0 * 7) % 31) }.joined(separator: ",")
        return #"{"v":1,"id":"p","op":"prepare","layout":"\#(key)","bounds":{"width":390,"height":800},"spec":{"type":"waterfall","columns":3,"cellPadding":4},"sections":[{"ids":[\#(ids)],"heights":[\#(heights)]}]}"#
    }

    /// A reload of one item's height: a change that does not grow the layout, in a body made long by
    /// its request id (so the recipe grows much faster than the layout's snapshot).
    private static func reloadBody(_ key: String, step: Int) -> String {
        let id = "reload-\(step)-" + String(repeating: "x", count: 160)
        return #"{"v":1,"id":"\#(id)","op":"update","layout":"\#(key)","updates":[{"reload":[0,\#((step * 37) % items)],"item":{"height":\#(10 + step % 50)}}]}"#
    }

    private func routing(_ cluster: ProcessCluster) throws -> [String: Int] {
        try #require((try cluster.brokerStats()["cluster"] as? [String: Any])?["routing"] as? [String: Int])
    }

    private func recipeBytes(_ cluster: ProcessCluster) throws -> Int {
        try #require(((try cluster.brokerStats()["cluster"] as? [String: Any])?["recipes"] as? [String: Any])?["bytes"] as? Int)
    }

    /// Polls the broker's routing counters until `snapshots` reaches `count` (a snapshot's answer arrives
    /// after the reply to the change that asked for it).
    private func waitForSnapshots(_ count: Int, in cluster: ProcessCluster) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try routing(cluster)["snapshots"] ?? 0 >= count { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw TestFailure("fewer than \(count) snapshots taken: \(try routing(cluster))")
    }

    @Test func aKeyChangedManyTimesIsCompactedAndSurvivesItsWorkersDeath() throws {
        let cluster = try ProcessCluster(workers: 2, brokerEnvironment: [
            "LAYOUTD_CLUSTER_COMPACT_AFTER_CHANGES": "40", "LAYOUTD_CLUSTER_COMPACT_AFTER_BYTES": "0",
        ])
        let key = "compacted-feed"
        let dealer = try cluster.dealer()
        let prepare = Self.prepareBody(key)
        #expect(try cluster.call(prepare, on: dealer).ok)
        var sent = prepare.utf8.count
        for step in 0..<40 {
            let body = Self.reloadBody(key, step: step)
            #expect(try cluster.call(body, on: dealer).ok)
            sent += body.utf8.count
        }
        // The prepare and 40 changes: due at the next one.
        let uncompacted = try recipeBytes(cluster)
        #expect(uncompacted == sent)
        #expect(try routing(cluster)["snapshots"] == 0)
        let next = Self.reloadBody(key, step: 40)
        #expect(try cluster.call(next, on: dealer).ok)
        try waitForSnapshots(1, in: cluster)
        let compacted = try recipeBytes(cluster)
        #expect(compacted < uncompacted, "recipe bytes \(uncompacted) → \(compacted)")

        sent += next.utf8.count
        for step in 41..<100 {
            let body = Self.reloadBody(key, step: step)
            #expect(try cluster.call(body, on: dealer).ok)
            sent += body.utf8.count
        }
        try waitForSnapshots(2, in: cluster)
        let query = #"{"v":1,"id":"q","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":1000,"height":1000000}}"#
        let before = try cluster.callBytes(query, on: dealer)
        #expect(try TestDaemon.object(before).result["version"] as? Int == 101)
        // Bounded: never more than the prepare and the 40 changes that make it due.
        let kept = try recipeBytes(cluster)
        #expect(kept < uncompacted, "the prepare and 100 changes, \(sent) bytes in all, kept in \(kept)")

        let owner = try #require(try cluster.workerStates().first { $0.keys == 1 }?.name)
        cluster.signal(worker: owner, SIGKILL)
        let deadline = Date().addingTimeInterval(10)
        while try !cluster.workerStates().contains(where: { $0.name == owner && $0.state == "dead" }), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        let after = try cluster.callBytes(query, on: try cluster.dealer())
        #expect(after == before, "the key's frames and version on its new owner")
        let following = try cluster.call(Self.reloadBody(key, step: 100), on: dealer)
        #expect(following.ok && following.result["version"] as? Int == 102)

        let counters = try routing(cluster)
        #expect(counters["restores"] ?? 0 >= 1 && counters["lost"] == 0 && counters["restoreFailures"] == 0, "\(counters)")
        #expect(try cluster.workerStates().first { $0.state == "alive" }?.keys == 1)
        let metrics = try PrometheusText(text: try cluster.brokerMetrics())
        #expect(metrics.value("layoutd_cluster_snapshots_total") ?? 0 >= 2)
        #expect(metrics.value("layoutd_cluster_snapshot_failures_total") == 0)
    }
}
