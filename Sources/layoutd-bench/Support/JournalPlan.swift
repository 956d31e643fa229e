import LayoutTestKit

/// Counts of the journal bench (`JournalBench`): the full run, or `--quick` for CI (a few seconds).
struct JournalPlan: Sendable {
    /// Clients of the update load, each a DEALER with a key of its own, and the threads that drive them.
    var clients: Int
    var clientThreads: Int
    /// The update load's warm-up per journal setting, then its timed rounds: every setting once per
    /// round, the order turning from round to round.
    var updateWarmUp: Duration
    var updateRounds: Int
    var updateRound: Duration
    /// Items of the large `prepare`, and how often it runs per journal setting (the settings alternate).
    var jobItems: Int
    var jobRepetitions: Repetitions
    /// Items of the layout a restarted daemon restores, and how many restarts are timed.
    var restartItems: Int
    var restartRuns: Int
    /// Keys of the many-keys restart, their items, and the updates each takes after its `prepare`.
    var restartKeys: Int
    var restartKeyItems: Int
    var restartKeyUpdates: Int
    /// fsyncs timed on the journal's disk.
    var fsyncSamples: Int

    static let full = JournalPlan(
        clients: 64, clientThreads: 4,
        updateWarmUp: .milliseconds(500), updateRounds: 5, updateRound: .seconds(1),
        jobItems: 1_000_000, jobRepetitions: Repetitions(warmUps: 1, runs: 5),
        restartItems: 1_000_000, restartRuns: 3,
        restartKeys: 1_000, restartKeyItems: 100, restartKeyUpdates: 3,
        fsyncSamples: 100
    )

    static let quick = JournalPlan(
        clients: 64, clientThreads: 4,
        updateWarmUp: .milliseconds(100), updateRounds: 2, updateRound: .milliseconds(200),
        jobItems: 20_000, jobRepetitions: Repetitions(warmUps: 1, runs: 2),
        restartItems: 10_000, restartRuns: 1,
        restartKeys: 100, restartKeyItems: 100, restartKeyUpdates: 3,
        fsyncSamples: 10
    )
}
