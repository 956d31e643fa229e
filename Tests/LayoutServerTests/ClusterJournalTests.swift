import Foundation
import LayoutTestKit
import Testing
import ZeroMQ

/// A broker with a journal (issue 15, the measured case): killed and restarted, then a worker killed,
/// and every key still answers at its acknowledged version with the same frames, rebuilt from the
/// recipes the journal kept. Without a journal the restarted broker had no recipes, and the dead
/// worker's keys answered `unknown_layout`.
@Suite(.serialized) struct ClusterJournalTests {
    private static func prepare(_ key: String, _ index: Int) -> String {
        let heights = (0..<30).map { String(20 + ($0 * 17 + index) % 90) }.joined(separator: ",")
        return #"{"op":"prepare","layout":"\#(key)","bounds":{"width":375,"height":800},"spec":{"type":"waterfall","columns":2},"sections":[{"count":30,"heights":[\#(heights)]}]}"#
    }

    private static func query(_ key: String) -> String {
        #"{"op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":1000,"height":100000}}"#
    }

    /// The journal each run keeps: an SQLite file, or a real PostgreSQL server started for the test.
    enum Backend: String, CaseIterable, Sendable {
        case sqlite
        case postgres
    }

    @Test(arguments: Backend.allCases)
    func aRestartedBrokerThenAWorkersDeathLosesNoAcknowledgedChange(backend: Backend) throws {
        let folder = TemporaryFolder("layoutd-broker-journal")
        let postgres = backend == .postgres ? try PostgresServer() : nil
        let settings = [
            "LAYOUTD_CLUSTER_HEARTBEAT_MILLIS": "200", "LAYOUTD_CLUSTER_LIVENESS": "3",
            "LAYOUTD_JOURNAL_URL": postgres?.url ?? folder.journalURL, "LAYOUTD_JOURNAL_DURABILITY": "sync",
            // A restarted broker with a PostgreSQL journal takes the lease again once the dead one's lapses.
            "LAYOUTD_CLUSTER_LEASE_MILLIS": "600",
        ]
        let cluster = try ProcessCluster(workers: 3, brokerEnvironment: settings, workerEnvironment: ["LAYOUTD_CLUSTER_HEARTBEAT_MILLIS": "200", "LAYOUTD_CLUSTER_LIVENESS": "3"])
        let socket = try cluster.dealer()
        let keys = (0..<20).map { "k\($0)" }
        var before: [String: (Int?, NSArray?)] = [:]
        for (index, key) in keys.enumerated() {
            #expect(try cluster.call(Self.prepare(key, index), on: socket).ok)
            #expect(try cluster.call(#"{"op":"update","layout":"\#(key)","updates":[{"insert":[0,0],"item":{"height":\#(30 + index)}}]}"#, on: socket).ok)
            #expect(try cluster.call(#"{"op":"bounds","layout":"\#(key)","bounds":{"width":\#(320 + index),"height":800}}"#, on: socket).ok)
            let answer = try cluster.call(Self.query(key), on: socket).result
            before[key] = (answer["version"] as? Int, answer["attributes"] as? NSArray)
        }

        // Every acknowledged change is in the broker's journal, as its stats say.
        let journal = try cluster.brokerStats()["journal"] as? [String: Any] ?? [:]
        #expect(journal["records"] as? Int == 60 && journal["writable"] as? Bool == true && journal["keys"] as? Int == 20, "\(journal)")

        cluster.killBroker()
        try cluster.startBroker()
        try cluster.waitForWorkers(alive: 3)
        cluster.signal(worker: "worker-1", SIGKILL)
        try cluster.waitForWorkers(alive: 2)

        let fresh = try cluster.dealer()
        var wrong: [String] = []
        for key in keys {
            let reply = try cluster.call(Self.query(key), on: fresh)
            let result = reply.result
            if result["version"] as? Int != 3 || result["version"] as? Int != before[key]?.0 || result["attributes"] as? NSArray != before[key]?.1 {
                wrong.append("\(key): \(result["version"] ?? reply)")
            }
        }
        #expect(wrong.isEmpty, "lost or changed after the broker restart and the worker's death: \(wrong)")
    }

    @Test func aChangeTheJournalCouldNotWriteDoesNotBreakTheKeysRecipeAfterwards() throws {
        let folder = TemporaryFolder("layoutd-broker-full")
        let fast = ["LAYOUTD_CLUSTER_HEARTBEAT_MILLIS": "200", "LAYOUTD_CLUSTER_LIVENESS": "3"]
        let settings = fast.merging(["LAYOUTD_JOURNAL_URL": folder.journalURL, "LAYOUTD_JOURNAL_DURABILITY": "sync"]) { $1 }
        let cluster = try ProcessCluster(workers: 2, brokerEnvironment: settings, workerEnvironment: fast, brokerFileSizeLimit: 400_000)
        let socket = try cluster.dealer()
        #expect(try cluster.call(Self.prepare("k", 0), on: socket).ok)
        // Changes until the broker's journal is full: that change is made on its worker, not acknowledged.
        var refused = false
        var index = 0
        while !refused && index < 5_000 {
            index += 1
            let reply = try cluster.call(#"{"op":"update","layout":"k","updates":[{"insert":[0,0],"item":{"height":\#(10 + index % 50)}}]}"#, on: socket)
            refused = !reply.ok
            if refused { #expect("\(reply["error"] ?? "")".contains("journal"), "\(reply)") }
        }
        #expect(refused, "the journal never filled")
        // Room again; the next change is acknowledged, and the key's recipe must be whole in the journal.
        try cluster.raiseBrokerFileSizeLimit()
        var acknowledged: [String: Any]?
        for attempt in 0..<200 where acknowledged == nil {
            let reply = try cluster.call(#"{"op":"update","layout":"k","updates":[{"delete":[0,\#(attempt % 5)]}]}"#, on: socket)
            if reply.ok { acknowledged = reply.result } else { Thread.sleep(forTimeInterval: 0.05) }
        }
        let version = try #require(acknowledged?["version"] as? Int)
        let before = try cluster.call(Self.query("k"), on: socket).result

        // The broker restarts from its journal, then the key's worker dies: rebuilt from the journaled recipe.
        cluster.killBroker()
        try cluster.startBroker()
        try cluster.waitForWorkers(alive: 2)
        let owner = try #require(try cluster.workerStates().first { $0.keys > 0 }?.name)
        cluster.signal(worker: owner, SIGKILL)
        try cluster.waitForWorkers(alive: 1)
        let after = try cluster.call(Self.query("k"), on: try cluster.dealer())
        #expect(after.result["version"] as? Int == version, "\(after)")
        #expect(after.result["attributes"] as? NSArray == before["attributes"] as? NSArray)
    }
}
