import LayoutServer

/// One journal setting a daemon runs with: `none`, or a backend and a durability.
struct JournalMode: Sendable {
    /// `none`, `sqlite async`, `sqlite sync`, `postgres async`, `postgres sync`.
    let name: String
    /// `none`, `sqlite` or `postgres`.
    let backend: String
    /// `async` or `sync`; nil for `none`.
    let durability: String?
    /// Sets the journal on a daemon's configuration.
    let configure: @Sendable (inout ServerConfiguration) -> Void

    static let none = JournalMode(name: "none", backend: "none", durability: nil) { $0.journalURL = .none }

    static func sqlite(path: String, sync: Bool) -> JournalMode {
        JournalMode(name: "sqlite \(sync ? "sync" : "async")", backend: "sqlite", durability: sync ? "sync" : "async") {
            $0.journalURL = .sqlite(path: path)
            $0.journalDurability = sync ? .sync : .async
        }
    }

    /// - Parameter logPath: with `async`, the append-only log in front of the database (`journal.logPath`).
    static func postgres(url: String, sync: Bool, logPath: String? = nil) -> JournalMode {
        JournalMode(name: "postgres \(sync ? "sync" : "async")", backend: "postgres", durability: sync ? "sync" : "async") {
            $0.journalURL = .postgres(url: url)
            $0.journalDurability = sync ? .sync : .async
            $0.journalLogPath = logPath
        }
    }

    /// A daemon with this setting, `workers` workers, on free loopback ports.
    func start(workers: Int) throws -> DaemonServer {
        try DaemonServer(workers: workers, configure: configure)
    }
}
