import Foundation
import LayoutTestKit
import Testing
import ZeroMQ

/// Issue 14, defect 5: one TCP drop was an instant death, every key of the worker replayed elsewhere,
/// then moved back when it rejoined (two rebuilds per key per blip). A worker whose connection to the
/// broker drops now joins again at once, and the broker keeps its keys for it for
/// `cluster.dropGraceMillis`: a drop healed within that moves no key. With no grace (0), the same drop
/// rebuilds the worker's keys elsewhere, which shows what the grace saves.
@Suite(.serialized) struct ConnectionDropTests {
    private static let keys = 16

    @Test(arguments: [true, false]) func aConnectionDropHealedAtOnceMovesNoKey(withGrace: Bool) throws {
        let cluster = try ProcessCluster(workers: 1, brokerEnvironment: [
            "LAYOUTD_CLUSTER_DROP_GRACE_MILLIS": withGrace ? "10000" : "0",
        ])
        let backPort = try #require(Int(cluster.back.split(separator: ":").last ?? ""))
        let relay = try TCPRelay(to: backPort)
        defer { relay.stop() }
        try cluster.startWorker("relayed", through: relay.endpoint)
        try cluster.waitForWorkers(alive: 2)

        let dealer = try cluster.dealer()
        var answers: [String: [UInt8]] = [:]
        for index in 0..<Self.keys {
            let key = "drop-\(index)"
            #expect(try cluster.call(prepareBody(key), on: dealer).ok)
            #expect(try cluster.call(updateBody(key), on: dealer).ok)
            answers[key] = try cluster.callBytes(queryBody(key), on: dealer)
        }
        let relayedKeys = try #require(try cluster.workerStates().first { $0.name == "relayed" }?.keys)
        try #require(relayedKeys > 0, "the relayed worker won none of \(Self.keys) keys")
        let before = try routing(cluster)

        relay.cut()

        // The drop is seen, and the worker is back on a new connection.
        try poll("the drop seen and the worker back", state: { "\(try routing(cluster)) \(try cluster.workerStates())" }) {
            let routing = try routing(cluster)
            let states = try cluster.workerStates()
            return (routing["connectionsDropped"] ?? 0) > (before["connectionsDropped"] ?? 0)
                && states.contains { $0.name == "relayed" && $0.state == "alive" }
                && states.filter { $0.state == "alive" }.map(\.keys).reduce(0, +) == Self.keys
        }
        if withGrace {
            try poll("its keys taken back", state: { "\(try routing(cluster))" }) { (try routing(cluster)["keysKeptThroughDrops"] ?? 0) == relayedKeys }
        }
        // Every key answers as before the drop: same version, same frames.
        for (key, answer) in answers {
            #expect(try cluster.callBytes(queryBody(key), on: dealer) == answer, "\(key)")
        }
        let after = try routing(cluster)
        let rebuilds = (after["restores"] ?? 0) - (before["restores"] ?? 0)
        if withGrace {
            #expect(rebuilds == 0, "no key rebuilt: \(after)")
            #expect(after["moves"] == before["moves"])
            #expect(after["standbysUsed"] == 0)
            #expect(try cluster.workerStates().first { $0.name == "relayed" && $0.state == "alive" }?.keys == relayedKeys)
            // The standby copies rebuilt on the other worker while the keys waited are released: each
            // worker keeps its own keys alone.
            try poll("the standby copies released", state: { "\(try layoutsAndKeys(cluster))" }) {
                try layoutsAndKeys(cluster).allSatisfy { $0.layouts == $0.keys }
            }
        } else {
            #expect(rebuilds >= relayedKeys, "without a grace, the worker's keys are rebuilt elsewhere: \(after)")
        }
    }

    /// Each live worker's layouts (from its heartbeat) and keys (the broker's table).
    private func layoutsAndKeys(_ cluster: ProcessCluster) throws -> [(layouts: Int, keys: Int)] {
        let workers = ((try cluster.brokerStats()["cluster"] as? [String: Any])?["workers"] as? [[String: Any]]) ?? []
        return workers.filter { $0["state"] as? String == "alive" }.map { ($0["layouts"] as? Int ?? -1, $0["keys"] as? Int ?? -2) }
    }

    private func routing(_ cluster: ProcessCluster) throws -> [String: Int] {
        let cluster = try cluster.brokerStats()["cluster"] as? [String: Any]
        return (cluster?["routing"] as? [String: Any])?.compactMapValues { $0 as? Int } ?? [:]
    }

    /// Polls `condition` every 20 ms for up to 30 s; `state` says what was seen last when it fails.
    private func poll(_ what: String, state: () throws -> String = { "" }, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if (try? condition()) == true { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        throw TestFailure("never: \(what); \((try? state()) ?? "")")
    }

    private func prepareBody(_ key: String) -> String {
        #"{"v":1,"id":"p","op":"prepare","layout":"\#(key)","bounds":{"width":320,"height":600},"spec":{"type":"waterfall","columns":2},"sections":[{"heights":[40,80,60,20,90,30,70,50]}]}"#
    }

    private func updateBody(_ key: String) -> String {
        #"{"v":1,"id":"u","op":"update","layout":"\#(key)","updates":[{"insert":[0,0],"item":{"height":45}}]}"#
    }

    private func queryBody(_ key: String) -> String {
        #"{"v":1,"id":"q","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":320,"height":100000}}"#
    }
}
