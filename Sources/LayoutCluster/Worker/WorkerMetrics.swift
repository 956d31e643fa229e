import Dispatch
import LayoutServer

/// A cluster worker's `metrics` (its stats socket and its HTTP `/metrics`): the single daemon's
/// exposition of its own pool and store, whether it is joined to its broker, and with a direct endpoint
/// how it answered direct reads and how its read leases ended.
struct WorkerMetrics: Sendable {
    let stats: ServerStats
    let pool: WorkerPool<ClusterJobHandler>
    let store: LayoutStore
    let membership: WorkerMembership
    /// The direct endpoint's lease and counts; nil without one (and then no `layoutd_direct_*` series).
    var direct: (lease: ReadLease, counters: DirectReadCounters)?

    init(stats: ServerStats, pool: WorkerPool<ClusterJobHandler>, store: LayoutStore, membership: WorkerMembership) {
        self.stats = stats
        self.pool = pool
        self.store = store
        self.membership = membership
    }

    func exposition() -> [UInt8] {
        let snapshot = stats.snapshot(pool: pool.usage, store: store.usage)
        let joined = membership.notJoinedReason == nil
        let tally = direct.map { $0.counters.tally(lease: $0.lease) }
        let leaseHolds = direct?.lease.holdsNow ?? false
        return stats.metrics.exposition(of: snapshot, process: ProcessUsage.current()) { series in
            // As `/readyz` sees it: READY sent on the current connection, the broker heard within liveness.
            series.set("layoutd_cluster_worker_connected", joined ? 1 : 0)
            guard let tally else { return }
            series.advance("layoutd_direct_reads_total", to: tally.reads)
            // Every reason, at 0 too: a rate over the family sees each series from the start.
            for reason in DirectReadTally.MovedReason.allCases {
                series.advance("layoutd_direct_moved_total", ["reason": reason.rawValue], to: tally.movedBy[reason] ?? 0)
            }
            series.advance("layoutd_direct_behind_total", to: tally.behind)
            series.advance("layoutd_direct_read_only_total", to: tally.readOnly)
            series.set("layoutd_direct_lease_holds", leaseHolds ? 1 : 0)
            series.advance("layoutd_direct_lease_expiries_total", to: tally.leaseExpiries)
            series.advance("layoutd_direct_lease_revocations_total", to: tally.leaseRevocations)
        }
    }
}
