import Foundation
import LayoutTestKit
import ZeroMQ

/// `layoutd-soak`: the load and fault suite. Each test runs a real `layoutd` as a child process on free
/// loopback ports and prints one JSON object per line (docs/BENCHMARKS.md, "Load and fault suite").
@main
enum LayoutdSoak {
    static func main() {
        let options: SoakOptions
        do {
            options = try SoakOptions(arguments: Array(CommandLine.arguments.dropFirst()))
        } catch {
            printError("layoutd-soak: \(error)\n\(SoakOptions.usage)")
            exit(64)
        }
        if options.showsHelp {
            print(SoakOptions.usage)
            return
        }
        let executable = options.layoutd ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("layoutd")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            printError("layoutd-soak: no layoutd executable at \(executable.path); build it (scripts/soak does) or pass --layoutd")
            exit(66)
        }
        // A client that outlives a daemon must not die of SIGPIPE on the raw sockets.
        signal(SIGPIPE, SIG_IGN)
        let plan = options.small ? SoakPlan.small : SoakPlan.full
        var loadAverage = [Double](repeating: .nan, count: 3)
        _ = getloadavg(&loadAverage, 3)
        emit([
            "test": "environment",
            "build": .string(isDebugBuild ? "debug" : "release"),
            "small": .bool(options.small),
            "cpus": .int(ProcessInfo.processInfo.activeProcessorCount),
            "zeromq": .string("\(zeroMQVersion.major).\(zeroMQVersion.minor).\(zeroMQVersion.patch)"),
            "loadAverage1m": .figure(loadAverage[0]),
            "tests": .string(options.tests.map(\.rawValue).joined(separator: ",")),
        ])

        let context: Context
        do {
            context = try Context()
        } catch {
            printError("layoutd-soak: no ZeroMQ context: \(error)")
            exit(1)
        }
        var failed: [String] = []
        for test in options.tests {
            var report = TestReport(test)
            do {
                try run(test, plan: plan, executable: executable, context: context, into: &report)
            } catch {
                report.fail("\(error)")
            }
            report.emit()
            if !report.passed { failed.append(test.rawValue) }
        }
        emit(["test": "summary", "passed": .int(options.tests.count - failed.count), "failed": .int(failed.count), "failedTests": .string(failed.joined(separator: ","))])
        context.terminate()
        if !failed.isEmpty {
            printError("layoutd-soak: failed: \(failed.joined(separator: ", ")) (see their \"failures\")")
            exit(1)
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
