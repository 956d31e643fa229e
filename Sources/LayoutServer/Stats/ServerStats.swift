import Histogram
import Prometheus
import Synchronization

/// What the daemon has done since it started: the numbers behind the stats socket.
public final class ServerStats: Sendable {
    /// One op's count and latencies.
    private struct OpRecord {
        let op: String
        var count = 0
        // 1 µs .. 1 h at 3 significant digits.
        var latencies = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
        /// The same latencies in the Prometheus histogram's buckets, in seconds.
        let histogram: ValueHistogram

        init(op: String, histogram: ValueHistogram) {
            self.op = op
            self.histogram = histogram
        }
    }

    private struct State: ~Copyable {
        /// By op, in order of first use. An array searched linearly rather than a dictionary: there are
        /// ten op names at most, and comparing short strings is cheaper than hashing one.
        var ops: [OpRecord] = []
        var errors: [String: Int] = [:]
        var itemsPrepared = 0
        var eventsPublished = 0
        var subscribers = 0
        var authFailures = 0
        /// Journal group commits, in µs.
        var journalCommits = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .two)
        var journalSyncs = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .two)
    }

    private let state = Mutex(State())
    private let startedAt = ContinuousClock.now
    /// The Prometheus form of these numbers (`metrics` on the stats socket, HTTP `/metrics`).
    public let metrics: DaemonMetrics

    public init(metrics: DaemonMetrics = DaemonMetrics()) {
        self.metrics = metrics
    }

    /// Records one answered request: its op (`unknown` when it had none), latency and error code.
    public func recordRequest(op: String, micros: UInt64, errorCode: String?) {
        let histogram = state.withLock { state in
            if let errorCode { state.errors[errorCode, default: 0] += 1 }
            let index: Int
            if let found = state.ops.firstIndex(where: { $0.op == op }) {
                index = found
            } else {
                state.ops.append(OpRecord(op: op, histogram: metrics.requestHistogram(op: op)))
                index = state.ops.count - 1
            }
            // In place: a copy of the histogram would copy its ~190 KB of counts.
            state.ops[index].count += 1
            _ = state.ops[index].latencies.record(min(micros, 3_600_000_000))
            return state.ops[index].histogram
        }
        // Outside the lock: the histogram has a lock of its own.
        histogram.record(Double(micros) / 1_000_000)
    }

    /// An error answered for a request already counted as answered: a broker's change whose journal
    /// write failed after its worker's reply came (`unavailable`).
    public func recordLateError(code: String) {
        state.withLock { $0.errors[code, default: 0] += 1 }
    }

    public func recordItemsPrepared(_ count: Int) {
        state.withLock { $0.itemsPrepared += count }
    }

    public func recordEventPublished() {
        state.withLock { $0.eventsPublished += 1 }
    }

    /// A client refused by CURVE security: a failed handshake (refused by the ZAP handler, or broken
    /// off before it), or a request or subscription of a key no longer listed.
    public func recordAuthFailure() {
        state.withLock { $0.authFailures += 1 }
    }

    /// One journal group commit and how long it took.
    public func recordJournalCommit(micros: UInt64) {
        state.withLock { _ = $0.journalCommits.record(min(micros, 3_600_000_000)) }
        metrics.journalCommitDuration.record(Double(micros) / 1_000_000)
    }

    /// One sync of the journal's log (`sync` durability) and how long it took.
    public func recordJournalSync(micros: UInt64) {
        state.withLock { _ = $0.journalSyncs.record(min(micros, 3_600_000_000)) }
        metrics.journalSyncDuration.record(Double(micros) / 1_000_000)
    }

    /// The journal's report: its own statistics, the commit and sync latencies recorded here, and restores.
    public func journalReport(_ durable: DurableLayouts, evictions: Int) -> JournalReport {
        let (commits, syncs) = state.withLock { state in
            let (c, s) = (state.journalCommits, state.journalSyncs)
            return (
                StatsSnapshot.Latency(p50: c.valueAtPercentile(50), p90: c.valueAtPercentile(90), p99: c.valueAtPercentile(99), max: c.max, count: c.totalCount),
                StatsSnapshot.Latency(p50: s.valueAtPercentile(50), p90: s.valueAtPercentile(90), p99: s.valueAtPercentile(99), max: s.max, count: s.totalCount)
            )
        }
        return JournalReport(
            statistics: durable.journal.statistics, commitMicros: commits, syncMicros: durable.journal.syncsLog ? syncs : nil,
            restore: durable.restoreProgress, evictions: evictions
        )
    }


    /// Subscription count, as the publisher tracks it from XPUB subscribe/unsubscribe messages.
    public func setSubscribers(_ count: Int) {
        state.withLock { $0.subscribers = count }
    }

    /// Everything at once, consistent with itself.
    public func snapshot(pool: PoolUsage, store: (count: Int, bytes: Int)) -> StatsSnapshot {
        let uptime = ContinuousClock.now - startedAt
        return state.withLock { state in
            StatsSnapshot(
                uptimeSeconds: Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18,
                requests: Dictionary(state.ops.map { ($0.op, $0.count) }, uniquingKeysWith: +),
                errors: state.errors,
                inFlight: pool.inFlight,
                queued: pool.queued,
                workerThreads: pool.threads,
                workersBusy: pool.busy,
                latencyMicros: Dictionary(state.ops.map { record in
                    let h = record.latencies
                    return (record.op, StatsSnapshot.Latency(
                        p50: h.valueAtPercentile(50), p90: h.valueAtPercentile(90),
                        p99: h.valueAtPercentile(99), max: h.max, count: h.totalCount
                    ))
                }, uniquingKeysWith: { first, _ in first }),
                itemsPrepared: state.itemsPrepared,
                layoutCount: store.count,
                layoutBytes: store.bytes,
                eventsPublished: state.eventsPublished,
                subscribers: state.subscribers,
                authFailures: state.authFailures
            )
        }
    }
}

/// How busy the worker pool is.
public struct PoolUsage: Sendable, Hashable {
    public var threads: Int
    public var busy: Int
    public var inFlight: Int
    public var queued: Int

    public init(threads: Int, busy: Int, inFlight: Int, queued: Int) {
        self.threads = threads
        self.busy = busy
        self.inFlight = inFlight
        self.queued = queued
    }
}
