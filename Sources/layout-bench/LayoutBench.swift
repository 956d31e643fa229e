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
        let options = harness.options()
        let layouts = options.flags.layouts
        if let probe = options.flags.memoryProbe {
            exit(MemoryProbe.run(probe))
        }
        let plan = options.quick ? BenchPlan.quick : BenchPlan.full
        harness.emitEnvironment(options, loadAverage: false, trailing: [
            ("layouts", .string(layouts.map(\.rawValue).joined(separator: ","))),
            ("directions", .string(options.flags.directions.map(\.rawValue).joined(separator: ","))),
        ])
        harness.run(options, closing: .none, failure: "a layout disagrees with its seed port (see the \"check\" lines)") { bench, _ in
            switch bench {
            case .check: return CheckBench(plan: plan, layouts: layouts).run()
            case .prepare: PrepareBench(plan: plan, layouts: layouts, directions: options.flags.directions).run()
            case .query: QueryBench(plan: plan, layouts: layouts).run()
            case .memory: MemoryBench(plan: plan, layouts: layouts).run()
            case .diff: DiffBench(plan: plan).run()
            case .incremental: IncrementalBench(plan: plan, layouts: layouts).run()
            }
            return true
        }
    }
}
