import Configuration
import LayoutJournal
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// Reads `ServerConfiguration` from flags, environment and a YAML file (swift-configuration).
///
/// Keys (file / environment):
/// - `front` / `LAYOUTD_FRONT`, `events` / `LAYOUTD_EVENTS`, `stats` / `LAYOUTD_STATS`: endpoints
/// - `http` / `LAYOUTD_HTTP`: the operations HTTP listener, `host:port`; empty for none
/// - `workers` / `LAYOUTD_WORKERS`, `queue` / `LAYOUTD_QUEUE`
/// - `limits.maxItems` / `LAYOUTD_LIMITS_MAX_ITEMS`, `limits.maxSections` / `LAYOUTD_LIMITS_MAX_SECTIONS`,
///   `limits.maxMessageBytes` / `LAYOUTD_LIMITS_MAX_MESSAGE_BYTES`,
///   `limits.maxTransportBytes` / `LAYOUTD_LIMITS_MAX_TRANSPORT_BYTES` (unset: 4 × `limits.maxMessageBytes`)
/// - `store.maxBytes` / `LAYOUTD_STORE_MAX_BYTES`
/// - `sendHighWaterMark` / `LAYOUTD_SEND_HIGH_WATER_MARK`, `shutdownGraceSeconds` / `LAYOUTD_SHUTDOWN_GRACE_SECONDS`
/// - `log.level` / `LAYOUTD_LOG_LEVEL`
/// - `console.enabled`, `console.allowChanges`, `console.token` / `LAYOUTD_CONSOLE_TOKEN`, `console.maxItems`,
///   `console.maxBodyBytes`, `console.timeoutMillis`, `console.maxStreams` (see `readConsole`)
/// - `security.serverSecretKeyFile` / `LAYOUTD_SECURITY_SERVER_SECRET_KEY_FILE`,
///   `security.clientKeysFile` / `LAYOUTD_SECURITY_CLIENT_KEYS_FILE` (see `readSecurity`)
/// - `journal.url` / `LAYOUTD_JOURNAL_URL`, `journal.durability` / `LAYOUTD_JOURNAL_DURABILITY`,
///   `journal.syncMillis`, `journal.compactAfterBytes`, `journal.compactAfterChanges`,
///   `journal.restoreConcurrency`, `journal.logPath` (see `readJournal`)
public enum ConfigurationLoader {
    /// Values given on the command line, by config key (`front`, `workers`, …); they win over everything.
    public typealias Overrides = [String: ConfigValue]

    /// `config/layoutd.yaml` relative to the working directory when it exists (running from a checkout).
    public static var defaultFilePath: String? {
        let path = "config/layoutd.yaml"
        return access(path, R_OK) == 0 ? path : nil
    }

    /// Loads the configuration; `filePath` nil means "no file". A file that is given must exist and parse.
    public static func load(filePath: String?, overrides: Overrides = [:], environment: [String: String]? = nil) async throws -> ServerConfiguration {
        try read(try await reader(filePath: filePath, overrides: overrides, environment: environment))
    }

    /// The providers `load` reads, in priority order, for settings of other modules (the cluster's
    /// `cluster.*` keys) read from the same flags, environment and file.
    public static func reader(filePath: String?, overrides: Overrides = [:], environment: [String: String]? = nil) async throws -> ConfigReader {
        var providers: [any ConfigProvider] = []
        providers.append(InMemoryProvider(name: "flags", values: Dictionary(uniqueKeysWithValues: overrides.map { (AbsoluteConfigKey(splitting: $0.key), $0.value) })))
        let env = environment.map { EnvironmentVariablesProvider(environmentVariables: $0) } ?? EnvironmentVariablesProvider()
        providers.append(KeyMappingProvider(upstream: env) { $0.prepending(["layoutd"]) })
        if let filePath {
            providers.append(try await FileProvider<YAMLSnapshot>(filePath: FilePath(filePath)))
        }
        return ConfigReader(providers: providers)
    }

