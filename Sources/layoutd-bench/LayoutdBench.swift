import LayoutTestKit
import LayoutServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ZeroMQ

/// `layoutd-bench`: the daemon's round trips against raw libzmq, a large `layout` job end to end, and
/// LayoutWire's codec figures, one JSON object per line (docs/BENCHMARKS.md).
@main
enum LayoutdBench {
    static func main() {
        // The same allocator settings as layoutd, so the in-process daemon behaves as the real one.
        MemoryTuning.keepFreedBuffers()
        let options: BenchOptions
        do {
            options = try BenchOptions(arguments: Array(CommandLine.arguments.dropFirst()))
        } catch {
            printError("layoutd-bench: \(error)\n\(BenchOptions.usage)")
            exit(64)
        }
        if options.showsHelp {
            print(BenchOptions.usage)
            return
        }
        let plan = options.quick ? BenchPlan.quick : BenchPlan.full
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        var loadAverage = [Double](repeating: .nan, count: 3)
        _ = getloadavg(&loadAverage, 3)
        emit([
            "bench": "environment",
            "build": .string(isDebugBuild ? "debug" : "release"),
            "quick": .bool(options.quick),
            "cpus": .int(cores),
            "workers": .int(cores),
            "zeromq": .string("\(zeroMQVersion.major).\(zeroMQVersion.minor).\(zeroMQVersion.patch)"),
            "loadAverage1m": .figure(loadAverage[0]),
            "benches": .string(options.benches.map(\.rawValue).joined(separator: ",")),
        ])

        let servers: (DaemonServer, EchoServer, Context)
        do {
            servers = (try DaemonServer(workers: cores), try EchoServer(), try Context())
        } catch {
            printError("layoutd-bench: cannot start the servers: \(error)")
            exit(1)
        }
        let (daemon, echo, context) = servers
        var goals = Goals()
        var allGood = true
        for bench in options.benches {
            switch bench {
            case .roundtrip:
                allGood = RoundTripBench(plan: plan, daemon: daemon, echo: echo, context: context).run(goals: &goals) && allGood
            case .job:
                allGood = JobBench(plan: plan, daemon: daemon, echo: echo, context: context).run(goals: &goals) && allGood
            case .wire:
                WireBench(plan: plan).run(goals: &goals)
            }
        }
        var loadAfter = [Double](repeating: .nan, count: 3)
        _ = getloadavg(&loadAfter, 3)
        emit(["bench": "load", "loadAverage1m": .figure(loadAfter[0]), "loadAverage5m": .figure(loadAfter[1])])
        goals.emitAll()
        daemon.stop()
        echo.stop()
        context.terminate()
        if !allGood {
            printError("layoutd-bench: a benchmark failed (see its \"error\" line)")
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
