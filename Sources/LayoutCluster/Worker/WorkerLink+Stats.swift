import LayoutServer

/// The worker's own stats socket (`cluster.workerStats`): the single daemon's answer for this worker's
/// pool and store, and `cluster` (PROTOCOL.md §8).
extension WorkerLink {
    func answerStats() -> Bool {
        guard let statsSocket else { return false }
        return statsSocket.answerWaiting { kind in
            switch kind {
            case .stats:
                var object = stats.snapshot(pool: pool.usage, store: store.usage).jsonObject
                object["cluster"] = clusterReport.jsonObject
                return StatsSnapshot.serialize(object)
            case .metrics:
                var metrics = WorkerMetrics(stats: stats, pool: pool, store: store, membership: membership)
                if let lease, let directCounters { metrics.direct = (lease, directCounters) }
                return metrics.exposition()
            }
        }
    }

    /// This worker's `cluster` member, as it stands now.
    private var clusterReport: WorkerClusterReport {
        var report = WorkerClusterReport(id: workerID, broker: currentBroker, connected: dealer != nil)
        if let lease, let directCounters, let directEndpoint {
            report.direct = .init(tally: directCounters.tally(lease: lease), endpoint: directEndpoint, leaseHolds: lease.holds(at: now()))
        }
        return report
    }
}

/// A worker's `cluster` stats member: who it is, which broker it joins, and its direct endpoint's counts.
struct WorkerClusterReport {
    struct Direct {
        var tally: DirectReadTally
        var endpoint: String
        var leaseHolds: Bool
    }

    var id: String
    var broker: String
    var connected: Bool
    var direct: Direct?

    /// As JSON: `{"role": "worker", "id", "broker", "connected", "direct"?}`.
    var jsonObject: [String: Any] {
        var object: [String: Any] = ["role": "worker", "id": id, "broker": broker, "connected": connected]
        if let direct {
            var counts = direct.tally.jsonObject
            counts["endpoint"] = direct.endpoint
            counts["leaseHolds"] = direct.leaseHolds
            object["direct"] = counts
        }
        return object
    }
}
