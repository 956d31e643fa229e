import Histogram
import Synchronization

/// What the daemon has done since it started: the numbers behind the stats socket.
public final class ServerStats: Sendable {
    private struct State: ~Copyable {
        var requests: [String: Int] = [:]
        var errors: [String: Int] = [:]
        var latencies: [String: Histogram<UInt64>] = [:]
        var itemsPrepared = 0
        var eventsPublished = 0
        var subscribers = 0
    }

    private let state = Mutex(State())
    private let startedAt = ContinuousClock.now

    public init() {}

    /// Records one answered request: its op (`unknown` when it had none), latency and error code.
    public func recordRequest(op: String, micros: UInt64, errorCode: String?) {
        state.withLock { state in
            state.requests[op, default: 0] += 1
            if let errorCode { state.errors[errorCode, default: 0] += 1 }
            // 1 µs .. 1 h at 3 significant digits. Recorded in place: reading the histogram into a local
            // and writing it back would copy its ~190 KB of counts on every request.
            _ = state.latencies[op, default: Histogram(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)]
                .record(min(micros, 3_600_000_000))
        }
    }

    public func recordItemsPrepared(_ count: Int) {
        state.withLock { $0.itemsPrepared += count }
    }

    public func recordEventPublished() {
        state.withLock { $0.eventsPublished += 1 }
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
                requests: state.requests,
                errors: state.errors,
                inFlight: pool.inFlight,
                queued: pool.queued,
                workerThreads: pool.threads,
                workersBusy: pool.busy,
                latencyMicros: state.latencies.mapValues { h in
                    StatsSnapshot.Latency(
                        p50: h.valueAtPercentile(50), p90: h.valueAtPercentile(90),
                        p99: h.valueAtPercentile(99), max: h.max, count: h.totalCount
                    )
                },
                itemsPrepared: state.itemsPrepared,
                layoutCount: store.count,
                layoutBytes: store.bytes,
                eventsPublished: state.eventsPublished,
                subscribers: state.subscribers
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
}
