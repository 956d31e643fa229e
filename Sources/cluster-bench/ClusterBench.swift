import LayoutServer
import LayoutTestKit
#if canImport(Glibc)
import Glibc
#endif
import ZeroMQ

/// `cluster-bench`: the cluster's figures against a single daemon in the same run (docs/BENCHMARKS.md,
/// "The cluster"): the broker hop, scaling over worker processes, the broker's cost with many workers,
/// and failover. One JSON object per line.
@main
enum ClusterBench {
    static func main() {
        MemoryTuning.keepFreedBuffers()
        let options: BenchOptions
        do {
            options = try BenchOptions(arguments: Array(CommandLine.arguments.dropFirst()))
        } catch {
            printError("cluster-bench: \(error)\n\(BenchOptions.usage)")
            exit(64)
        }
        if options.servesNull {
            do {
                try NullServer.serve()
            } catch {
                printError("cluster-bench: null server: \(error)")
                exit(1)
            }
        }
        if options.showsHelp {
            print(BenchOptions.usage)
            return
        }
        let plan = options.quick ? BenchPlan.quick : BenchPlan.full
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        var load = [Double](repeating: .nan, count: 3)
        _ = getloadavg(&load, 3)
        emit([
            "bench": "environment", "build": .string(isDebugBuild ? "debug" : "release"), "quick": .bool(options.quick),
            "cpus": .int(cores), "zeromq": .string("\(zeroMQVersion.major).\(zeroMQVersion.minor).\(zeroMQVersion.patch)"),
            "loadAverage1m": .figure(load[0]), "benches": .string(options.benches.map(\.rawValue).joined(separator: ",")),
        ])
        let context: Context
        do {
            context = try Context()
        } catch {
            printError("cluster-bench: \(error)")
            exit(1)
        }
        var goals = Goals()
        var allGood = true
        for bench in options.benches {
            do {
                switch bench {
                case .hop: try HopBench(plan: plan, context: context, cores: cores).run(goals: &goals)
                case .scaling: try ScalingBench(plan: plan, context: context).run(goals: &goals)
                case .idle: try IdleWorkersBench(plan: plan, context: context).run(goals: &goals)
                case .failover: try FailoverBench(plan: plan, context: context, cores: cores).run(goals: &goals)
                }
            } catch {
                allGood = false
                emit(["bench": .string(bench.rawValue), "error": .string("\(error)")])
            }
        }
        _ = getloadavg(&load, 3)
        emit(["bench": "load", "loadAverage1m": .figure(load[0]), "loadAverage5m": .figure(load[1])])
        goals.emitAll()
        context.terminate()
        if !allGood {
            printError("cluster-bench: a benchmark failed (see its \"error\" line)")
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
