import Foundation
import Testing
import ZeroMQ

/// A worker's read lease over real processes: a paused broker (SIGSTOP) sends nothing and closes
/// nothing, so only the lapse of the lease it granted can stop the worker's direct reads.
@Suite(.serialized) struct ClusterDirectReadLeaseTests {
    @Test func aWorkerWhoseBrokerIsPausedStopsAnsweringDirectReadsUntilItIsBack() throws {
        // The worker's own silence limit (60 heartbeats) is far beyond the poll's bound: if it stops
        // answering within the bound, it is the broker's lease (2 heartbeats) that lapsed, not the
        // worker giving its broker up.
        let cluster = try ProcessCluster(workers: 1, workerEnvironment: [
            "LAYOUTD_CLUSTER_DIRECT": "tcp://127.0.0.1:*", "LAYOUTD_CLUSTER_LIVENESS": "60",
        ])
        defer { cluster.signalBroker(SIGCONT) }
        #expect(try cluster.call(mosaicJob(key: "feed", count: 10))["ok"] as? Bool == true)
        let table = try #require(try cluster.call(#"{"v":1,"op":"route","layout":"feed"}"#)["result"] as? [String: Any])
        let endpoint = try #require((table["workers"] as? [[String: Any]])?.first?["direct"] as? String)
        let epoch = try #require((table["keys"] as? [[String: Any]])?.first?["epoch"] as? Int)
        let socket = try Socket(.dealer, in: cluster.context)
        try socket.set(.receiveTimeout, 15_000)
        try socket.connect(endpoint)
        let query = #"{"v":1,"op":"query","layout":"feed","epoch":\#(epoch),"items":[[0,0]]}"#
        func code() throws -> String? {
            let reply = try cluster.call(query, on: socket)
            return reply["ok"] as? Bool == true ? "ok" : (reply["error"] as? [String: Any])?["code"] as? String
        }
        // A worker that has just joined answers once its broker's first grant has arrived.
        var seen = try code()
        let joinedBound = Date().addingTimeInterval(20)
        while seen != "ok", Date() < joinedBound {
            Thread.sleep(forTimeInterval: 0.02)
            seen = try code()
        }
        #expect(seen == "ok")

        cluster.signalBroker(SIGSTOP)
        seen = try code()
        let pausedBound = Date().addingTimeInterval(30)
        while seen != "moved", Date() < pausedBound {
            Thread.sleep(forTimeInterval: 0.05)
            seen = try code()
        }
        #expect(seen == "moved", "the lease never lapsed while the broker was paused")

        cluster.signalBroker(SIGCONT)
        let backBound = Date().addingTimeInterval(30)
        while seen != "ok", Date() < backBound {
            Thread.sleep(forTimeInterval: 0.05)
            seen = try code()
        }
        #expect(seen == "ok", "the broker's next grants did not renew the lease")
    }
}
