import LayoutServer

/// The broker's own series in its `metrics` (stats socket and HTTP `/metrics`), written beside the
/// single daemon's into the registry of the broker's `ServerStats` when a scrape asks: routing counters,
/// recipes, totals, and per worker a `worker`-labelled set.
///
/// Used on the broker's I/O thread only, like the `BrokerCore` it reads.
final class ClusterMetrics {
    /// Workers whose series are in the registry: id → the registration (`WorkerRecord.number`) they show.
    private var exported: [String: Int] = [:]

    /// Brings the cluster's series up to date with `core`: a worker the broker no longer lists loses its
    /// series, and one that registered again under the same id starts afresh (its counters from 0).
    func write(_ core: BrokerCore, now: Nanos, into series: inout ScrapedSeries) {
        let shown = Self.oneRecordPerID(core.workers)
        for (id, number) in exported where shown[id]?.number != number {
            series.remove(label: "worker", value: id)
        }
        exported = shown.mapValues(\.number)
        for (id, worker) in shown {
            let label: KeyValuePairs<String, String> = ["worker": id]
            series.set("layoutd_worker_alive", worker.isConnected ? 1 : 0, label)
            series.set("layoutd_worker_heartbeat_age_seconds", Double(now > worker.lastHeard ? now - worker.lastHeard : 0) / 1e9, label)
            series.set("layoutd_worker_keys", Double(worker.ownedKeys.count), label)
            series.set("layoutd_worker_in_flight", Double(worker.inFlight), label)
            series.set("layoutd_worker_busy", Double(worker.load.busy), label)
            series.set("layoutd_worker_queued", Double(worker.load.queued), label)
            series.set("layoutd_worker_layout_bytes", Double(worker.load.layoutBytes), label)
            series.advance("layoutd_worker_routed_total", label, to: worker.routed)
            if let direct = worker.load.direct {
                // Its direct endpoint's answers, as its last heartbeat counted them.
                series.advance("layoutd_worker_direct_reads_total", label, to: direct.reads)
                series.advance("layoutd_worker_direct_moved_total", label, to: direct.moved)
                series.advance("layoutd_worker_direct_behind_total", label, to: direct.behind)
                series.advance("layoutd_worker_direct_lease_expiries_total", label, to: direct.leaseExpiries)
            }
        }

        let connected = core.workers.filter(\.isConnected)
        series.set("layoutd_cluster_workers", Double(connected.count))
        series.set("layoutd_cluster_workers_alive", Double(core.live.count))
        series.set("layoutd_cluster_queue_depth", Double(core.heldCount + connected.reduce(0) { $0 + $1.load.queued }))
        series.set("layoutd_cluster_waiting", Double(core.heldCount))
        series.set("layoutd_cluster_keys_in_motion", Double(core.keysInMotion))
        for (phase, count) in core.keysByPhase { series.set("layoutd_cluster_keys", Double(count), ["phase": phase]) }
        let o = core.ownership
        for (transition, count) in [
            ("settled", o.settled), ("drained", o.drained), ("queued", o.queued), ("rebuilt", o.rebuilt),
            ("awaitedReturn", o.awaitedReturn), ("fallbackChanged", o.fallbackChanged),
        ] {
            series.advance("layoutd_cluster_ownership_transitions_total", ["transition": transition], to: count)
        }

        let c = core.counters
        series.advance("layoutd_cluster_routed_total", ["route": "keyed"], to: c.keyed)
        series.advance("layoutd_cluster_routed_total", ["route": "stateless"], to: c.stateless)
        series.advance("layoutd_cluster_routed_total", ["route": "list"], to: c.lists)
        series.advance("layoutd_cluster_held_total", to: c.held)
        series.advance("layoutd_cluster_retried_total", to: c.retried)
        series.advance("layoutd_cluster_unavailable_total", to: c.unavailable)
        series.advance("layoutd_cluster_busy_total", to: c.busy)
        series.advance("layoutd_cluster_restores_total", to: c.restores)
        series.advance("layoutd_cluster_restore_failures_total", to: c.restoreFailures)
        series.advance("layoutd_cluster_seeds_total", to: c.seeds)
        series.advance("layoutd_cluster_moves_total", to: c.moves)
        series.advance("layoutd_cluster_lost_total", to: c.lost)
        series.advance("layoutd_cluster_released_total", to: c.released)
        series.advance("layoutd_cluster_superseded_copies_total", to: c.supersededCopies)
        series.advance("layoutd_cluster_workers_joined_total", to: c.workersJoined)
        series.advance("layoutd_cluster_workers_died_total", to: c.workersDied)
        series.advance("layoutd_cluster_epoch_advances_total", to: c.epochAdvances)
        series.advance("layoutd_cluster_connections_dropped_total", to: c.connectionsDropped)
        series.advance("layoutd_cluster_keys_kept_through_drops_total", to: c.keysKeptThroughDrops)
        series.advance("layoutd_cluster_keys_rebuilt_after_drops_total", to: c.keysRebuiltAfterDrops)
        series.advance("layoutd_cluster_standby_rebuilds_total", to: c.standbyRebuilds)
        series.advance("layoutd_cluster_standbys_used_total", to: c.standbysUsed)
        series.advance("layoutd_cluster_former_copies_taken_back_total", to: c.formerCopiesTakenBack)
        series.advance("layoutd_cluster_evictions_total", to: c.evictions)
        series.advance("layoutd_cluster_stale_evictions_total", to: c.staleEvictions)
        series.advance("layoutd_cluster_reprotected_total", to: c.reprotected)

        series.set("layoutd_cluster_recipes", Double(core.recipes.count))
        series.set("layoutd_cluster_recipe_bytes", Double(core.recipes.totalBytes))
        series.set("layoutd_cluster_recipe_capacity_bytes", Double(core.recipes.capacityBytes))
        series.advance("layoutd_cluster_recipes_evicted_total", to: c.recipesEvicted)
        series.advance("layoutd_cluster_recipes_dropped_total", to: c.recipesDropped)
        series.advance("layoutd_cluster_snapshots_total", to: c.snapshots)
        series.advance("layoutd_cluster_snapshot_failures_total", to: c.snapshotFailures)
        // Scrapes run on the broker's I/O thread: this is its CPU time.
        series.advance("layoutd_cluster_broker_thread_cpu_seconds_total", to: BrokerCore.threadCPUSeconds())
    }

    /// The record each worker id's series show. Ids are labels, so one record each: a worker that
    /// registered again under its id (a restarted pod) shows its connected registration, the latest one
    /// when none is.
    private static func oneRecordPerID(_ workers: [WorkerRecord]) -> [String: WorkerRecord] {
        var shown: [String: WorkerRecord] = [:]
        for worker in workers {
            if let earlier = shown[worker.name], earlier.isConnected, !worker.isConnected { continue }
            shown[worker.name] = worker
        }
        return shown
    }
}
