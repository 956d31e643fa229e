import Foundation
import LayoutTestKit
import ZeroMQ

/// `layoutd-soak`: the load and fault suite. Each test runs a real `layoutd` as a child process on free
/// loopback ports and prints one JSON object per line (docs/BENCHMARKS.md, "Load and fault suite").
@main
enum LayoutdSoak {
    static func main() {
        let options = harness.options()
        let executable = options.flags.layoutd ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("layoutd")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            harness.fail("no layoutd executable at \(executable.path); build it (scripts/soak does) or pass --layoutd", status: 66)
        }
        // A client that outlives a daemon must not die of SIGPIPE on the raw sockets.
        signal(SIGPIPE, SIG_IGN)
        let plan = options.quick ? SoakPlan.small : SoakPlan.full
        harness.emitEnvironment(options, cpus: ProcessInfo.processInfo.activeProcessorCount, [("zeromq", .version(zeroMQVersion))])
        let context = harness.setUp("no ZeroMQ context") { try Context() }
        harness.run(options, closing: .summary, tearDown: { context.terminate() }) { test, _ in
            var report = TestReport(test)
            do {
                try run(test, plan: plan, executable: executable, context: context, into: &report)
            } catch {
                report.fail("\(error)")
            }
            report.emit()
            return report.passed
        }
    }

    private static func run(_ test: SoakTest, plan: SoakPlan, executable: URL, context: Context, into report: inout TestReport) throws {
        switch test {
        case .mixed: try MixedLoad(plan: plan, executable: executable, context: context).run(into: &report)
        case .slowSubscriber: try SlowSubscriber(plan: plan, executable: executable, context: context).run(into: &report)
        case .overload: try Overload(plan: plan, executable: executable, context: context).run(into: &report)
        case .sigterm: try SigtermDrain(plan: plan, executable: executable, context: context).run(into: &report)
        case .mutations: try MutatedBodies(plan: plan, executable: executable, context: context).run(into: &report)
        case .connections: try Churn(plan: plan, executable: executable, context: context).connections(into: &report)
        case .subscriptions: try Churn(plan: plan, executable: executable, context: context).subscriptions(into: &report)
        case .statsGarbage: try Churn(plan: plan, executable: executable, context: context).statsGarbage(into: &report)
        case .httpGateway: try HTTPGateway(plan: plan, executable: executable).run(into: &report)
        }
    }
}
