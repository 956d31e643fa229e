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
    /// Many small layouts in a daemon process of its own: memory per key, reads, a restart.
    case keys
}

/// `--keys N` and `--items N`: the `keys` bench at that scale only (both journals).
struct LayoutdBenchFlags: BenchFlags {
    var keys: Int?
    var items: Int?

    static var usage: [BenchFlagUsage] {
        [
            BenchFlagUsage("--keys N", "keys: N layouts (default 10^6, 10^4 with --quick), with and without the journal"),
            BenchFlagUsage("--items N", "keys: N items per layout (default 20)"),
        ]
    }

    mutating func parse(_ flag: String, from arguments: inout ArraySlice<String>) throws(UsageError) -> Bool {
        switch flag {
        case "--keys", "--items":
            guard let text = arguments.popFirst(), let value = Int(text), value > 0 else {
                throw UsageError(description: "\(flag) takes a positive count")
            }
            if flag == "--keys" { keys = value } else { items = value }
            return true
        default:
            return false
        }
    }
}

extension LayoutdBench {
    static let harness = BenchHarness<BenchName, LayoutdBenchFlags>(
        command: "layoutd-bench",
        quickHelp: "small counts: a smoke run for CI (a few seconds)",
        about: """
            Starts a daemon in this process on tcp://127.0.0.1:* and prints one JSON object per line
            (docs/BENCHMARKS.md). Build with -c release: debug numbers mean nothing.
            """
    )
}
