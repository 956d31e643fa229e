import LayoutEngine
import LayoutJournal

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
    /// The web console on the HTTP listener (`console.*`).
    public var console = ConsoleSettings()
    /// Jobs run at once (`workers`); 0 means one per CPU core.
    public var workers = 0
    /// Jobs admitted beyond the running ones before the daemon answers `busy` (`queue`).
    public var queueCapacity = 256
    /// Items over all sections of one layout (`limits.maxItems`).
    public var maxItems = 10_000_000
    /// Sections of one layout (`limits.maxSections`).
    public var maxSections = 100_000
    /// Largest request body served, in bytes (`limits.maxMessageBytes`); a larger one is answered `too_large`.
    public var maxMessageBytes: Int64 = 1 << 30
    /// Largest message frame the front socket takes at all, in bytes: libzmq's ZMQ_MAXMSGSIZE, an int64
    /// (`limits.maxTransportBytes`). A peer that sends a larger frame is disconnected without a reply.
    /// nil: `maxMessageBytes` × `transportBytesFactor` (see `resolvedMaxTransportBytes`).
    public var maxTransportBytes: Int64?
    /// Memory bound of the layout store in bytes; the least recently used layouts are evicted (`store.maxBytes`).
    public var storeCapacityBytes = 4 << 30
    /// Outgoing messages queued per peer before ZeroMQ drops (PUB) or blocks (`sendHighWaterMark`).
    public var sendHighWaterMark: Int32 = 10_000
    /// How long a shutdown waits for admitted jobs to be answered, in seconds (`shutdownGraceSeconds`).
    public var shutdownGraceSeconds = 30.0
    /// trace, debug, info, notice, warning, error or critical (`log.level`).
    public var logLevel = "info"
    /// The server's CURVE secret key, a file holding it in Z85 (`security.serverSecretKeyFile`); with
    /// `clientKeysFile`, turns CURVE on for the front, events and stats sockets. nil: no CURVE.
    public var serverSecretKeyFile: String?
    /// The clients admitted with CURVE: their public keys, names and roles (`security.clientKeysFile`;
    /// format in docs/OPERATIONS.md, Security). Read again on SIGHUP.
    public var clientKeysFile: String?
    /// Where acknowledged changes are journaled (`journal.url`): `sqlite:PATH` (the default, a file under
    /// the working directory), `postgres://…`, or `none` (layouts in memory only).
    public var journalURL = JournalURL.defaultValue
    /// `sync` (a reply waits for its commit to reach the disk) or `async` (`journal.durability`).
    public var journalDurability = JournalDurability.async
    /// With `async`, how long a commit may wait to reach the disk, in ms (`journal.syncMillis`).
    public var journalSyncMillis = 1000
    /// When a key's journaled changes are folded into a snapshot (`journal.compactAfterBytes`, `…Changes`).
    public var journalCompaction = Journal.Compaction()
    /// Layouts rebuilt from the journal at once in the background after a start (`journal.restoreConcurrency`);
    /// 0: half the CPU cores, at least one.
    public var journalRestoreConcurrency = 0
    /// With a PostgreSQL journal and `async` durability, where on the local disk the append-only log in
    /// front of it goes (`journal.logPath`); nil: no log, a reply waits for its commit. (With SQLite the
    /// log is always beside the file.)
    public var journalLogPath: String?

    public init() {}

    /// Every socket on 127.0.0.1 at a port the system picks, no HTTP listener and no journal: daemons
    /// that tests, benchmarks and the soak suite run side by side, which fixed ports and a shared journal
    /// file would make collide. (A test of the journal sets `journalURL` after this.)
    public mutating func useFreeLoopbackPorts() {
        frontEndpoint = "tcp://127.0.0.1:*"
        eventsEndpoint = "tcp://127.0.0.1:*"
        statsEndpoint = "tcp://127.0.0.1:*"
        httpAddress = ""
        journalURL = .none
    }

    /// `journalRestoreConcurrency`, with 0 resolved to half the CPU cores (at least one).
    public var resolvedRestoreConcurrency: Int {
        journalRestoreConcurrency > 0 ? journalRestoreConcurrency : max(1, systemCoreCount() / 2)
    }

    /// How many times `maxMessageBytes` the transport cap is when `maxTransportBytes` is not set: a
    /// request somewhat over the limit is answered, and only a grossly larger one costs the connection.
    public static let transportBytesFactor: Int64 = 4

    /// `maxTransportBytes`, or `transportBytesFactor` × `maxMessageBytes` (at most `Int64.max`) when unset.
    public var resolvedMaxTransportBytes: Int64 {
        if let maxTransportBytes { return maxTransportBytes }
        let (product, overflow) = maxMessageBytes.multipliedReportingOverflow(by: Self.transportBytesFactor)
        return overflow ? .max : product
    }

    /// `workers`, with 0 resolved to the number of CPU cores.
    public var resolvedWorkers: Int {
        workers > 0 ? workers : max(1, systemCoreCount())
    }

    /// Whether CURVE security is configured (both key files given).
    public var isCurveEnabled: Bool {
        serverSecretKeyFile != nil && clientKeysFile != nil
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
