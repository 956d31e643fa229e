import CoreMetrics
import Prometheus
import Synchronization

/// The daemon's Prometheus metrics: one registry per daemon, written to through swift-metrics and
/// exposed by swift-prometheus, for both the stats socket's `metrics` and the HTTP `/metrics`.
///
/// `ServerStats` stays the one place requests are counted. Only the latency histogram is recorded as
/// requests finish (its buckets cannot be rebuilt later from a snapshot); every other series is
/// brought up to date from a `StatsSnapshot` when a scrape asks, so the request path pays for one
/// histogram update and nothing else.
///
/// A registry of its own rather than swift-metrics' global `MetricsSystem`: several daemons may run in
/// one process (tests, benchmarks), and an application that embeds one keeps its own metrics backend.
public final class DaemonMetrics: Sendable {
    /// The latency histogram: by op, from arrival at the daemon to the reply being handed to the I/O
    /// thread (the same span as `latencyMicros` in stats).
    static let requestDurationName = "layoutd_request_duration_seconds"
    /// From a cached `query` (tens of microseconds) to a 10^7-item `prepare` (seconds).
    static let requestDurationBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
        .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
    ]

    private let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    private let exported: Mutex<ExportedSeries>

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[Self.requestDurationName] = Self.requestDurationBuckets
        self.factory = factory
        exported = Mutex(ExportedSeries(factory: factory))
    }

    /// The latency histogram of one op; made once per op (by `ServerStats`) and kept.
    func requestTimer(op: String) -> CoreMetrics.Timer {
        CoreMetrics.Timer(label: Self.requestDurationName, dimensions: [("op", op)], factory: factory)
    }

    /// The Prometheus text exposition (format 0.0.4) of everything: `snapshot` and `process` first
    /// brought into the registry, then the registry written out. Scrapes run one at a time, so each
    /// one's text agrees with the numbers it was given.
    public func exposition(of snapshot: StatsSnapshot, process: ProcessUsage?) -> [UInt8] {
        exported.withLock { series in
            series.update(from: snapshot, process: process)
            return registry.emitToBuffer()
        }
    }
}

/// The counters and gauges that scrapes keep up to date, made on first use.
private struct ExportedSeries: ~Copyable {
    private struct Key: Hashable {
        var name: String
        var labels: [String]
    }

    /// A swift-metrics counter only goes up by increments: each keeps the total it was last brought to.
    private var counters: [Key: (counter: CoreMetrics.Counter, total: Int)] = [:]
    private var cpuSeconds: (counter: FloatingPointCounter, total: Double)?
    private var gauges: [Key: CoreMetrics.Gauge] = [:]
    private let factory: PrometheusMetricsFactory

    init(factory: PrometheusMetricsFactory) {
        self.factory = factory
    }

    mutating func update(from s: StatsSnapshot, process: ProcessUsage?) {
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
        advance("layoutd_items_prepared_total", [:], to: s.itemsPrepared)
        set("layoutd_layouts", Double(s.layoutCount))
        set("layoutd_layout_bytes", Double(s.layoutBytes))
        advance("layoutd_events_published_total", [:], to: s.eventsPublished)
        set("layoutd_subscribers", Double(s.subscribers))
        guard let process else { return }
        set("process_resident_memory_bytes", Double(process.residentBytes))
        set("layoutd_resident_memory_peak_bytes", Double(process.residentPeakBytes))
        set("process_virtual_memory_bytes", Double(process.virtualBytes))
        set("process_open_fds", Double(process.openFileDescriptors))
        if cpuSeconds == nil {
            cpuSeconds = (FloatingPointCounter(label: "process_cpu_seconds_total", dimensions: [], factory: factory), 0)
        }
        if let last = cpuSeconds, process.cpuSeconds > last.total {
            last.counter.increment(by: process.cpuSeconds - last.total)
            cpuSeconds = (last.counter, process.cpuSeconds)
        }
    }

    private mutating func advance(_ name: String, _ labels: KeyValuePairs<String, String>, to total: Int) {
        let key = Key(name: name, labels: labels.flatMap { [$0.key, $0.value] })
        let entry = counters[key] ?? (CoreMetrics.Counter(label: name, dimensions: labels.map { ($0.key, $0.value) }, factory: factory), 0)
        // Totals in stats only grow; a smaller one is ignored rather than turned into a decrement.
        if total > entry.total { entry.counter.increment(by: total - entry.total) }
        counters[key] = (entry.counter, max(total, entry.total))
    }

    private mutating func set(_ name: String, _ value: Double, _ labels: KeyValuePairs<String, String> = [:]) {
        let key = Key(name: name, labels: labels.flatMap { [$0.key, $0.value] })
        let gauge = gauges[key] ?? CoreMetrics.Gauge(label: name, dimensions: labels.map { ($0.key, $0.value) }, factory: factory)
        gauges[key] = gauge
        gauge.record(value)
    }
}
