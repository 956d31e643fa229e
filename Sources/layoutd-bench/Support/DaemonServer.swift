import LayoutTestKit
import LayoutServer
import Logging

/// A layoutd serving in this process on free loopback ports: the server under test.
final class DaemonServer {
    private let running: RunningDaemon
    let workers: Int

    /// The front ROUTER's endpoint, its port resolved.
    var endpoint: String { running.frontEndpoint }
    /// The stats ROUTER's endpoint, its port resolved.
    var statsEndpoint: String { running.statsEndpoint }

    /// - Parameter configure: changes to the configuration after the free ports are set (a journal).
    init(workers: Int, configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var configuration = ServerConfiguration()
        configuration.useFreeLoopbackPorts()
        configuration.workers = workers
        configure(&configuration)
        var logger = Logger(label: "layoutd-bench")
        // A benchmark's stderr is for its own errors; the daemon only speaks up when something is wrong.
        logger.logLevel = .warning
        running = try LayoutDaemon(configuration: configuration, logger: logger).start()
        self.workers = configuration.resolvedWorkers
    }

    /// Stops the daemon and waits until its sockets are closed (and its journal, if any, written).
    func stop() {
        running.stop()
    }
}
