import LayoutTestKit
import Foundation

/// The suite's tests, in the order a run prints them.
enum SoakTest: String, CaseIterable, Sendable {
    /// Many clients, mixed requests: no lost replies, latency and throughput.
    case mixed
    /// A subscriber that never reads, and one that reads and finds every gap by version.
    case slowSubscriber = "slow-subscriber"
    /// A small queue flooded with 10^6-item prepares: one reply each, bounded memory, recovery.
    case overload
    /// SIGTERM under load while a 4 M-item prepare runs: every admitted request answered, exit 0.
    case sigterm
    /// Hostile bodies: one typed reply each, the daemon serves on, memory stays flat.
    case mutations
    /// Connections opened and closed quickly: no leak, the daemon serves on.
    case connections
    /// Subscribe and unsubscribe storms: the subscription count returns to zero.
    case subscriptions
    /// Garbage on the stats socket (and raw bytes on every port): the daemon serves on.
    case statsGarbage = "stats-garbage"
}

/// The command line, parsed by hand as `layoutd-bench` does.
struct SoakOptions: Sendable {
    var small = false
    var tests: [SoakTest] = SoakTest.allCases
    var layoutd: URL?
    var showsHelp = false

    static let usage = """
        usage: layoutd-soak [--small] [--only TEST[,TEST…]] [--layoutd PATH]

          --small     scaled-down counts for CI (under two minutes)
          --only      run only these tests: \(SoakTest.allCases.map(\.rawValue).joined(separator: ", "))
          --layoutd   the layoutd executable to run (default: the one beside this executable)

        Each test starts its own layoutd as a child process on free loopback ports, drives it, stops it,
        and prints one JSON object per line (docs/BENCHMARKS.md, "Load and fault suite"). Exits 1 when a
        test failed. Build with -c release (scripts/soak does).
        """

    init(arguments: [String]) throws(UsageError) {
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            switch flag {
            case "--small":
                small = true
            case "--only":
                tests = try remaining.popList(after: flag, of: SoakTest.self)
            case "--layoutd":
                guard let path = remaining.popFirst() else { throw UsageError(description: "--layoutd needs a path") }
                layoutd = URL(fileURLWithPath: path)
            case "--help", "-h":
                showsHelp = true
            default:
                throw UsageError(description: "unknown argument \(flag)")
            }
        }
    }
}
