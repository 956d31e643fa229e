import LayoutTestKit
/// Counts of a run: the full run, or `--quick` for CI.
///
/// A full run stays within a minute or two on a 2-core machine. Round trips run in `rounds`, each round
/// measuring the daemon, the raw echo and the work floor back to back, so a change in machine load hits
/// all alike.
struct BenchPlan: Sendable {
    /// Rounds of the round-trip benchmark; figures are medians over rounds (latencies pool every sample).
    var rounds: Int
    var warmUpRoundTrips: Int
    var sequentialRoundTrips: Int
    var pipelinedRoundTrips: Int
    /// Items of the mosaic that `query` asks about.
    var queryMosaicItems: Int
    /// Items of the large `layout` job.
    var jobItems: Int
    var jobRepetitions: Repetitions
    /// Items of LayoutWire's own codec benchmarks, and how often each runs (best of).
    var wireItems: Int
    var wireRepetitions: Int
    /// The journal bench's counts.
    var journal: JournalPlan

    static let full = BenchPlan(
        rounds: 3, warmUpRoundTrips: 2_000, sequentialRoundTrips: 10_000, pipelinedRoundTrips: 50_000,
        queryMosaicItems: 10_000,
        jobItems: 1_000_000, jobRepetitions: Repetitions(warmUps: 1, runs: 5),
        wireItems: 1_000_000, wireRepetitions: 5,
        journal: .full
    )

    static let quick = BenchPlan(
        rounds: 1, warmUpRoundTrips: 100, sequentialRoundTrips: 500, pipelinedRoundTrips: 2_000,
        queryMosaicItems: 10_000,
        jobItems: 20_000, jobRepetitions: Repetitions(warmUps: 1, runs: 3),
        wireItems: 100_000, wireRepetitions: 2,
        journal: .quick
    )
}
