import Foundation
import LayoutClient
import LayoutTestKit
import ZeroMQ

/// A `layoutd` process of its own for the `keys` bench: its RSS is read from /proc, apart from the
/// bench's clients, and it can be stopped and started again on the same journal.
final class KeysDaemon {
    let frontEndpoint: String
    let statsEndpoint: String
    private let process = Process()

    /// The `layoutd` next to this executable (`swift build -c release --product layoutd`).
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("layoutd")
    }

    /// Starts the daemon with `journal` (`none` or `sqlite:PATH`) and `maxBytes` (`store.maxBytes`);
    /// returns once the process runs (not yet serving: see `awaitServing`).
    init(journal: String, maxBytes: Int, workers: Int, context: Context) throws {
        let layoutd = Self.executable
        guard FileManager.default.isExecutableFile(atPath: layoutd.path) else {
            throw BenchFailure("\(layoutd.path) not found: build the layoutd product too (swift build -c release --product layoutd)")
        }
        let ports = try (0..<3).map { _ in try Self.freeLoopbackEndpoint(context: context) }
        frontEndpoint = ports[0]
        statsEndpoint = ports[2]
        process.executableURL = layoutd
        process.arguments = [
            "--front", ports[0], "--events", ports[1], "--stats", ports[2], "--http", "",
            "--journal", journal, "--workers", String(workers), "--log-level", "error",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["LAYOUTD_STORE_MAX_BYTES"] = String(maxBytes)
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        stop()
    }

    /// Waits until the daemon answers a ping on its front (bounded: 10 min, for a restart on 10^6 keys on a loaded machine).
    func awaitServing(context: Context) throws {
        let probe = try BenchDealer(endpoint: frontEndpoint, context: context, timeout: .milliseconds(200))
        defer { probe.close() }
        let deadline = ContinuousClock.now + .seconds(600)
        while ContinuousClock.now < deadline {
            try probe.send(Array(#"{"v":1,"id":"up","op":"ping"}"#.utf8))
            if let reply = try? probe.receive(), reply.isSuccessReply { return }
        }
        throw BenchFailure("the daemon did not answer a ping within 10 min")
    }

    /// Resident memory of the process, in bytes (VmRSS).
    var residentBytes: Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            return kilobytes * 1024
        }
        return 0
    }

    /// CPU time the process has used (user and system), in seconds: on a loaded machine a better
    /// measure of a restart's cost than its wall time.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// `layouts.count` and `layouts.bytes` from the daemon's stats: what the store accounts.
    func accounted(context: Context) throws -> (count: Int, bytes: Int) {
        let client = try StatsClient(endpoint: statsEndpoint, context: context, timeout: .seconds(30))
        defer { client.close() }
        let layouts = try client.stats().object("layouts")
        return (layouts?.int("count") ?? 0, layouts?.int("bytes") ?? 0)
    }

    /// SIGTERM, then waits for the process to exit (its journal written).
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    private static func freeLoopbackEndpoint(context: Context) throws -> String {
        let socket = try Socket(.router, in: context)
        defer { socket.close() }
        try socket.bind("tcp://127.0.0.1:*")
        return try socket.lastEndpoint
    }
}
