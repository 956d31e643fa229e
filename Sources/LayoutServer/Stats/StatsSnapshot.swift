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
    /// The journal, when the daemon has one.
    public var journal: JournalReport?

    /// The `stats` answer: one bare JSON object. Small and rare, so Foundation's serializer is fine here.
    public func jsonBytes() -> [UInt8] {
        Self.serialize(jsonObject)
    }

    /// The `stats` answer as a Foundation object, for answers that add members of their own (a cluster
    /// broker's `cluster`).
    public var jsonObject: [String: Any] {
        var object: [String: Any] = [
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
        if let journal { object["journal"] = journal.jsonObject }
        return object
    }

    /// `object` as JSON with sorted keys.
    public static func serialize(_ object: [String: Any]) -> [UInt8] {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return [UInt8](data)
    }
}