    /// The daemon's settings from `config`, checked.
    public static func read(_ config: ConfigReader) throws -> ServerConfiguration {
        var c = ServerConfiguration()
        c.frontEndpoint = config.string(forKey: "front", default: c.frontEndpoint)
        c.eventsEndpoint = config.string(forKey: "events", default: c.eventsEndpoint)
        c.statsEndpoint = config.string(forKey: "stats", default: c.statsEndpoint)
        c.httpAddress = config.string(forKey: "http", default: c.httpAddress)
        guard c.httpAddress.isEmpty || OperationsAddress(parsing: c.httpAddress) != nil else {
            throw ConfigurationError(key: "http", message: "must be host:port (an IPv6 host in brackets) or empty, not \"\(c.httpAddress)\"")
        }
        c.workers = try nonNegative(config.int(forKey: "workers", default: c.workers), "workers")
        c.queueCapacity = try nonNegative(config.int(forKey: "queue", default: c.queueCapacity), "queue")
        c.maxItems = try nonNegative(config.int(forKey: "limits.maxItems", default: c.maxItems), "limits.maxItems")
        c.maxSections = try nonNegative(config.int(forKey: "limits.maxSections", default: c.maxSections), "limits.maxSections")
        c.maxMessageBytes = Int64(try nonNegative(config.int(forKey: "limits.maxMessageBytes", default: Int(c.maxMessageBytes)), "limits.maxMessageBytes"))
        if let transport = config.int(forKey: "limits.maxTransportBytes") {
            guard Int64(transport) >= c.maxMessageBytes else {
                throw ConfigurationError(key: "limits.maxTransportBytes", message: "must be at least limits.maxMessageBytes (\(c.maxMessageBytes)), not \(transport)")
            }
            c.maxTransportBytes = Int64(transport)
        }
        c.storeCapacityBytes = try nonNegative(config.int(forKey: "store.maxBytes", default: c.storeCapacityBytes), "store.maxBytes")
        let hwm = try nonNegative(config.int(forKey: "sendHighWaterMark", default: Int(c.sendHighWaterMark)), "sendHighWaterMark")
        guard hwm <= Int(Int32.max) else { throw ConfigurationError(key: "sendHighWaterMark", message: "must fit in 32 bits") }
        c.sendHighWaterMark = Int32(hwm)
        c.shutdownGraceSeconds = config.double(forKey: "shutdownGraceSeconds", default: c.shutdownGraceSeconds)
        guard c.shutdownGraceSeconds.isFinite, c.shutdownGraceSeconds >= 0, c.shutdownGraceSeconds <= 86_400 else {
            throw ConfigurationError(key: "shutdownGraceSeconds", message: "must be a number of seconds from 0 to 86400, not \(c.shutdownGraceSeconds)")
        }
        c.logLevel = config.string(forKey: "log.level", default: c.logLevel)
        try readSecurity(config, into: &c)
        try readConsole(config, into: &c)
        try readJournal(config, into: &c)
        return c
    }

    /// The `journal.*` keys (docs/OPERATIONS.md, Durability).
    static func readJournal(_ config: ConfigReader, into c: inout ServerConfiguration) throws {
        do {
            c.journalURL = try JournalURL(parsing: config.string(forKey: "journal.url", default: c.journalURL.description))
        } catch {
            throw ConfigurationError(key: "journal.url", message: error.message)
        }
        let durability = config.string(forKey: "journal.durability", default: c.journalDurability.rawValue)
        guard let parsed = JournalDurability(rawValue: durability) else {
            throw ConfigurationError(key: "journal.durability", message: "must be sync or async, not \"\(durability)\"")
        }
        c.journalDurability = parsed
        c.journalSyncMillis = try nonNegative(config.int(forKey: "journal.syncMillis", default: c.journalSyncMillis), "journal.syncMillis")
        guard c.journalSyncMillis >= 1, c.journalSyncMillis <= 60_000 else {
            throw ConfigurationError(key: "journal.syncMillis", message: "must be from 1 to 60000 ms, not \(c.journalSyncMillis)")
        }
        c.journalCompaction.afterBytes = try nonNegative(config.int(forKey: "journal.compactAfterBytes", default: c.journalCompaction.afterBytes), "journal.compactAfterBytes")
        c.journalCompaction.afterChanges = try nonNegative(config.int(forKey: "journal.compactAfterChanges", default: c.journalCompaction.afterChanges), "journal.compactAfterChanges")
        c.journalRestoreConcurrency = try nonNegative(config.int(forKey: "journal.restoreConcurrency", default: c.journalRestoreConcurrency), "journal.restoreConcurrency")
        let logPath = config.string(forKey: "journal.logPath", default: c.journalLogPath ?? "")
        c.journalLogPath = logPath.isEmpty ? nil : logPath
    }

    private static func nonNegative(_ value: Int, _ key: String) throws -> Int {
        guard value >= 0 else { throw ConfigurationError(key: key, message: "must be >= 0, not \(value)") }
        return value
    }
}

/// A configuration value that cannot be used.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var key: String
    public var message: String
    public var description: String { "configuration \(key): \(message)" }

    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }
}

extension AbsoluteConfigKey {
    /// `limits.maxItems` → ["limits", "maxItems"].
    init(splitting dotted: String) {
        self.init(dotted.split(separator: ".").map(String.init))
    }
}
