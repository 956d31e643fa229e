import LayoutTestKit
import LayoutEngine

/// The benchmarks, in the order a run prints them.
enum BenchName: String, CaseIterable, Sendable {
    case check
    case prepare
    case query
    case memory
    /// `Diff.batch` and `applyingDiff` on large id lists.
    case diff
    /// One update applied to a large prepared layout, beside a full prepare of the result.
    case incremental
}

/// The command line, parsed by hand: the bench takes no dependencies for a few flags.
struct BenchOptions: Sendable {
    var quick = false
    var benches: [BenchName] = BenchName.allCases
    var layouts: [LayoutKind] = LayoutKind.allCases
    /// The directions `prepare` runs in (the other benches run left to right).
    var directions: [LayoutDirection] = [.leftToRight]
    /// Set when this process is the child that measures one layout's memory (`MemoryProbe`).
    var memoryProbe: MemoryProbe.Request?
    var showsHelp = false

    static let usage = """
        usage: layout-bench [--quick] [--only BENCH[,BENCH…]] [--layout KIND[,KIND…]] [--direction DIR[,DIR]]

          --quick    small sizes and few runs: a smoke run for CI (seconds, not minutes)
          --only     run only these benchmarks: \(BenchName.allCases.map(\.rawValue).joined(separator: ", "))
          --layout   run only these layouts: \(LayoutKind.allCases.map(\.rawValue).joined(separator: ", "))
          --direction  the layout directions prepare runs in (default leftToRight): \(LayoutDirection.allCases.map(\.rawValue).joined(separator: ", "))

        Prints one JSON object per line (docs/BENCHMARKS.md). Build with -c release: debug numbers mean nothing.
        """

    init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            switch flag {
            case "--quick":
                quick = true
            case "--only":
                benches = try remaining.popList(after: flag, of: BenchName.self)
            case "--layout":
                layouts = try remaining.popList(after: flag, of: LayoutKind.self)
            case "--direction":
                directions = try remaining.popList(after: flag, of: LayoutDirection.self)
            case "--help", "-h":
                showsHelp = true
            case MemoryProbe.flag:
                memoryProbe = try MemoryProbe.Request(arguments: &remaining)
            default:
                throw UsageError(description: "unknown argument \(flag)")
            }
        }
    }
}
