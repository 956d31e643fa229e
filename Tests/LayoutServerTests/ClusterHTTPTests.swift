import Foundation
import LayoutTestKit
import Logging
import Testing
import ZeroMQ
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

    /// One request to `front` (a broker's front socket), and its parsed reply.
    private func call(_ body: String, front: String) throws -> [String: Any] {
        let context = try Context()
        defer { context.terminate() }
        let dealer = try Socket(.dealer, in: context)
        defer { dealer.close() }
        try dealer.set(.receiveTimeout, 10_000)
        try dealer.connect(front)
        _ = try dealer.send(multipart: [[], Array(body.utf8)])
        guard let frames = try dealer.receiveMultipart() else { throw TestFailure("no reply to \(body.prefix(200))") }
        return try TestDaemon.object(frames[frames.count - 1])
    }

    /// `metrics` from the stats socket at `endpoint`, parsed.
    private func socketMetrics(at endpoint: String) throws -> PrometheusText {
        let context = try Context()
        defer { context.terminate() }
        let socket = try Socket(.req, in: context)
        defer { socket.close() }
        try socket.set(.receiveTimeout, 5_000)
        try socket.connect(endpoint)
        _ = try socket.send("metrics")
        guard let reply = try socket.receiveString() else { throw TestFailure("no metrics reply") }
        return try PrometheusText(text: reply)
    }

    @Test func theBrokerAnswersProbesAndItsClusterMetrics() throws {
        let cluster = try TestCluster(workers: 2, configuration: configuration(http: "127.0.0.1:0"), logger: logger)
        defer { cluster.stop() }
        let address = try #require(cluster.broker.httpAddress)
        #expect(try HTTPProbe.request("GET", "/healthz", at: address).status == 200)
        let ready = try HTTPProbe.request("GET", "/readyz", at: address)
        #expect(ready.status == 200)
        #expect(ready.body == "ready\n")
        for index in 0..<4 { #expect(try call(mosaicJob(key: "k\(index)", count: 20), front: cluster.broker.frontEndpoint).ok) }

        let metrics = try PrometheusText(try HTTPProbe.request("GET", "/metrics", at: address))
        // The single daemon's series, for the whole cluster.
        #expect(metrics.value(#"layoutd_requests_total{op="prepare"}"#) == 4)
        #expect(metrics.types["layoutd_request_duration_seconds"] == "histogram")
        #expect(metrics.value(#"layoutd_request_duration_seconds_bucket{op="prepare",le="+Inf"}"#) == 4)
        #expect(metrics.value("layoutd_layouts") == 4)
        #expect((metrics.value("process_resident_memory_bytes") ?? 0) > 0)
        // The cluster's, per worker.
        for worker in ["worker-0", "worker-1"] {
            #expect(metrics.value(#"layoutd_worker_alive{worker="\#(worker)"}"#) == 1)
            #expect(metrics.value(#"layoutd_worker_heartbeat_age_seconds{worker="\#(worker)"}"#) != nil)
        }
        #expect(metrics.value("layoutd_cluster_workers") == 2)
        #expect(metrics.value(#"layoutd_cluster_routed_total{route="keyed"}"#) == 4)

        // The stats socket's `metrics` is the same exposition.
        let socketText = try socketMetrics(at: cluster.broker.statsEndpoint)
        #expect(Set(socketText.types.keys) == Set(metrics.types.keys))
        #expect(socketText.value(#"layoutd_requests_total{op="prepare"}"#) == 4)
    }

    /// The HorizontalPodAutoscaler in deploy/k8s scales on a series the broker exports.
    @Test func theAutoscalerScalesOnABrokerMetric() throws {
        let cluster = try TestCluster(workers: 1, configuration: configuration(http: "127.0.0.1:0"), logger: logger)
        defer { cluster.stop() }
        let metrics = try PrometheusText(try HTTPProbe.request("GET", "/metrics", at: try #require(cluster.broker.httpAddress)))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let manifest = try String(contentsOf: root.appendingPathComponent("deploy/k8s/hpa.yaml"), encoding: .utf8)
        let names = manifest.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }.compactMap { line in
            line.firstRange(of: "name: layoutd_").map { String(line[line.index($0.lowerBound, offsetBy: 6)...]).trimmingCharacters(in: .whitespaces) }
        }
        #expect(names == ["layoutd_cluster_queue_depth"])
        for name in names { #expect(metrics.types[name] == "gauge", "hpa.yaml scales on \(name)") }
    }

    @Test func theBrokerWithoutHTTPBindsNone() throws {
        let cluster = try TestCluster(workers: 0, configuration: configuration(http: ""), logger: logger)
        defer { cluster.stop() }
        #expect(cluster.broker.httpAddress == nil)
    }

    @Test func aWorkerIsReadyWhileJoinedAndNotAfterItsBrokerStops() throws {
        let cluster = try TestCluster(workers: 0, configuration: configuration(http: ""), logger: logger)
        defer { cluster.stop() }
        let worker = try cluster.addWorker(named: "probed") {
            $0.workerHTTPAddress = "127.0.0.1:0"
            $0.workerStatsEndpoint = "tcp://127.0.0.1:*"
        }
        let address = try #require(worker.httpAddress)
        let joined = try poll("/readyz", at: address, until: 200)
        #expect(joined.status == 200)
        #expect(try HTTPProbe.request("GET", "/healthz", at: address).status == 200)
        #expect(try call(mosaicJob(key: "on-probed", count: 30), front: cluster.broker.frontEndpoint).ok)
        // The single daemon's exposition of its own pool and store, and whether it is joined.
        let metrics = try PrometheusText(try HTTPProbe.request("GET", "/metrics", at: address))
        #expect(metrics.value(#"layoutd_requests_total{op="prepare"}"#) == 1)
        #expect(metrics.value(#"layoutd_request_duration_seconds_count{op="prepare"}"#) == 1)
        #expect(metrics.value("layoutd_items_prepared_total") == 30)
        #expect(metrics.value("layoutd_layouts") == 1)
        #expect(metrics.value("layoutd_worker_threads") == 2)
        #expect(metrics.value("layoutd_cluster_worker_connected") == 1)
        #expect(metrics.types["layoutd_worker_alive"] == nil, "the broker's series are the broker's")
        let socketText = try socketMetrics(at: try #require(worker.statsEndpoint.isEmpty ? nil : worker.statsEndpoint))
        #expect(Set(socketText.types.keys) == Set(metrics.types.keys))
        #expect(socketText.value("layoutd_items_prepared_total") == 30)

        cluster.broker.stop()
        let left = try poll("/readyz", at: address, until: 503)
        #expect(left.status == 503)
        #expect(left.body.hasPrefix("not joined"))
        // Readiness and the gauge are read from two places, each as the worker's loop updates them:
        // the gauge follows within a pass, so it is polled for rather than read once.
        let deadline = Date().addingTimeInterval(10)
        var connected = try PrometheusText(try HTTPProbe.request("GET", "/metrics", at: address)).value("layoutd_cluster_worker_connected")
        while connected != 0, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            connected = try PrometheusText(try HTTPProbe.request("GET", "/metrics", at: address)).value("layoutd_cluster_worker_connected")
        }
        #expect(connected == 0)
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
