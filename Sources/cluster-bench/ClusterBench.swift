import LayoutServer
import LayoutTestKit
import ZeroMQ

/// `cluster-bench`: the cluster's figures against a single daemon in the same run (docs/BENCHMARKS.md,
/// "The cluster"): the broker hop, scaling over worker processes, the broker's cost with many workers,
/// failover, and direct reads. One JSON object per line.
@main
enum ClusterBench {
    static func main() {
        MemoryTuning.keepFreedBuffers()
        let options = harness.options()
        if options.flags.servesNull {
            do {
                try NullServer.serve()
            } catch {
                harness.fail("null server: \(error)")
            }
        }
        let plan = options.quick ? BenchPlan.quick : BenchPlan.full
        let cores = BenchHost.onlineProcessors
        harness.emitEnvironment(options, [("zeromq", .version(zeroMQVersion))])
        let context = harness.setUp { try Context() }
        harness.run(options, closing: .loadAndGoals, tearDown: { context.terminate() }) { bench, goals in
            switch bench {
            case .hop: try HopBench(plan: plan, context: context, cores: cores).run(goals: &goals)
            case .scaling: try ScalingBench(plan: plan, context: context).run(goals: &goals)
            case .idle: try IdleWorkersBench(plan: plan, context: context).run(goals: &goals)
            case .failover: try FailoverBench(plan: plan, context: context, cores: cores).run(goals: &goals)
            case .direct: try DirectReadBench(plan: plan, context: context, cores: cores).run(goals: &goals)
            case .takeover: try TakeoverBench(plan: plan, context: context).run(goals: &goals)
            case .pages: try PagesBench(plan: plan, context: context, cores: cores).run(goals: &goals)
            }
            return true
        }
    }
}
