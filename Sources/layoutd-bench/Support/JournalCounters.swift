import LayoutClient
import ZeroMQ

/// The journal's figures in a daemon's `stats` (PROTOCOL.md §8, `journal`): group commits and the
/// records they held, commit latency, and what a restart restored.
struct JournalCounters {
    var commits = 0
    var records = 0
    /// Since the daemon started (the stats keep no window).
    var commitP50Micros: Double?
    var commitP99Micros: Double?
    /// With `sync` and the log: its syncs, which replies wait for (since the daemon started).
    var syncP50Micros: Double?
    var syncP99Micros: Double?
    var restored = 0
    var restoredItems = 0
    var restoreMicros = 0

    /// The daemon's, or nil when it has no journal or does not answer.
    static func read(from daemon: DaemonServer, context: Context) -> JournalCounters? {
        guard let client = try? StatsClient(endpoint: daemon.statsEndpoint, context: context) else { return nil }
        defer { client.close() }
        guard let stats = try? client.stats(), let journal = stats.object("journal") else { return nil }
        let commitMicros = journal.object("commitMicros")
        let syncMicros = journal.object("syncMicros")
        return JournalCounters(
            commits: journal.int("commits") ?? 0, records: journal.int("records") ?? 0,
            commitP50Micros: commitMicros?.double("p50"), commitP99Micros: commitMicros?.double("p99"),
            syncP50Micros: syncMicros?.double("p50"), syncP99Micros: syncMicros?.double("p99"),
            restored: journal.int("restored") ?? 0, restoredItems: journal.int("restoredItems") ?? 0,
            restoreMicros: journal.int("restoreMicros") ?? 0
        )
    }
}
