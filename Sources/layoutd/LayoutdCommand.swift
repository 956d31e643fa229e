import ArgumentParser
import Configuration
import LayoutCluster
import LayoutServer
import Logging
import ServiceLifecycle

/// `layoutd`: the daemon's command line. Flags override `LAYOUTD_*` environment variables, which
/// override the config file.
@main
struct LayoutdCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layoutd",
        abstract: "Computes collection-view layouts for other services over ZeroMQ."
    )

    @Option(help: "Config file (YAML). Default: config/layoutd.yaml when it exists, else built-in defaults.")
    var config: String?

    @Option(help: "Front (ROUTER) endpoint, e.g. tcp://127.0.0.1:5555.")
    var front: String?

    @Option(help: "Events (XPUB) endpoint, e.g. tcp://127.0.0.1:5556.")
    var events: String?

    @Option(help: "Stats endpoint, e.g. tcp://127.0.0.1:5557.")
    var stats: String?

    @Option(help: "Operations HTTP listener (/metrics, /healthz, /readyz), host:port; \"\" for none.")
    var http: String?

    @Option(help: "Jobs run at once (0: one per core).")
    var workers: Int?

    @Option(help: "Jobs admitted beyond the running ones before answering busy.")
    var queue: Int?

    @Option(name: .customLong("max-items"), help: "Items per layout.")
    var maxItems: Int?

    @Option(name: .customLong("store-max-bytes"), help: "Memory bound of the layout store, in bytes.")
    var storeMaxBytes: Int?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    @Option(name: .customLong("server-secret-key-file"), help: "CURVE: the server's secret key (Z85), e.g. from 'layoutctl keygen'. Needs --client-keys-file.")
    var serverSecretKeyFile: String?

    @Option(name: .customLong("client-keys-file"), help: "CURVE: the clients admitted (public keys, names, admin); reread on SIGHUP.")
    var clientKeysFile: String?

    @Option(help: "Where acknowledged changes are kept: sqlite:PATH (default sqlite:data/layoutd.db), postgres://…, or none.")
    var journal: String?

    @Option(name: .customLong("journal-durability"), help: "sync (a reply waits for the disk) or async (default: the disk within journal.syncMillis).")
    var journalDurability: String?

    @Option(help: "single (default: one process serving everything), broker or worker.")
    var role: String?

    @Option(help: "Broker: the back ROUTER workers join, e.g. tcp://0.0.0.0:5560.")
    var back: String?

    @Option(name: .customLong("events-in"), help: "Broker: the XSUB workers publish events to, e.g. tcp://0.0.0.0:5561.")
    var eventsIn: String?

    @Option(help: "Worker: the broker's back endpoint, e.g. tcp://HOST:5560.")
    var join: String?

    @Option(name: .customLong("join-events"), help: "Worker: the broker's events-in endpoint (default: the join port + 1).")
    var joinEvents: String?

    @Option(name: .customLong("worker-id"), help: "Worker: a stable name (default: hostname-pid).")
    var workerID: String?

    @Option(name: .customLong("worker-stats"), help: "Worker: a stats endpoint of its own (default: none).")
    var workerStats: String?

    @Option(name: .customLong("worker-http"), help: "Worker: an operations HTTP listener of its own, host:port (default: none).")
    var workerHTTP: String?

    @Option(name: .customLong("direct"), help: "Worker: a ROUTER of its own that answers clients' reads of the keys it owns, e.g. tcp://0.0.0.0:5570 (default: none).")
    var direct: String?

    @Option(name: .customLong("direct-advertise"), help: "Worker: the direct endpoint as clients reach it, given to them in the broker's route table (default: the one bound; a wildcard bind gives the first non-loopback IPv4 address).")
    var directAdvertise: String?

    @Option(name: .customLong("worker-secret-key-file"), help: "Worker with CURVE: its own secret key (Z85). Needs --server-public-key-file.")
    var workerSecretKeyFile: String?

    @Option(name: .customLong("server-public-key-file"), help: "Worker with CURVE: the broker's public key file.")
    var serverPublicKeyFile: String?

    func run() async throws {
        var overrides: ConfigurationLoader.Overrides = [:]
        if let front { overrides["front"] = .init(.string(front), isSecret: false) }
        if let events { overrides["events"] = .init(.string(events), isSecret: false) }
        if let stats { overrides["stats"] = .init(.string(stats), isSecret: false) }
        if let http { overrides["http"] = .init(.string(http), isSecret: false) }
        if let workers { overrides["workers"] = .init(.int(workers), isSecret: false) }
        if let queue { overrides["queue"] = .init(.int(queue), isSecret: false) }
        if let maxItems { overrides["limits.maxItems"] = .init(.int(maxItems), isSecret: false) }
        if let storeMaxBytes { overrides["store.maxBytes"] = .init(.int(storeMaxBytes), isSecret: false) }
        if let logLevel { overrides["log.level"] = .init(.string(logLevel), isSecret: false) }
        if let serverSecretKeyFile { overrides["security.serverSecretKeyFile"] = .init(.string(serverSecretKeyFile), isSecret: false) }
        if let clientKeysFile { overrides["security.clientKeysFile"] = .init(.string(clientKeysFile), isSecret: false) }
        if let journal { overrides["journal.url"] = .init(.string(journal), isSecret: false) }
        if let journalDurability { overrides["journal.durability"] = .init(.string(journalDurability), isSecret: false) }
        if let role { overrides["role"] = .init(.string(role), isSecret: false) }
        if let back { overrides["cluster.back"] = .init(.string(back), isSecret: false) }
        if let eventsIn { overrides["cluster.eventsIn"] = .init(.string(eventsIn), isSecret: false) }
        if let join { overrides["cluster.join"] = .init(.string(join), isSecret: false) }
        if let joinEvents { overrides["cluster.joinEvents"] = .init(.string(joinEvents), isSecret: false) }
        if let workerID { overrides["cluster.workerId"] = .init(.string(workerID), isSecret: false) }
        if let workerStats { overrides["cluster.workerStats"] = .init(.string(workerStats), isSecret: false) }
        if let workerSecretKeyFile { overrides["security.workerSecretKeyFile"] = .init(.string(workerSecretKeyFile), isSecret: false) }
        if let serverPublicKeyFile { overrides["security.serverPublicKeyFile"] = .init(.string(serverPublicKeyFile), isSecret: false) }
        if let direct { overrides["cluster.direct"] = .init(.string(direct), isSecret: false) }
        if let directAdvertise { overrides["cluster.directAdvertise"] = .init(.string(directAdvertise), isSecret: false) }
        if let workerHTTP { overrides["cluster.workerHttp"] = .init(.string(workerHTTP), isSecret: false) }

        let file = config ?? ConfigurationLoader.defaultFilePath
        let reader = try await ConfigurationLoader.reader(filePath: file, overrides: overrides)
        let configuration = try ConfigurationLoader.read(reader)
        let cluster = try ClusterConfiguration.read(reader)

        var logger = Logger(label: "layoutd")
        logger.logLevel = Logger.Level(rawValue: configuration.logLevel) ?? .info
        if MemoryTuning.keepFreedBuffers() {
            logger.debug("malloc tuned: mmap threshold 32 MiB, trim threshold 1 GiB")
        }
        let service: any Service
        switch cluster.role {
        case .single: service = LayoutDaemon(configuration: configuration, logger: logger)
        case .broker: service = ClusterBroker(configuration: configuration, cluster: cluster, logger: logger)
        case .worker: service = ClusterWorker(configuration: configuration, cluster: cluster, logger: logger)
        }
        let group = ServiceGroup(
            services: [service],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        try await group.run()
    }
}
