import Dispatch
import Foundation
import LayoutServer
import LayoutWire

extension BrokerCore {
    /// What the proxy's capture saw: an event on its way to subscribers, or a subscription change on its
    /// way to the workers. Evictions are not read here: the stream does not say which worker's copy was
    /// evicted, so they come from the workers themselves (EVICTED, `workerEvicted`).
    func observeCaptured(_ frames: [[UInt8]]) {
        if frames.count == 1, let kind = frames[0].first, kind <= 1 {
            let topic = Array(frames[0].dropFirst())
            if kind == 1 {
                subscriptions[topic, default: 0] += 1
            } else if let count = subscriptions[topic] {
                subscriptions[topic] = count > 1 ? count - 1 : nil
            }
            return
        }
        // `[topic, body]`, and the layout's namespace third when it has one.
        guard frames.count == 2 || frames.count == 3 else { return }
        // A subscription's confirmation is an answer to one subscriber, not an event of a layout.
        if SubscriptionConfirmation.token(inTopic: frames[0]) != nil { return }
        eventsPublished += 1
    }

    /// The stats socket's answer: the single daemon's members for the whole cluster, and `cluster`.
    func statsAnswer(_ kind: StatsRequestKind, now: Nanos) -> [UInt8] {
        let connected = workers.filter(\.isConnected)
        let busy = connected.reduce(0) { $0 + $1.load.busy }
        let queuedAtWorkers = connected.reduce(0) { $0 + $1.load.queued }
        var snapshot = stats.snapshot(
            pool: PoolUsage(threads: connected.reduce(0) { $0 + $1.threads }, busy: busy, inFlight: clientsInFlight, queued: heldCount + queuedAtWorkers),
            store: (tally.kept, connected.reduce(0) { $0 + $1.load.layoutBytes })
        )
        snapshot.itemsPrepared = connected.reduce(0) { $0 + $1.load.itemsPrepared }
        snapshot.eventsPublished = eventsPublished
        snapshot.subscribers = subscriptions.values.reduce(0, +)
        // The recipes' journal, when the broker has one (its restores are the workers' rebuilds).
        snapshot.journal = journalStatistics.map { JournalReport(statistics: $0()) }
        switch kind {
        case .stats:
            var object = snapshot.jsonObject
            object["cluster"] = clusterObject(now: now)
            return StatsSnapshot.serialize(object)
        case .metrics:
            return stats.metrics.exposition(of: snapshot, process: ProcessUsage.current()) { series in
                clusterMetrics.write(self, now: now, into: &series)
            }
        }
    }

    private func age(_ worker: WorkerRecord, _ now: Nanos) -> Double {
        Double(now > worker.lastHeard ? now - worker.lastHeard : 0) / 1e9
    }

    private func stateName(_ worker: WorkerRecord) -> String {
        switch worker.state {
        case .alive: return "alive"
        case .leaving: return "leaving"
        case .dead: return "dead"
        }
    }

    private func clusterObject(now: Nanos) -> [String: Any] {
        let connected = workers.filter(\.isConnected)
        let workerObjects: [[String: Any]] = workers.map { worker in
            var object: [String: Any] = [
                "id": worker.name, "number": worker.number, "address": worker.address,
                "alive": worker.isConnected, "state": stateName(worker),
                "lastHeartbeatAgeSeconds": (age(worker, now) * 1000).rounded() / 1000,
                "keys": worker.ownedKeys.count, "inFlight": worker.inFlight, "busy": worker.load.busy,
                "threads": worker.threads, "credit": worker.credit, "routed": worker.routed,
                "layouts": worker.load.layouts, "layoutBytes": worker.load.layoutBytes,
                "restoresInFlight": worker.restoresInFlight,
                "restoresQueued": worker.restoreQueue.count + worker.urgentRestores.count,
            ]
            // A worker with a direct endpoint, as its last heartbeat counted (an older worker sends none).
            if let direct = worker.load.direct { object["direct"] = direct.jsonObject }
            return object
        }
        let c = counters
        return [
            "role": "broker",
            "epoch": epoch,
            "workers": workerObjects,
            "totals": [
                "workers": connected.count, "alive": live.count,
                "keys": tally.kept,
                "inFlight": connected.reduce(0) { $0 + $1.inFlight },
                "busy": connected.reduce(0) { $0 + $1.load.busy },
                "credit": connected.reduce(0) { $0 + $1.credit },
            ],
            "routing": [
                "keyed": c.keyed, "stateless": c.stateless, "lists": c.lists, "held": c.held,
                "retried": c.retried, "unavailable": c.unavailable, "busy": c.busy,
                "restores": c.restores, "restoreFailures": c.restoreFailures, "seeds": c.seeds,
                "moves": c.moves, "fences": c.fences, "lost": c.lost, "released": c.released, "supersededCopies": c.supersededCopies,
                "workersJoined": c.workersJoined, "workersDied": c.workersDied, "epochAdvances": c.epochAdvances,
                "connectionsDropped": c.connectionsDropped, "keysKeptThroughDrops": c.keysKeptThroughDrops,
                "keysRebuiltAfterDrops": c.keysRebuiltAfterDrops, "standbyRebuilds": c.standbyRebuilds, "standbysUsed": c.standbysUsed, "formerCopiesTakenBack": c.formerCopiesTakenBack,
                "evictions": c.evictions, "staleEvictions": c.staleEvictions, "reprotected": c.reprotected,
                "snapshots": c.snapshots, "snapshotFailures": c.snapshotFailures,
            ],
            "recipes": ["count": recipes.count, "bytes": recipes.totalBytes, "capacityBytes": recipes.capacityBytes, "evicted": c.recipesEvicted, "dropped": c.recipesDropped],
            "keysInMotion": keysInMotion,
            "ownership": [
                "keys": keysByPhase,
                "transitions": [
                    "settled": ownership.settled, "drained": ownership.drained, "queued": ownership.queued,
                    "rebuilt": ownership.rebuilt, "awaitedReturn": ownership.awaitedReturn, "fallbackChanged": ownership.fallbackChanged,
                ],
            ],
            "waiting": heldCount,
            "brokerThreadCPUSeconds": Self.threadCPUSeconds(),
        ]
    }

    /// CPU time of the calling thread (the broker's I/O thread: stats are answered there), in seconds.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
