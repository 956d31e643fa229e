import LayoutTestKit
/// Sizes and repetitions of a run: the full run, or `--quick` for CI.
///
/// A full run must stay within a few minutes on a 2-core machine: large sizes get fewer runs, and the
/// baseline's linear scan gets fewer queries than our index (each of its queries reads every item).
struct BenchPlan: Sendable {
    var prepareSizes: [Int]
    var queryItems: Int
    var queries: Int
    var baselineQueries: Int
    var queryRepetitions: Repetitions
    var memoryItems: Int
    var checkItems: Int
    var checkRects: Int
    /// Id counts the diff benchmark compares.
    var diffSizes: [Int]
    /// Items of the layout one update is applied to.
    var incrementalItems: Int
    /// An update of a large layout is meant to take milliseconds: more runs than a prepare of that size.
    var incrementalRepetitions: Repetitions
    private var small: Repetitions
    private var medium: Repetitions
    private var large: Repetitions

    static let full = BenchPlan(
        prepareSizes: [10_000, 1_000_000, 10_000_000],
        queryItems: 1_000_000, queries: 20_000, baselineQueries: 20,
        queryRepetitions: Repetitions(warmUps: 1, runs: 5),
        memoryItems: 10_000_000,
        checkItems: 3_000, checkRects: 200,
        diffSizes: [100_000, 1_000_000],
        incrementalItems: 1_000_000, incrementalRepetitions: Repetitions(warmUps: 2, runs: 11),
        small: Repetitions(warmUps: 3, runs: 15),
        medium: Repetitions(warmUps: 1, runs: 5),
        large: Repetitions(warmUps: 1, runs: 3)
    )

    static let quick = BenchPlan(
        prepareSizes: [10_000],
        queryItems: 10_000, queries: 2_000, baselineQueries: 50,
        queryRepetitions: Repetitions(warmUps: 1, runs: 3),
        memoryItems: 100_000,
        checkItems: 1_000, checkRects: 50,
        diffSizes: [10_000],
        incrementalItems: 10_000, incrementalRepetitions: Repetitions(warmUps: 1, runs: 3),
        small: Repetitions(warmUps: 1, runs: 5),
        medium: Repetitions(warmUps: 1, runs: 3),
        large: Repetitions(warmUps: 1, runs: 3)
    )

    /// How often to prepare (or diff) `items` items.
    func repetitions(forItems items: Int) -> Repetitions {
        if items <= 100_000 { return small }
        if items <= 1_000_000 { return medium }
        return large
    }
}
