import LayoutTestKit
import Foundation

/// The suite's tests, in the order a run prints them.
enum SoakTest: String, BenchSelection {
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
    /// The HTTP fuzzer against the console's gateway: every request answered, the daemon bounded.
    case httpGateway = "http-gateway"
}

/// The flags of layoutd-soak's own, beside the harness's `--small`, `--only` and `--help`.
struct SoakFlags: BenchFlags {
    var layoutd: URL?

    static var usage: [BenchFlagUsage] {
        [BenchFlagUsage("--layoutd PATH", "the layoutd executable to run (default: the one beside this executable)")]
    }

    mutating func parse(_ flag: String, from arguments: inout ArraySlice<String>) throws(UsageError) -> Bool {
        guard flag == "--layoutd" else { return false }
        guard let path = arguments.popFirst() else { throw UsageError(description: "--layoutd needs a path") }
        layoutd = URL(fileURLWithPath: path)
        return true
    }
}

extension LayoutdSoak {
    static let harness = BenchHarness<SoakTest, SoakFlags>(
        command: "layoutd-soak",
        kind: .tests,
        quickHelp: "scaled-down counts for CI (under two minutes)",
        about: """
            Each test starts its own layoutd as a child process on free loopback ports, drives it, stops it,
            and prints one JSON object per line (docs/BENCHMARKS.md, "Load and fault suite"). Exits 1 when a
            test failed. Build with -c release (scripts/soak does).
            """
    )
}
