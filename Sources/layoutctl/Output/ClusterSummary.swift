import LayoutClient

/// The readable form of a broker's `cluster` stats member (PROTOCOL.md §8): each worker with its state,
/// keys, store, requests in flight, heartbeat age and direct reads; keys in motion; recipes; and every way
/// a key moved, was rebuilt, lost or fenced. And a worker's own (`role` worker): its broker, and how its
/// direct endpoint answered.
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
            // Direct reads' columns only in a cluster where some worker has a direct endpoint (and is
            // recent enough to count them): elsewhere they would be dashes.
            let direct = workers.contains { $0.object("direct") != nil }
            var columns: [(header: String, alignment: TextTable.Alignment)] = [
                ("worker", .left), ("state", .left), ("keys", .right), ("layouts", .right), ("bytes", .right),
                ("in flight", .right), ("busy", .right), ("restoring", .right), ("heartbeat", .right),
            ]
            if direct { columns += [("direct reads", .right), ("moved", .right), ("behind", .right), ("lease lapses", .right)] }
            var table = TextTable(columns)
            for worker in workers.sorted(by: { ($0.string("id") ?? "") < ($1.string("id") ?? "") }) {
                var row = [
                    worker.string("id") ?? "?", worker.string("state") ?? "?", Format.number(worker, "keys"),
                    Format.number(worker, "layouts"), worker.double("layoutBytes").map(Format.bytes) ?? "?",
                    Format.number(worker, "inFlight"), "\(Format.number(worker, "busy"))/\(Format.number(worker, "threads"))",
                    "\(Format.number(worker, "restoresInFlight")) + \(Format.number(worker, "restoresQueued"))",
                    worker.double("lastHeartbeatAgeSeconds").map { "\(Format.number(($0 * 10).rounded() / 10))s ago" } ?? "?",
                ]
                if direct {
                    let counts = worker.object("direct")
                    row += counts == nil ? ["-", "-", "-", "-"] : ["reads", "moved", "behind", "leaseExpiries"].map { Format.number(counts, $0) }
                }
                table.append(row)
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

    /// A worker's own `cluster` member: whom it joins, and with a direct endpoint how it answered.
    static func workerLines(_ cluster: AnyJSONObject) -> [String] {
        let connected = cluster.bool("connected").map { $0 ? "connected" : "not connected" } ?? "?"
        var lines = ["worker \(cluster.string("id") ?? "?"): broker \(cluster.string("broker") ?? "?"), \(connected)"]
        if let direct = cluster.object("direct") {
            lines += directLines(direct)
        }
        return lines
    }

    /// A worker's `cluster.direct`: the reads it answered and refused, and its read lease.
    static func directLines(_ direct: AnyJSONObject) -> [String] {
        let reasons = direct.object("movedBy")
        let why = reasons.map { reasons in
            reasons.keys.sorted().compactMap { key in
                reasons.double(key).flatMap { $0 > 0 ? "\(key) \(Format.number($0))" : nil }
            }
        } ?? []
        let moved = "\(Format.number(direct, "moved")) moved" + (why.isEmpty ? "" : " (\(why.joined(separator: ", ")))")
        let lease = direct.bool("leaseHolds").map { $0 ? "holds" : "does not hold" } ?? "?"
        return [
            "direct reads at \(direct.string("endpoint") ?? "?"): \(Format.number(direct, "reads")) answered, \(moved), "
                + "\(Format.number(direct, "behind")) behind, \(Format.number(direct, "readOnly")) read-only",
            "read lease: \(lease); lapsed \(Format.number(direct, "leaseExpiries")), revoked \(Format.number(direct, "leaseRevocations"))",
        ]
    }
}
