import LayoutTestKit
/// The benchmarks, in the order a run prints them.
enum BenchName: String, BenchSelection {
    /// Small-op round trips through a broker and one worker against a single daemon.
    case hop
    /// CPU-bound prepares on two worker processes against one.
    case scaling
    /// The broker's cost per request with 64 idle workers registered against one.
    case idle
    /// Kill -9 of a worker: time to the first answer on its 10^6-item key, and rebuild throughput.
    case failover
    /// Queries read straight from the key's worker (PROTOCOL.md §11) against a single daemon and the broker.
    case direct
    /// Kill -9 of the active broker of two on one PostgreSQL: time to the first answer from the new one.
    case takeover
    /// Many small keys: `list` pages, `stats` and route lookups at 10^5 and 10^6 keys.
    case pages
}

/// The flags of cluster-bench's own, beside the harness's `--quick`, `--only` and `--help`.
struct ClusterFlags: BenchFlags {
    /// Internal: this process is the hop bench's null server (`NullServer`), not a bench run.
    var servesNull = false

    static var usage: [BenchFlagUsage] { [] }

    mutating func parse(_ flag: String, from arguments: inout ArraySlice<String>) throws(UsageError) -> Bool {
        guard flag == "--null-server" else { return false }
        servesNull = true
        return true
    }
}

extension ClusterBench {
    static let harness = BenchHarness<BenchName, ClusterFlags>(
        command: "cluster-bench",
        quickHelp: "small counts: a smoke run",
        about: """
            Runs a single daemon and a broker in this process, and workers as `layoutd --role worker`
            processes (the layoutd next to this executable) or in this process, all on tcp://127.0.0.1:*;
            prints one JSON object per line (docs/BENCHMARKS.md, "The cluster"). Build with -c release.
            """
    )
}

/// Counts of a run: the full run, or `--quick`.
struct BenchPlan: Sendable {
    var rounds: Int
    /// Rounds of the scaling and idle benches, whose rounds are short (a fraction of a second): more of
    /// them steady the median on a noisy machine.
    var shortRounds: Int
    var warmUpRoundTrips: Int
    var sequentialRoundTrips: Int
    var pipelinedRoundTrips: Int
    /// Prepares of `scalingItems` items, sent at once, per round of the scaling bench.
    var scalingKeys: Int
    var scalingItems: Int
    var idleWorkers: Int
    var failoverItems: Int
    /// The many-keys failover: keys and items per key.
    var failoverKeys: Int
    var failoverItemsPerKey: Int
    /// The pages bench: the key counts a single daemon is measured at, and the most keys prepared
    /// through the broker (a slower path).
    var pageKeyCounts: [Int] = [100_000, 1_000_000]
    var clusterPageKeys = 100_000

    static let full = BenchPlan(
        rounds: 3, shortRounds: 9, warmUpRoundTrips: 2_000, sequentialRoundTrips: 10_000, pipelinedRoundTrips: 50_000,
        scalingKeys: 8, scalingItems: 1_000_000, idleWorkers: 64,
        failoverItems: 1_000_000, failoverKeys: 200, failoverItemsPerKey: 10_000
    )

    static let quick = BenchPlan(
        rounds: 1, shortRounds: 1, warmUpRoundTrips: 100, sequentialRoundTrips: 500, pipelinedRoundTrips: 2_000,
        scalingKeys: 4, scalingItems: 100_000, idleWorkers: 8,
        failoverItems: 100_000, failoverKeys: 20, failoverItemsPerKey: 2_000,
        pageKeyCounts: [10_000], clusterPageKeys: 10_000
    )
}
