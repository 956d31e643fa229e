import LayoutClient
import Testing
@testable import layoutctl

/// `layoutctl stats` against a broker shows the cluster (issue 14), not only the single daemon's summary.
struct ClusterSummaryTests {
    private static var brokerStats: [String: Any] { [
        "uptimeSeconds": 12.0, "workers": ["busy": 1, "threads": 4], "inFlight": 2, "queued": 0,
        "requests": ["prepare": 6], "errors": [:], "layouts": ["count": 6, "bytes": 4096], "itemsPrepared": 60,
        "eventsPublished": 0, "subscribers": 0,
        "cluster": [
            "role": "broker", "epoch": 1_764_000_000_001,
            "workers": [
                ["id": "w1", "state": "dead", "keys": 0, "layouts": 0, "layoutBytes": 0, "inFlight": 0, "busy": 0, "threads": 2,
                 "restoresInFlight": 0, "restoresQueued": 0, "lastHeartbeatAgeSeconds": 9.04],
                ["id": "w0", "state": "alive", "keys": 6, "layouts": 6, "layoutBytes": 4096, "inFlight": 2, "busy": 1, "threads": 2,
                 "restoresInFlight": 1, "restoresQueued": 3, "lastHeartbeatAgeSeconds": 0.25],
            ],
            "totals": ["workers": 2, "alive": 1, "keys": 6],
            "routing": ["keyed": 6, "stateless": 0, "lists": 0, "held": 1, "retried": 0, "unavailable": 1, "busy": 0,
                        "restores": 3, "restoreFailures": 0, "seeds": 0, "moves": 0, "lost": 2, "released": 0,
                        "supersededCopies": 4, "workersJoined": 2, "workersDied": 1, "epochAdvances": 1, "snapshots": 0, "snapshotFailures": 0],
            "recipes": ["count": 4, "bytes": 2048, "capacityBytes": 1_073_741_824, "evicted": 0, "dropped": 1],
            "keysInMotion": 3, "waiting": 1, "brokerThreadCPUSeconds": 0.5,
        ],
    ] }

    @Test func aBrokersStatsShowEachWorkerAndEveryWayAKeyMoved() {
        let lines = StatsSummary.lines(AnyJSONObject(Self.brokerStats))
        let text = lines.joined(separator: "\n")
        #expect(text.contains("cluster: 1/2 workers alive, 6 keys, 3 in motion, 1 requests waiting"), "\(text)")
        #expect(text.contains("recipes: 4, 2.0 KiB of 1.0 GiB, 0 evicted, 1 dropped"))
        let w0 = lines.first { $0.hasPrefix("w0") }?.split(separator: " ").map(String.init)
        #expect(w0 == ["w0", "alive", "6", "6", "4.0", "KiB", "2", "1/2", "1", "+", "3", "0.3s", "ago"], "\(lines)")
        #expect(lines.firstIndex { $0.hasPrefix("w0") } ?? 0 < lines.firstIndex { $0.hasPrefix("w1") } ?? 0, "workers by id")
        #expect(text.contains("lost 2"))
        #expect(text.contains("superseded 4"))
        #expect(text.contains("broker answered: unavailable 1, busy 0; workers joined 2, died 1; epoch 1764000000001, advanced 1"), "\(text)")
    }

    @Test func aBrokersStatsShowEachWorkersDirectReadsWhenOneHasThem() throws {
        var stats = Self.brokerStats
        var cluster = try #require(stats["cluster"] as? [String: Any])
        var workers = try #require(cluster["workers"] as? [[String: Any]])
        workers[1]["direct"] = [
            "reads": 1200, "moved": 7, "movedBy": ["notKept": 1, "epoch": 4, "fenced": 0, "lease": 2, "namespace": 0],
            "behind": 3, "readOnly": 1, "leaseExpiries": 2, "leaseRevocations": 1,
        ]
        cluster["workers"] = workers
        stats["cluster"] = cluster
        let lines = StatsSummary.lines(AnyJSONObject(stats))
        let header = lines.first { $0.hasPrefix("worker ") }?.split(separator: " ").map(String.init) ?? []
        #expect(header.suffix(6) == ["direct", "reads", "moved", "behind", "lease", "lapses"], "\(lines)")
        let w0 = lines.first { $0.hasPrefix("w0") }?.split(separator: " ").map(String.init)
        #expect(w0?.suffix(4) == ["1200", "7", "3", "2"], "\(lines)")
        // A worker that counts none (no direct endpoint, or an older worker) shows dashes.
        let w1 = lines.first { $0.hasPrefix("w1") }?.split(separator: " ").map(String.init)
        #expect(w1?.suffix(4) == ["-", "-", "-", "-"], "\(lines)")
        // Without any, the table is as before.
        #expect(!StatsSummary.lines(AnyJSONObject(Self.brokerStats)).contains { $0.contains("direct reads") })
    }

    @Test func aWorkersOwnStatsShowItsBrokerAndDirectReads() {
        var stats = Self.brokerStats
        stats["cluster"] = [
            "role": "worker", "id": "w0", "broker": "tcp://10.0.0.1:5560", "connected": true,
            "direct": [
                "endpoint": "tcp://10.0.0.5:5570", "reads": 1200, "moved": 7,
                "movedBy": ["notKept": 1, "epoch": 4, "fenced": 0, "lease": 2, "namespace": 0],
                "behind": 3, "readOnly": 1, "leaseHolds": true, "leaseExpiries": 2, "leaseRevocations": 1,
            ] as [String: Any],
        ] as [String: Any]
        let text = StatsSummary.lines(AnyJSONObject(stats)).joined(separator: "\n")
        #expect(text.contains("worker w0: broker tcp://10.0.0.1:5560, connected"), "\(text)")
        #expect(text.contains("direct reads at tcp://10.0.0.5:5570: 1200 answered, 7 moved (epoch 4, lease 2, notKept 1), 3 behind, 1 read-only"), "\(text)")
        #expect(text.contains("read lease: holds; lapsed 2, revoked 1"), "\(text)")
        #expect(!text.contains("cluster:"), "a worker's stats have no cluster summary")
    }

    @Test func aSingleDaemonsStatsHaveNoClusterLines() {
        var stats = Self.brokerStats
        stats["cluster"] = nil
        #expect(!StatsSummary.lines(AnyJSONObject(stats)).contains { $0.hasPrefix("cluster:") })
    }
}
