import LayoutTestKit
/// The benchmarks, in the order a run prints them.
enum BenchName: String, CaseIterable, Sendable {
    /// Small-op round trips against the daemon and against a raw libzmq echo.
    case roundtrip
    /// A large `layout` job end to end, with its decode / prepare / encode breakdown.
    case job
    /// LayoutWire's own codec benchmarks (`WireBenchmarks`).
    case wire
}

/// The command line, parsed by hand: a few flags need no dependency.
struct BenchOptions: Sendable {
    var quick = false
    var benches: [BenchName] = BenchName.allCases
    var showsHelp = false

    static let usage = """
        usage: layoutd-bench [--quick] [--only BENCH[,BENCH…]]

          --quick    small counts: a smoke run for CI (a few seconds)
          --only     run only these benchmarks: \(BenchName.allCases.map(\.rawValue).joined(separator: ", "))

        Starts a daemon in this process on tcp://127.0.0.1:* and prints one JSON object per line
        (docs/BENCHMARKS.md). Build with -c release: debug numbers mean nothing.
        """

    init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            switch flag {
            case "--quick":
                quick = true
            case "--only":
                benches = try remaining.popList(after: flag, of: BenchName.self)
            case "--help", "-h":
                showsHelp = true
            default:
                throw UsageError(description: "unknown argument \(flag)")
            }
        }
    }
}
