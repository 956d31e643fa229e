import Prometheus
import Synchronization

/// The daemon's Prometheus metrics: one registry per daemon, written to through swift-metrics (and, for
/// the latency histogram, swift-prometheus directly) and exposed by swift-prometheus, for both the stats
/// socket's `metrics` and the HTTP `/metrics`.
///
/// `ServerStats` stays the one place requests are counted. Only the latency histogram is recorded as
/// requests finish (its buckets cannot be rebuilt later from a snapshot); every other series is
/// brought up to date from a `StatsSnapshot` when a scrape asks, so the request path pays for one
/// histogram update and nothing else.
///
/// A registry of its own rather than swift-metrics' global `MetricsSystem`: several daemons may run in
/// one process (tests, benchmarks), and an application that embeds one keeps its own metrics backend.
public final class DaemonMetrics: Sendable {
    /// The latency histogram, `layoutd_request_duration_seconds`: by op, from arrival at the daemon to the
    /// reply being handed to the I/O thread (the same span as `latencyMicros` in stats). Computed: the
    /// descriptor is not `Sendable`.
    static var requestDuration: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "layoutd", metricName: "request_duration", unitName: "seconds",
            helpText: "Request latency from arrival at the daemon to the reply, by op."
        )
    }

    /// Bucket bounds in seconds, from a cached `query` (tens of microseconds) to a 10^7-item `prepare`.
    static let requestDurationBuckets: [Double] = [
        0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
    ]

    static let journalBuckets: [Double] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5]

    /// `layoutd_journal_commit_seconds`: how long a journal group commit took (with the log, SQLite's
    /// commits behind the replies).
    let journalCommitDuration: ValueHistogram
    /// `layoutd_journal_sync_seconds`: how long a sync of the journal's log took (`sync` durability).
    let journalSyncDuration: ValueHistogram

    private let registry: PrometheusCollectorRegistry
    private let exported: Mutex<ScrapedSeries>

    public init() {
        registry = PrometheusCollectorRegistry()
        journalCommitDuration = registry.makeValueHistogram(
            descriptor: MetricNameDescriptor(namespace: "layoutd", metricName: "journal_commit", unitName: "seconds", helpText: "Journal group commit latency."),
            buckets: Self.journalBuckets
        )
        journalSyncDuration = registry.makeValueHistogram(
            descriptor: MetricNameDescriptor(namespace: "layoutd", metricName: "journal_sync", unitName: "seconds", helpText: "Journal log sync latency (sync durability)."),
            buckets: Self.journalBuckets
        )
        exported = Mutex(ScrapedSeries(factory: PrometheusMetricsFactory(registry: registry)))
    }

    /// The latency histogram of one op, in seconds; made once per op (by `ServerStats`) and kept.
    ///
    /// swift-prometheus's own histogram, not a swift-metrics `Timer` or `Recorder`: this is the one
    /// metric written on the request path, and there the swift-metrics front costs more than the
    /// histogram itself (callgrind, layoutd-bench: about 840 instructions a request through a `Timer`,
    /// whose buckets are 128-bit `Duration`s; about 810 through a `Recorder`, whose generic `record` is
    /// not specialised across modules; about 450 here, most of it the lock).
    func requestHistogram(op: String) -> ValueHistogram {
        registry.makeValueHistogram(descriptor: Self.requestDuration, labels: [("op", op)], buckets: Self.requestDurationBuckets)
    }

    /// The Prometheus text exposition (format 0.0.4) of everything: `snapshot` and `process` first
    /// brought into the registry, then the series of the role that runs the daemon's parts (a cluster's
    /// broker or worker) by `adding`, then the registry written out. Scrapes run one at a time, so each
    /// one's text agrees with the numbers it was given.
    ///
    /// - Parameter adding: writes the role's own series, in the same registry as the daemon's; it must
    ///   not use a name the daemon does, and must write the same series on every scrape (or remove them).
    public func exposition(of snapshot: StatsSnapshot, process: ProcessUsage?, adding: (inout ScrapedSeries) -> Void = { _ in }) -> [UInt8] {
        exported.withLock { series in
            series.update(from: snapshot, process: process)
            adding(&series)
            return registry.emitToBuffer()
        }
    }
}

extension ScrapedSeries {
    /// The daemon's series, from its stats and its process.
    fileprivate mutating func update(from s: StatsSnapshot, process: ProcessUsage?) {
        set("layoutd_uptime_seconds", s.uptimeSeconds)
        for (op, count) in s.requests { advance("layoutd_requests_total", ["op": op], to: count) }
        for (code, count) in s.errors { advance("layoutd_errors_total", ["code": code], to: count) }
        set("layoutd_in_flight", Double(s.inFlight))
        set("layoutd_queued", Double(s.queued))
        set("layoutd_worker_threads", Double(s.workerThreads))
        set("layoutd_workers_busy", Double(s.workersBusy))
        // The stats socket's percentiles since start, under the names PROTOCOL.md gives them: gauges,
        // since swift-prometheus has no summary type. For percentiles over a window, use the histogram.
        for (op, latency) in s.latencyMicros {
            for (quantile, value) in [("0.5", latency.p50), ("0.9", latency.p90), ("0.99", latency.p99), ("1", latency.max)] {
                set("layoutd_latency_microseconds", Double(value), ["op": op, "quantile": quantile])
            }
        }
        advance("layoutd_items_prepared_total", to: s.itemsPrepared)
        set("layoutd_layouts", Double(s.layoutCount))
        set("layoutd_layout_bytes", Double(s.layoutBytes))
        advance("layoutd_events_published_total", to: s.eventsPublished)
        set("layoutd_subscribers", Double(s.subscribers))
        advance("layoutd_auth_failures_total", to: s.authFailures)
        if let journal = s.journal { update(from: journal) }
        guard let process else { return }
        set("process_resident_memory_bytes", Double(process.residentBytes))
        set("layoutd_resident_memory_peak_bytes", Double(process.residentPeakBytes))
        set("process_virtual_memory_bytes", Double(process.virtualBytes))
        set("process_open_fds", Double(process.openFileDescriptors))
        advance("process_cpu_seconds_total", to: process.cpuSeconds)
    }
}

