import LayoutTestKit
import LayoutServer
import ZeroMQ

/// `layoutd-bench`: the daemon's round trips against raw libzmq, a large `layout` job end to end,
/// LayoutWire's codec figures, and the journal's cost, one JSON object per line (docs/BENCHMARKS.md).
@main
enum LayoutdBench {
    static func main() {
        // The same allocator settings as layoutd, so the in-process daemon behaves as the real one.
        MemoryTuning.keepFreedBuffers()
        let options = harness.options()
        let plan = options.quick ? BenchPlan.quick : BenchPlan.full
        let cores = BenchHost.onlineProcessors
        harness.emitEnvironment(options, [("workers", .int(cores)), ("zeromq", .version(zeroMQVersion))])
        let (daemon, echo, floor, context) = harness.setUp("cannot start the servers") {
            (try DaemonServer(workers: cores), try EchoServer(), try WorkFloorServer(), try Context())
        }
        harness.run(options, closing: .loadAndGoals, tearDown: {
            daemon.stop()
            echo.stop()
            floor.stop()
            context.terminate()
        }) { bench, goals in
            switch bench {
            case .roundtrip: return RoundTripBench(plan: plan, daemon: daemon, echo: echo, floor: floor, context: context).run(goals: &goals)
            case .job: return JobBench(plan: plan, daemon: daemon, echo: echo, context: context).run(goals: &goals)
            case .wire:
                WireBench(plan: plan).run(goals: &goals)
                return true
            case .journal: return JournalBench(plan: plan.journal, workers: cores, context: context).run(goals: &goals)
            case .keys:
                let scenarios = KeysBench.scenarios(quick: options.quick, keys: options.flags.keys, items: options.flags.items)
                try KeysBench(scenarios: scenarios, workers: cores, context: context).run()
                return true
            }
        }
    }
}
