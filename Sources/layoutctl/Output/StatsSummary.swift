import LayoutClient

/// The readable form of the stats object: load, counters by op and code, latency percentiles.
enum StatsSummary {
    static func lines(_ stats: AnyJSONObject) -> [String] {
        let workers = stats.object("workers")
        let layouts = stats.object("layouts")
        var lines = [
            "up \(stats.double("uptimeSeconds").map(Format.uptime) ?? "?"), "
                + "workers \(Format.number(workers, "busy"))/\(Format.number(workers, "threads")) busy, "
                + "\(Format.number(stats, "inFlight")) in flight, \(Format.number(stats, "queued")) queued",
            "requests: \(tally(stats.object("requests")))",
            "errors: \(tally(stats.object("errors")))",
            "layouts: \(Format.number(layouts, "count")) kept, \(layouts?.double("bytes").map(Format.bytes) ?? "?"); "
                + "items prepared \(Format.number(stats, "itemsPrepared"))",
            "events: \(Format.number(stats, "eventsPublished")) published, \(subscriptions(stats.double("subscribers")))",
        ]
        if let cluster = stats.object("cluster"), cluster.string("role") == "broker" {
            // A broker's own members are the cluster's sums (up to a heartbeat old); the cluster itself
            // is what an operator of one looks for.
            lines += ClusterSummary.lines(cluster)
        } else if let cluster = stats.object("cluster"), cluster.string("role") == "worker" {
            // A worker's own stats socket: its pool and store above, then its broker and direct reads.
            lines += ClusterSummary.workerLines(cluster)
        }
        if let latency = stats.object("latencyMicros"), !latency.isEmpty {
            var table = TextTable([("latency µs", .left), ("p50", .right), ("p90", .right), ("p99", .right), ("max", .right)])
            for op in latency.keys.sorted() {
                let percentiles = latency.object(op)
                table.append([op] + ["p50", "p90", "p99", "max"].map { Format.number(percentiles, $0) })
            }
            lines += table.rendered()
        }
        return lines
    }

    /// The daemon counts distinct topic prefixes (what its XPUB reports), not subscriber sockets: two
    /// `watch`es of everything make one subscription.
    private static func subscriptions(_ count: Double?) -> String {
        guard let count else { return "? subscriptions" }
        return "\(Format.number(count)) subscription\(count == 1 ? "" : "s")"
    }

    /// `123 (ping 3, prepare 20, query 100)`: the total, then each count, largest first.
    private static func tally(_ counts: AnyJSONObject?) -> String {
        guard let counts else { return "?" }
        let entries = counts.keys.compactMap { key in counts.double(key).map { (key, $0) } }
            .sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
        let total = entries.reduce(0) { $0 + $1.1 }
        guard !entries.isEmpty else { return "0" }
        return "\(Format.number(total)) (" + entries.map { "\($0.0) \(Format.number($0.1))" }.joined(separator: ", ") + ")"
    }
}
