import LayoutClient

/// The readable form of a broker's `cluster` stats member (PROTOCOL.md §8): each worker with its state,
/// keys, store, requests in flight and heartbeat age; keys in motion; recipes; and every way a key moved,
/// was rebuilt, lost or fenced.
enum ClusterSummary {
    static func lines(_ cluster: AnyJSONObject) -> [String] {
        let totals = cluster.object("totals")
        let recipes = cluster.object("recipes")
        var lines = [
            "cluster: \(Format.number(totals, "alive"))/\(Format.number(totals, "workers")) workers alive, "
                + "\(Format.number(totals, "keys")) keys, \(Format.number(cluster, "keysInMotion")) in motion, "
                + "\(Format.number(cluster, "waiting")) requests waiting",
            "recipes: \(Format.number(recipes, "count")), \(recipes?.double("bytes").map(Format.bytes) ?? "?") of "
                + "\(recipes?.double("capacityBytes").map(Format.bytes) ?? "?"), \(Format.number(recipes, "evicted")) evicted, \(Format.number(recipes, "dropped")) dropped",
        ]
        if let workers = cluster.objects("workers"), !workers.isEmpty {
            var table = TextTable([
                ("worker", .left), ("state", .left), ("keys", .right), ("layouts", .right), ("bytes", .right),
                ("in flight", .right), ("busy", .right), ("restoring", .right), ("heartbeat", .right),
            ])
            for worker in workers.sorted(by: { ($0.string("id") ?? "") < ($1.string("id") ?? "") }) {
                table.append([
                    worker.string("id") ?? "?", worker.string("state") ?? "?", Format.number(worker, "keys"),
                    Format.number(worker, "layouts"), worker.double("layoutBytes").map(Format.bytes) ?? "?",
                    Format.number(worker, "inFlight"), "\(Format.number(worker, "busy"))/\(Format.number(worker, "threads"))",
                    "\(Format.number(worker, "restoresInFlight")) + \(Format.number(worker, "restoresQueued"))",
                    worker.double("lastHeartbeatAgeSeconds").map { "\(Format.number(($0 * 10).rounded() / 10))s ago" } ?? "?",
                ])
            }
            lines += table.rendered()
        }
        if let routing = cluster.object("routing") {
            /// `label count` for each (label, member), in order.
            func counts(_ pairs: KeyValuePairs<String, String>) -> String {
                pairs.map { "\($0.key) \(Format.number(routing, $0.value))" }.joined(separator: ", ")
            }
            lines.append("routed: " + counts(["keyed": "keyed", "stateless": "stateless", "lists": "lists", "held": "held", "retried": "retried"]))
            lines.append("keys: " + counts([
                "moved": "moves", "rebuilt": "restores", "rebuilds failed": "restoreFailures", "seeded": "seeds", "lost": "lost",
                "released": "released", "superseded": "supersededCopies", "compacted": "snapshots", "snapshots dropped": "snapshotFailures",
                "protected again": "reprotected", "evicted": "evictions", "stale evictions": "staleEvictions",
            ]))
            lines.append("dropped connections: " + counts([
                "dropped": "connectionsDropped", "keys kept": "keysKeptThroughDrops", "keys rebuilt": "keysRebuiltAfterDrops",
                "standby rebuilds": "standbyRebuilds", "standbys used": "standbysUsed",
                "taken back after a false death": "formerCopiesTakenBack",
            ]))
            lines.append("broker answered: " + counts(["unavailable": "unavailable", "busy": "busy"])
                + "; workers " + counts(["joined": "workersJoined", "died": "workersDied"])
                + "; epoch \(Format.number(cluster, "epoch")), advanced \(Format.number(routing, "epochAdvances"))")
        }
        return lines
    }
}
