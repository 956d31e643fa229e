import LayoutTestKit
import LayoutEngine

/// The benchmarks, in the order a run prints them.
enum BenchName: String, BenchSelection {
    case check
    case prepare
    case query
    case memory
    /// `Diff.batch` and `applyingDiff` on large id lists.
    case diff
    /// One update applied to a large prepared layout, beside a full prepare of the result.
    case incremental
}

/// The flags of layout-bench's own, beside the harness's `--quick`, `--only` and `--help`.
struct LayoutFlags: BenchFlags {
    var layouts: [LayoutKind] = LayoutKind.allCases
    /// The directions `prepare` runs in (the other benches run left to right).
    var directions: [LayoutDirection] = [.leftToRight]
    /// Set when this process is the child that measures one layout's memory (`MemoryProbe`).
    var memoryProbe: MemoryProbe.Request?

    static var usage: [BenchFlagUsage] {
        [
            BenchFlagUsage("--layout KIND[,KIND…]", "run only these layouts: \(LayoutKind.allCases.map(\.rawValue).joined(separator: ", "))"),
            BenchFlagUsage(
                "--direction DIR[,DIR]",
                "the layout directions prepare runs in (default leftToRight): \(LayoutDirection.allCases.map(\.rawValue).joined(separator: ", "))"
            ),
        ]
    }

    mutating func parse(_ flag: String, from arguments: inout ArraySlice<String>) throws(UsageError) -> Bool {
        switch flag {
        case "--layout": layouts = try arguments.popList(after: flag, of: LayoutKind.self)
        case "--direction": directions = try arguments.popList(after: flag, of: LayoutDirection.self)
        case MemoryProbe.flag: memoryProbe = try MemoryProbe.Request(arguments: &arguments)
        default: return false
        }
        return true
    }
}

extension LayoutBench {
    static let harness = BenchHarness<BenchName, LayoutFlags>(
        command: "layout-bench",
        quickHelp: "small sizes and few runs: a smoke run for CI (seconds, not minutes)",
        about: "Prints one JSON object per line (docs/BENCHMARKS.md). Build with -c release: debug numbers mean nothing."
    )
}
