import LayoutTestKit

/// The benchmarks, in the order a run prints them.
enum BenchName: String, BenchSelection {
    /// Small-op round trips against the daemon and against a raw libzmq echo.
    case roundtrip
    /// A large `layout` job end to end, with its decode / prepare / encode breakdown.
    case job
    /// LayoutWire's own codec benchmarks (`WireBenchmarks`).
    case wire
    /// The journal's cost: small updates, a large `prepare` and a restart, with and without a journal.
    case journal
}

extension LayoutdBench {
    static let harness = BenchHarness<BenchName, NoBenchFlags>(
        command: "layoutd-bench",
        quickHelp: "small counts: a smoke run for CI (a few seconds)",
        about: """
            Starts a daemon in this process on tcp://127.0.0.1:* and prints one JSON object per line
            (docs/BENCHMARKS.md). Build with -c release: debug numbers mean nothing.
            """
    )
}
