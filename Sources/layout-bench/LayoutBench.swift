import LayoutTestKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LayoutEngine

/// `layout-bench`: prepare, query and memory figures of every layout against the seeds' way of writing
/// layouts, and the cost of diffs and batch updates, one JSON object per line (docs/BENCHMARKS.md).
@main
enum LayoutBench {
    static func main() {
        let options: BenchOptions
        do {
            options = try BenchOptions(arguments: Array(CommandLine.arguments.dropFirst()))
        } catch {
            printError("layout-bench: \(error)\n\(BenchOptions.usage)")
            exit(64)
        }
        if options.showsHelp {
            print(BenchOptions.usage)
            return
        }
        if let probe = options.memoryProbe {
            exit(MemoryProbe.run(probe))
        }

        let plan = options.quick ? BenchPlan.quick : BenchPlan.full
        emit([
            "bench": "environment",
            "build": .string(isDebugBuild ? "debug" : "release"),
            "quick": .bool(options.quick),
            "cpus": .int(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))),
            "benches": .string(options.benches.map(\.rawValue).joined(separator: ",")),
            "layouts": .string(options.layouts.map(\.rawValue).joined(separator: ",")),
            "directions": .string(options.directions.map(\.rawValue).joined(separator: ",")),
        ])
        var agrees = true
        for bench in options.benches {
            switch bench {
            case .check: agrees = CheckBench(plan: plan, layouts: options.layouts).run()
            case .prepare: PrepareBench(plan: plan, layouts: options.layouts, directions: options.directions).run()
            case .query: QueryBench(plan: plan, layouts: options.layouts).run()
            case .memory: MemoryBench(plan: plan, layouts: options.layouts).run()
            case .diff: DiffBench(plan: plan).run()
            case .incremental: IncrementalBench(plan: plan, layouts: options.layouts).run()
            }
        }
        if !agrees {
            printError("layout-bench: a layout disagrees with its seed port (see the \"check\" lines)")
            exit(1)
        }
    }

    private static var isDebugBuild: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    private static func printError(_ text: String) {
        var standardError = StandardError()
        print(text, to: &standardError)
    }
}
