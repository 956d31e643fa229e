import LayoutTestKit
/// The median of the timed runs, in seconds.
struct Timing: Sendable {
    var seconds: Double
    var runs: Int
}

enum Stopwatch {
    /// Runs `body` `repetitions.warmUps + repetitions.runs` times and returns the median of the timed runs.
    ///
    /// What `body` returns is kept alive until the clock has stopped, so freeing it is never timed
    /// (neither for us nor for the baseline), and handed to `blackHole` so the work cannot be optimised away.
    static func measure<Result>(_ repetitions: Repetitions, _ body: () throws -> Result) rethrows -> Timing {
        let clock = ContinuousClock()
        for _ in 0..<repetitions.warmUps {
            blackHole(try body())
        }
        var samples: [Double] = []
        samples.reserveCapacity(repetitions.runs)
        for _ in 0..<Swift.max(1, repetitions.runs) {
            var result: Result?
            let start = clock.now
            result = try body()
            let elapsed = start.duration(to: clock.now)
            blackHole(result)
            result = nil
            samples.append(elapsed.seconds)
        }
        return Timing(seconds: Statistics.median(samples), runs: samples.count)
    }
}
