import CoreMetrics
import Prometheus

/// Counters and gauges of a `DaemonMetrics` registry that a scrape brings up to date from numbers kept
/// elsewhere (a `StatsSnapshot`, a cluster broker's state), made on first use.
///
/// Each series is a swift-metrics counter or gauge on the registry's `PrometheusMetricsFactory`. A name is
/// always written with the same label names (swift-prometheus keeps a name either labelled or not), and
/// never under two types.
public struct ScrapedSeries: ~Copyable {
    private struct Key: Hashable {
        var name: String
        /// Label names and values, alternating.
        var labels: [String]

        func has(label: String, value: String) -> Bool {
            stride(from: 0, to: labels.count - 1, by: 2).contains { labels[$0] == label && labels[$0 + 1] == value }
        }
    }

    /// A swift-metrics counter only goes up by increments: each keeps the total it was last brought to.
    private var counters: [Key: (counter: CoreMetrics.Counter, total: Int)] = [:]
    private var floatingCounters: [Key: (counter: FloatingPointCounter, total: Double)] = [:]
    private var gauges: [Key: CoreMetrics.Gauge] = [:]
    private let factory: PrometheusMetricsFactory

    init(factory: PrometheusMetricsFactory) {
        self.factory = factory
    }

    /// Sets the gauge `name{labels}` to `value`.
    public mutating func set(_ name: String, _ value: Double, _ labels: KeyValuePairs<String, String> = [:]) {
        let key = Self.key(name, labels)
        let gauge = gauges[key] ?? CoreMetrics.Gauge(label: name, dimensions: Self.dimensions(labels), factory: factory)
        gauges[key] = gauge
        gauge.record(value)
    }

    /// Brings the counter `name{labels}` up to `total`, a count kept elsewhere that only grows; a smaller
    /// one is ignored rather than turned into a decrement.
    public mutating func advance(_ name: String, _ labels: KeyValuePairs<String, String> = [:], to total: Int) {
        let key = Self.key(name, labels)
        let entry = counters[key] ?? (CoreMetrics.Counter(label: name, dimensions: Self.dimensions(labels), factory: factory), 0)
        if total > entry.total { entry.counter.increment(by: total - entry.total) }
        counters[key] = (entry.counter, max(total, entry.total))
    }

    /// `advance(_:_:to:)` for a total that is not a whole number (CPU seconds).
    public mutating func advance(_ name: String, _ labels: KeyValuePairs<String, String> = [:], to total: Double) {
        let key = Self.key(name, labels)
        let entry = floatingCounters[key] ?? (FloatingPointCounter(label: name, dimensions: Self.dimensions(labels), factory: factory), 0)
        if total > entry.total { entry.counter.increment(by: total - entry.total) }
        floatingCounters[key] = (entry.counter, max(total, entry.total))
    }

    /// Takes every series labelled `label="value"` out of the registry (a cluster worker that is gone):
    /// the next exposition no longer has them, and writing one again starts it afresh (a counter from 0).
    public mutating func remove(label: String, value: String) {
        for key in gauges.keys where key.has(label: label, value: value) {
            gauges.removeValue(forKey: key)?.destroy()
        }
        for key in counters.keys where key.has(label: label, value: value) {
            counters.removeValue(forKey: key)?.counter.destroy()
        }
        for key in floatingCounters.keys where key.has(label: label, value: value) {
            floatingCounters.removeValue(forKey: key)?.counter.destroy()
        }
    }

    private static func key(_ name: String, _ labels: KeyValuePairs<String, String>) -> Key {
        Key(name: name, labels: labels.flatMap { [$0.key, $0.value] })
    }

    private static func dimensions(_ labels: KeyValuePairs<String, String>) -> [(String, String)] {
        labels.map { ($0.key, $0.value) }
    }
}
