import Foundation

/// One reading of the daemon's stats (PROTOCOL.md, Stats socket).
public struct StatsSnapshot: Sendable, Hashable {
    public struct Latency: Sendable, Hashable {
        public var p50: UInt64
        public var p90: UInt64
        public var p99: UInt64
        public var max: UInt64
        public var count: UInt64
    }

    public var uptimeSeconds: Double
    public var requests: [String: Int]
    public var errors: [String: Int]
    public var inFlight: Int
    public var queued: Int
    public var workerThreads: Int
    public var workersBusy: Int
    public var latencyMicros: [String: Latency]
    public var itemsPrepared: Int
    public var layoutCount: Int
    public var layoutBytes: Int
    public var eventsPublished: Int
    public var subscribers: Int
    /// Clients refused by CURVE security (always 0 without it).
    public var authFailures: Int = 0

    /// The `stats` answer: one bare JSON object. Small and rare, so Foundation's serializer is fine here.
    public func jsonBytes() -> [UInt8] {
        Self.serialize(jsonObject)
    }

    /// The `stats` answer as a Foundation object, for answers that add members of their own (a cluster
    /// broker's `cluster`).
    public var jsonObject: [String: Any] {
        [
            "uptimeSeconds": uptimeSeconds,
            "requests": requests,
            "errors": errors,
            "inFlight": inFlight,
            "queued": queued,
            "workers": ["threads": workerThreads, "busy": workersBusy],
            "latencyMicros": latencyMicros.mapValues { l in
                ["p50": l.p50, "p90": l.p90, "p99": l.p99, "max": l.max, "count": l.count]
            },
            "itemsPrepared": itemsPrepared,
            "layouts": ["count": layoutCount, "bytes": layoutBytes],
            "eventsPublished": eventsPublished,
            "subscribers": subscribers,
            "authFailures": authFailures,
        ]
    }

    /// `object` as JSON with sorted keys.
    public static func serialize(_ object: [String: Any]) -> [UInt8] {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return [UInt8](data)
    }

    /// The `metrics` answer: Prometheus text exposition format 0.0.4.
    public func prometheusText() -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            out += "# HELP layoutd_\(name) \(help)\n# TYPE layoutd_\(name) \(type)\n"
            for sample in samples {
                out += "layoutd_\(name)\(sample.labels.isEmpty ? "" : "{\(sample.labels)}") \(sample.value)\n"
            }
        }
        metric("uptime_seconds", "gauge", "Seconds since the daemon started.", [("", String(uptimeSeconds))])
        metric("requests_total", "counter", "Requests answered, by op.",
               requests.sorted { $0.key < $1.key }.map { ("op=\"\(escape($0.key))\"", String($0.value)) })
        metric("errors_total", "counter", "Error replies, by code.",
               errors.sorted { $0.key < $1.key }.map { ("code=\"\(escape($0.key))\"", String($0.value)) })
        metric("in_flight", "gauge", "Requests admitted and not yet answered.", [("", String(inFlight))])
        metric("queued", "gauge", "Requests waiting for a worker.", [("", String(queued))])
        metric("worker_threads", "gauge", "Jobs the pool runs at once.", [("", String(workerThreads))])
        metric("workers_busy", "gauge", "Workers running a job now.", [("", String(workersBusy))])
        var latency: [(String, String)] = []
        for (op, l) in latencyMicros.sorted(by: { $0.key < $1.key }) {
            for (q, v) in [("0.5", l.p50), ("0.9", l.p90), ("0.99", l.p99), ("1", l.max)] {
                latency.append(("op=\"\(escape(op))\",quantile=\"\(q)\"", String(v)))
            }
        }
        metric("latency_microseconds", "summary", "Request latency from arrival to reply, by op.", latency)
        metric("items_prepared_total", "counter", "Items laid out by layout, prepare, bounds, update and diff.", [("", String(itemsPrepared))])
        metric("layouts", "gauge", "Layouts kept in the store.", [("", String(layoutCount))])
        metric("layout_bytes", "gauge", "Bytes held by kept layouts.", [("", String(layoutBytes))])
        metric("events_published_total", "counter", "Events published on the events socket.", [("", String(eventsPublished))])
        metric("subscribers", "gauge", "Subscriptions on the events socket.", [("", String(subscribers))])
        metric("auth_failures_total", "counter", "Clients refused by CURVE security: failed handshakes, and requests or subscriptions of keys no longer listed.", [("", String(authFailures))])
        return out
    }

    private func escape(_ label: String) -> String {
        label.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
