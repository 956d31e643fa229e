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

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            switch flag {
            case "--quick":
                quick = true
            case "--only":
                benches = try Self.list(after: flag, in: &remaining, of: BenchName.self)
            case "--layout":
                layouts = try Self.list(after: flag, in: &remaining, of: LayoutKind.self)
            case "--direction":
                directions = try Self.list(after: flag, in: &remaining, of: LayoutDirection.self)
            case "--help", "-h":
                showsHelp = true
            case MemoryProbe.flag:
                memoryProbe = try MemoryProbe.Request(arguments: &remaining)
            default:
                throw UsageError(description: "unknown argument \(flag)")
            }
        }
    }

    /// A comma-separated list of raw values following `flag`, in the type's own order.
    private static func list<Value: RawRepresentable & CaseIterable>(
        after flag: String, in arguments: inout ArraySlice<String>, of type: Value.Type
    ) throws(UsageError) -> [Value] where Value.RawValue == String {
        guard let text = arguments.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
        var chosen: [String] = []
        for name in text.split(separator: ",") {
            guard Value(rawValue: String(name)) != nil else {
                throw UsageError(description: "\(flag): unknown value \(name)")
            }
            chosen.append(String(name))
        }
        guard !chosen.isEmpty else { throw UsageError(description: "\(flag) needs a value") }
        return Value.allCases.filter { chosen.contains($0.rawValue) }
    }
}
