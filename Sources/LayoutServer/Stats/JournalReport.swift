import LayoutJournal

/// The journal's part of `stats` (PROTOCOL.md §8, `journal`) and of `/metrics` (`layoutd_journal_*`).
public struct JournalReport: Sendable, Hashable {
    public var statistics: Journal.Statistics
    public var commitMicros: StatsSnapshot.Latency
    /// With `sync` durability and the append-only log: the log's syncs, which replies wait for.
    public var syncMicros: StatsSnapshot.Latency?
    public var restore: DurableLayouts.RestoreProgress
    /// Layouts pushed out of memory by `store.maxBytes` and still kept in the journal.
    public var evictions: Int

    /// A report of `statistics` alone, with nothing restored or evicted: a broker's journal of recipes.
    public init(statistics: Journal.Statistics) {
        self.init(statistics: statistics, commitMicros: StatsSnapshot.Latency(p50: 0, p90: 0, p99: 0, max: 0, count: UInt64(statistics.commits)), syncMicros: nil, restore: .init(), evictions: 0)
    }

    init(statistics: Journal.Statistics, commitMicros: StatsSnapshot.Latency, syncMicros: StatsSnapshot.Latency?, restore: DurableLayouts.RestoreProgress, evictions: Int) {
        self.statistics = statistics
        self.commitMicros = commitMicros
        self.syncMicros = syncMicros
        self.restore = restore
        self.evictions = evictions
    }

    var jsonObject: [String: Any] {
        var object: [String: Any] = [
            "url": statistics.url,
            "durability": statistics.durability.rawValue,
            "writable": statistics.isWritable,
            "bytes": statistics.bytes,
            "commits": statistics.commits,
            "records": statistics.records,
            "errors": statistics.errors,
            "keys": statistics.keys,
            "commitMicros": ["p50": commitMicros.p50, "p90": commitMicros.p90, "p99": commitMicros.p99, "max": commitMicros.max, "count": commitMicros.count],
            "loadingKeys": restore.isLoadingKeys,
            "restoring": restore.waiting,
            "restored": restore.restored,
            "restoredItems": restore.items,
            "restoreMicros": restore.micros,
            "lost": restore.lost,
            "evictions": evictions,
        ]
        if let lastError = statistics.lastError { object["lastError"] = lastError }
        if let syncMicros {
            object["syncMicros"] = ["p50": syncMicros.p50, "p90": syncMicros.p90, "p99": syncMicros.p99, "max": syncMicros.max, "count": syncMicros.count]
        }
        return object
    }
}

extension ScrapedSeries {
    /// The journal's series.
    mutating func update(from report: JournalReport) {
        set("layoutd_journal_bytes", Double(report.statistics.bytes))
        advance("layoutd_journal_commits_total", to: report.statistics.commits)
        advance("layoutd_journal_records_total", to: report.statistics.records)
        advance("layoutd_journal_errors_total", to: report.statistics.errors)
        set("layoutd_journal_writable", report.statistics.isWritable ? 1 : 0)
        set("layoutd_journal_keys", Double(report.statistics.keys))
        set("layoutd_journal_keys_restoring", Double(report.restore.waiting))
        set("layoutd_journal_keys_loading", report.restore.isLoadingKeys ? 1 : 0)
        advance("layoutd_journal_keys_restored_total", to: report.restore.restored)
        advance("layoutd_journal_keys_lost_total", to: report.restore.lost)
        advance("layoutd_store_evictions_total", to: report.evictions)
    }
}
