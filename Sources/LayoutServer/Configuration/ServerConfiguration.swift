import LayoutEngine

/// Everything layoutd can be told, with the defaults of `config/layoutd.yaml`.
///
/// Loaded by `ConfigurationLoader` from (highest priority first) command-line flags, `LAYOUTD_*`
/// environment variables, the config file, then these defaults.
public struct ServerConfiguration: Sendable, Hashable {
    /// The ROUTER that takes requests (`front`).
    public var frontEndpoint = "tcp://127.0.0.1:5555"
    /// The XPUB that publishes invalidation and batch events (`events`).
    public var eventsEndpoint = "tcp://127.0.0.1:5556"
    /// The ROUTER that answers `stats` and `metrics` (`stats`).
    public var statsEndpoint = "tcp://127.0.0.1:5557"
    /// The operations HTTP listener, `host:port` (`http`): `/metrics`, `/healthz`, `/readyz`. Empty: none.
    public var httpAddress = "127.0.0.1:5558"
    /// Jobs run at once (`workers`); 0 means one per CPU core.
    public var workers = 0
    /// Jobs admitted beyond the running ones before the daemon answers `busy` (`queue`).
    public var queueCapacity = 256
    /// Items over all sections of one layout (`limits.maxItems`).
    public var maxItems = 10_000_000
    /// Sections of one layout (`limits.maxSections`).
    public var maxSections = 100_000
    /// Largest request accepted, in bytes: libzmq's ZMQ_MAXMSGSIZE, an int64 (`limits.maxMessageBytes`).
    public var maxMessageBytes: Int64 = 1 << 30
    /// Memory bound of the layout store in bytes; the least recently used layouts are evicted (`store.maxBytes`).
    public var storeCapacityBytes = 4 << 30
    /// Outgoing messages queued per peer before ZeroMQ drops (PUB) or blocks (`sendHighWaterMark`).
    public var sendHighWaterMark: Int32 = 10_000
    /// How long a shutdown waits for admitted jobs to be answered, in seconds (`shutdownGraceSeconds`).
    public var shutdownGraceSeconds = 30.0
    /// trace, debug, info, notice, warning, error or critical (`log.level`).
    public var logLevel = "info"

    public init() {}

    /// `workers`, with 0 resolved to the number of CPU cores.
    public var resolvedWorkers: Int {
        workers > 0 ? workers : max(1, systemCoreCount())
    }

    /// The engine limits these settings imply.
    public var inputLimits: InputLimits {
        InputLimits(maxItems: maxItems, maxSections: maxSections)
    }
}

#if canImport(Glibc)
import Glibc
#endif

private func systemCoreCount() -> Int {
    Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
}
