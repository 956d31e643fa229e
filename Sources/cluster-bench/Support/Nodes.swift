import Foundation
import LayoutCluster
import LayoutServer
import LayoutTestKit
import Logging
import ZeroMQ

/// The servers a benchmark talks to: a single daemon or a broker in this process, workers as
/// `layoutd --role worker` processes or in this process.
enum Nodes {
    /// Errors only (a benchmark's stderr is for its own errors), unless `LAYOUTD_LOG_LEVEL` says otherwise.
    static var logger: Logger {
        var logger = Logger(label: "cluster-bench")
        logger.logLevel = ProcessInfo.processInfo.environment["LAYOUTD_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .error
        return logger
    }

    static func configuration(workers: Int) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.useFreeLoopbackPorts()
        configuration.workers = workers
        return configuration
    }

    static func daemon(workers: Int) throws -> RunningDaemon {
        try LayoutDaemon(configuration: configuration(workers: workers), logger: logger).start()
    }

    static func broker() throws -> RunningNode {
        var cluster = ClusterConfiguration()
        cluster.role = .broker
        // A fresh cluster: no worker of an earlier broker to wait for.
        cluster.rejoinMilliseconds = 0
        // As a broker process reads it, so that failover can be measured with and without the grace.
        if let grace = ProcessInfo.processInfo.environment["LAYOUTD_CLUSTER_DROP_GRACE_MILLIS"].flatMap(Int.init) {
            cluster.dropGraceMilliseconds = grace
        }
        // Worker processes read it from the same environment: the lease, and so a failover with direct
        // reads, scales with it.
        cluster.heartbeatMilliseconds = heartbeatMilliseconds
        cluster.backEndpoint = "tcp://127.0.0.1:*"
        cluster.eventsInEndpoint = "tcp://127.0.0.1:*"
        return try ClusterBroker(configuration: configuration(workers: 1), cluster: cluster, logger: logger).start()
    }

    /// `LAYOUTD_CLUSTER_HEARTBEAT_MILLIS` as a layoutd process reads it, else the default.
    static var heartbeatMilliseconds: Int {
        ProcessInfo.processInfo.environment["LAYOUTD_CLUSTER_HEARTBEAT_MILLIS"].flatMap(Int.init) ?? ClusterConfiguration().heartbeatMilliseconds
    }

    /// A worker in this process, joined to `broker`.
    static func worker(joining broker: RunningNode, name: String, workers: Int) throws -> RunningNode {
        var cluster = ClusterConfiguration()
        cluster.role = .worker
        cluster.heartbeatMilliseconds = heartbeatMilliseconds
        cluster.joinEndpoint = broker.backEndpoint
        cluster.joinEventsEndpoint = broker.eventsInEndpoint
        cluster.workerID = name
        return try ClusterWorker(configuration: configuration(workers: workers), cluster: cluster, logger: logger).start()
    }

    /// Waits until the broker counts `count` live workers.
    static func waitForWorkers(_ count: Int, at broker: RunningNode, context: Context) throws {
        for _ in 0..<2000 {
            let totals = (try stats(of: broker, context: context)["cluster"] as? [String: Any])?["totals"] as? [String: Any]
            if totals?["alive"] as? Int == count { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw BenchFailure("\(count) workers never joined")
    }

    static func stats(of broker: RunningNode, context: Context) throws -> [String: Any] {
        let socket = try Socket(.req, in: context)
        defer { socket.close() }
        try socket.set(.receiveTimeout, 5_000)
        try socket.connect(broker.statsEndpoint)
        _ = try socket.send("stats")
        guard let reply = try socket.receiveBytes(),
              let object = try JSONSerialization.jsonObject(with: Data(reply)) as? [String: Any] else { throw BenchFailure("no stats") }
        return object
    }
}

/// `layoutd --role worker` as a process of its own, pinned to one CPU when asked (`taskset`), so that
/// each worker stands for a machine of that many cores.
final class WorkerProcess: ChildProcess {
    let name: String
    let process = Process()

    /// The `layoutd` built next to this executable.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("layoutd")
    }

    /// `direct`: the worker's direct endpoint for clients' reads (`--direct`), none when nil.
    init(joining broker: RunningNode, name: String, workers: Int, cpu: Int? = nil, direct: String? = nil) throws {
        self.name = name
        let layoutd = Self.executable
        guard FileManager.default.isExecutableFile(atPath: layoutd.path) else {
            throw BenchFailure("\(layoutd.path) not found: build the layoutd product too (swift build -c release --product layoutd)")
        }
        var arguments = [
            "--role", "worker", "--join", broker.backEndpoint, "--join-events", broker.eventsInEndpoint,
            "--worker-id", name, "--workers", String(workers), "--log-level", "error",
        ]
        if let direct { arguments += ["--direct", direct] }
        if let cpu, FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            arguments = ["-c", String(cpu), layoutd.path] + arguments
        } else {
            process.executableURL = layoutd
        }
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        stop()
    }
}
