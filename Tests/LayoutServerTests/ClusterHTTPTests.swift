import Foundation
import LayoutTestKit
import Logging
import Testing
@testable import LayoutCluster
@testable import LayoutServer

/// The operations HTTP listener of the cluster roles over real sockets: the broker's probes and metrics,
/// and a worker that is ready only while joined to a broker.
@Suite(.serialized) struct ClusterHTTPTests {
    private func configuration(http: String) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.useFreeLoopbackPorts()
        configuration.httpAddress = http
        configuration.workers = 2
        return configuration
    }

    private var logger: Logger {
        var logger = Logger(label: "cluster-http-test")
        logger.logLevel = .error
        return logger
    }

    /// Asks `path` until it answers `status`, for at most `seconds`; the last response.
    private func poll(_ path: String, at address: String, until status: Int, seconds: Double = 10) throws -> HTTPProbe.Response {
        let deadline = Date().addingTimeInterval(seconds)
        var response = try HTTPProbe.request("GET", path, at: address)
        while response.status != status, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            response = try HTTPProbe.request("GET", path, at: address)
        }
        return response
    }

    @Test func theBrokerAnswersProbesAndItsClusterMetrics() throws {
        let cluster = try TestCluster(workers: 1, configuration: configuration(http: "127.0.0.1:0"), logger: logger)
        defer { cluster.stop() }
        let address = try #require(cluster.broker.httpAddress)
        #expect(try HTTPProbe.request("GET", "/healthz", at: address).status == 200)
        let ready = try HTTPProbe.request("GET", "/readyz", at: address)
        #expect(ready.status == 200)
        #expect(ready.body == "ready\n")
        let metrics = try HTTPProbe.request("GET", "/metrics", at: address)
        #expect(metrics.status == 200)
        #expect(metrics.body.contains("layoutd_worker_alive{worker=\"worker-0\"} 1"))
    }

    @Test func theBrokerWithoutHTTPBindsNone() throws {
        let cluster = try TestCluster(workers: 0, configuration: configuration(http: ""), logger: logger)
        defer { cluster.stop() }
        #expect(cluster.broker.httpAddress == nil)
    }

    @Test func aWorkerIsReadyWhileJoinedAndNotAfterItsBrokerStops() throws {
        let cluster = try TestCluster(workers: 0, configuration: configuration(http: ""), logger: logger)
        defer { cluster.stop() }
        let worker = try cluster.addWorker(named: "probed") { $0.workerHTTPAddress = "127.0.0.1:0" }
        let address = try #require(worker.httpAddress)
        let joined = try poll("/readyz", at: address, until: 200)
        #expect(joined.status == 200)
        #expect(try HTTPProbe.request("GET", "/healthz", at: address).status == 200)
        let metrics = try HTTPProbe.request("GET", "/metrics", at: address)
        #expect(metrics.status == 200)
        #expect(metrics.body.contains("# TYPE layoutd_"))

        cluster.broker.stop()
        let left = try poll("/readyz", at: address, until: 503)
        #expect(left.status == 503)
        #expect(left.body.hasPrefix("not joined"))
        // Alive all the same: a restart would not bring the broker back.
        #expect(try HTTPProbe.request("GET", "/healthz", at: address).status == 200)
    }

    @Test func aWorkerWithNoBrokerIsNotReady() throws {
        var cluster = ClusterConfiguration()
        cluster.role = .worker
        cluster.joinEndpoint = "tcp://127.0.0.1:1"
        cluster.joinEventsEndpoint = "tcp://127.0.0.1:2"
        cluster.workerHTTPAddress = "127.0.0.1:0"
        let worker = try ClusterWorker(configuration: configuration(http: ""), cluster: cluster, logger: logger).start()
        defer { worker.stop() }
        let address = try #require(worker.httpAddress)
        let response = try HTTPProbe.request("GET", "/readyz", at: address)
        #expect(response.status == 503)
        #expect(response.body.hasPrefix("not joined"))
        #expect(try HTTPProbe.request("GET", "/healthz", at: address).status == 200)
    }

}
