import ArgumentParser
import Configuration
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

        let file = config ?? ConfigurationLoader.defaultFilePath
        let configuration = try await ConfigurationLoader.load(filePath: file, overrides: overrides)

        var logger = Logger(label: "layoutd")
        logger.logLevel = Logger.Level(rawValue: configuration.logLevel) ?? .info
        if MemoryTuning.keepFreedBuffers() {
            logger.debug("malloc tuned: mmap threshold 32 MiB, trim threshold 1 GiB")
        }
        let daemon = LayoutDaemon(configuration: configuration, logger: logger)
        let group = ServiceGroup(
            services: [daemon],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        )
        try await group.run()
    }
}
