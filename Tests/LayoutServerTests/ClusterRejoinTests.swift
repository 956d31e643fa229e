import Foundation
import Testing
import ZeroMQ

/// Copies of a key that meet after a broker restart (issue 14, measured case 1): the newer copy wins,
/// whichever worker rejoins first.
@Suite(.serialized) struct ClusterRejoinTests {
    private static func job(_ key: String?, width: Int, op: String) -> String {
        let layout = key.map { #","layout":"\#($0)""# } ?? ""
        return #"{"id":"\#(op)","op":"\#(op)"\#(layout),"bounds":{"width":\#(width),"height":800},"spec":{"type":"waterfall","columns":2},"sections":[{"heights":[40,90,25,60,70,30]}],"format":"columns"}"#
    }

    @Test func aStaleCopyRejoiningFirstDoesNotRollAcknowledgedChangesBack() throws {
        let fast = ["LAYOUTD_CLUSTER_HEARTBEAT_MILLIS": "200", "LAYOUTD_CLUSTER_LIVENESS": "3"]
        let cluster = try ProcessCluster(workers: 2, brokerEnvironment: fast, workerEnvironment: fast)
        let socket = try cluster.dealer()
        let keys = (0..<20).map { "k\($0)" }
        for key in keys {
            #expect(try cluster.call(Self.job(key, width: 375, op: "prepare"), on: socket)["ok"] as? Bool == true)
        }

        // worker-0 is cut off past its liveness: its keys are rebuilt on worker-1, and every key takes a
        // change there (acknowledged at version 2).
        cluster.signal(worker: "worker-0", SIGSTOP)
        try cluster.waitForWorkers(alive: 1)
        for (index, key) in keys.enumerated() {
            let reply = try cluster.call(#"{"id":"b","op":"bounds","layout":"\#(key)","bounds":{"width":\#(300 + index),"height":800}}"#, on: socket)
            #expect(reply.result["version"] as? Int == 2, "\(key): \(reply)")
        }

        // worker-1 pauses, the broker restarts, and the stale worker-0 rejoins first.
        cluster.signal(worker: "worker-1", SIGSTOP)
        cluster.killBroker()
        try cluster.startBroker()
        cluster.signal(worker: "worker-0", SIGCONT)
        try cluster.waitForWorkers(alive: 1)
        cluster.signal(worker: "worker-1", SIGCONT)
        try cluster.waitForWorkers(alive: 2)

        let fresh = try cluster.dealer()
        var rolledBack: [String] = []
        for (index, key) in keys.enumerated() {
            let query = try cluster.call(#"{"id":"q","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":1000,"height":5000},"format":"columns"}"#, on: fresh)
            let expected = try cluster.call(Self.job(nil, width: 300 + index, op: "layout"), on: fresh)
            let attributes = query.result["attributes"] as? NSDictionary
            if query.result["version"] as? Int != 2 || attributes == nil || attributes != expected.result["attributes"] as? NSDictionary {
                rolledBack.append("\(key): \(query.result["version"] ?? query)")
            }
        }
        #expect(rolledBack.isEmpty, "answered from the stale copy: \(rolledBack)")
        let routing = ((try cluster.brokerStats())["cluster"] as? [String: Any])?["routing"] as? [String: Any]
        #expect((routing?["supersededCopies"] as? Int ?? 0) > 0, "\(routing ?? [:])")
    }

    @Test func aRestartedBrokerWaitsForWorkersBeforeServingTheirKeys() throws {
        // Before: a request on a key whose worker had not registered again went to the rendezvous
        // winner (unknown_layout for a query; a second owner for a prepare).
        let fast = ["LAYOUTD_CLUSTER_HEARTBEAT_MILLIS": "200", "LAYOUTD_CLUSTER_LIVENESS": "3"]
        let cluster = try ProcessCluster(
            workers: 2, brokerEnvironment: fast.merging(["LAYOUTD_CLUSTER_REJOIN_MILLIS": "4000"]) { $1 },
            workerEnvironment: fast.merging(["LAYOUTD_CLUSTER_RECONNECT_MILLIS": "100"]) { $1 }
        )
        let socket = try cluster.dealer()
        let keys = (0..<10).map { "w\($0)" }
        for (index, key) in keys.enumerated() {
            #expect(try cluster.call(Self.job(key, width: 375, op: "prepare"), on: socket)["ok"] as? Bool == true)
            let reply = try cluster.call(#"{"id":"b","op":"bounds","layout":"\#(key)","bounds":{"width":\#(300 + index),"height":800}}"#, on: socket)
            #expect(reply.result["version"] as? Int == 2)
        }

        cluster.killBroker()
        try cluster.startBroker()
        // At once, before either worker has noticed the restart: every key is answered from its own
        // copy once its worker is back, at the version acknowledged.
        let fresh = try cluster.dealer()
        var wrong: [String] = []
        for key in keys {
            let query = try cluster.call(#"{"id":"q","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":1,"height":1}}"#, on: fresh)
            if query.result["version"] as? Int != 2 { wrong.append("\(key): \(query)") }
        }
        #expect(wrong.isEmpty, "\(wrong)")
        let routing = ((try cluster.brokerStats())["cluster"] as? [String: Any])?["routing"] as? [String: Any]
        #expect((routing?["held"] as? Int ?? 0) >= 1, "the first query waited: \(routing ?? [:])")
    }
}
