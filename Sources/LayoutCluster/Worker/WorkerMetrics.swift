import LayoutServer

/// A cluster worker's `metrics` (its stats socket and its HTTP `/metrics`): the single daemon's
/// exposition of its own pool and store, and whether it is joined to its broker.
struct WorkerMetrics: Sendable {
    let stats: ServerStats
    let pool: WorkerPool<ClusterJobHandler>
    let store: LayoutStore
    let membership: WorkerMembership

    func exposition() -> [UInt8] {
        let snapshot = stats.snapshot(pool: pool.usage, store: store.usage)
        let joined = membership.notJoinedReason == nil
        return stats.metrics.exposition(of: snapshot, process: ProcessUsage.current()) { series in
            // As `/readyz` sees it: READY sent on the current connection, the broker heard within liveness.
            series.set("layoutd_cluster_worker_connected", joined ? 1 : 0)
        }
    }
}
