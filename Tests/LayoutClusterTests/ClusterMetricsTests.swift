import LayoutServer
import LayoutTestKit
import Testing
@testable import LayoutCluster

/// The broker's `metrics`: the single daemon's series for the whole cluster, and the cluster's own, with
/// a `worker` label per worker the broker lists.
@Suite struct ClusterMetricsTests {
    private func metrics(of cluster: SimulatedCluster) throws -> PrometheusText {
        try PrometheusText(text: String(decoding: cluster.core.statsAnswer(.metrics, now: cluster.clock), as: UTF8.self))
    }

    /// The ids in the `worker` label of the family `name`.
    private func workers(in text: PrometheusText, _ name: String) -> Set<String> {
        Set(text.series(of: name).keys.compactMap { series in
            series.firstRange(of: #"worker=""#).map { String(series[$0.upperBound...].prefix { $0 != "\"" }) }
        })
    }

    @Test func theDaemonsSeriesAndTheClustersPerWorker() throws {
        let cluster = SimulatedCluster()
        for name in ["a", "b", "c"] { cluster.join(name) }
        for index in 0..<12 { cluster.request(prepareBody("k\(index)", count: 5)) }
        cluster.deliverAll()
        cluster.request(#"{"v":1,"id":1,"op":"ping"}"#)
        cluster.deliverAll()

        let text = try metrics(of: cluster)
        #expect(text.value(#"layoutd_requests_total{op="prepare"}"#) == 12)
        #expect(text.types["layoutd_request_duration_seconds"] == "histogram")
        #expect(text.value(#"layoutd_request_duration_seconds_bucket{op="prepare",le="+Inf"}"#) == 12)
        #expect(text.value(#"layoutd_request_duration_seconds_count{op="ping"}"#) == 1)
        #expect(text.types["layoutd_latency_microseconds"] == "gauge")
        #expect(text.value("layoutd_layouts") == 12)

        let perWorker = [
            "layoutd_worker_alive", "layoutd_worker_heartbeat_age_seconds", "layoutd_worker_keys", "layoutd_worker_in_flight",
            "layoutd_worker_busy", "layoutd_worker_queued", "layoutd_worker_layout_bytes", "layoutd_worker_routed_total",
        ]
        for name in perWorker {
            #expect(workers(in: text, name) == ["a", "b", "c"], "\(name)")
            #expect(text.series(of: name).count == 3, "\(name)")
        }
        #expect(text.types["layoutd_worker_routed_total"] == "counter")
        #expect(["a", "b", "c"].allSatisfy { text.value(#"layoutd_worker_alive{worker="\#($0)"}"#) == 1 })
        let keys = ["a", "b", "c"].compactMap { text.value(#"layoutd_worker_keys{worker="\#($0)"}"#) }
        #expect(keys.reduce(0, +) == 12)
        #expect(text.value("layoutd_cluster_workers") == 3)
        #expect(text.value("layoutd_cluster_workers_alive") == 3)
        #expect(text.value("layoutd_cluster_queue_depth") == 0)
        #expect(text.value(#"layoutd_cluster_routed_total{route="keyed"}"#) == 12)
        #expect(text.value(#"layoutd_cluster_routed_total{route="stateless"}"#) == 1)
        #expect(text.value("layoutd_cluster_workers_joined_total") == 3)
        #expect(text.value("layoutd_cluster_recipes") == 12)
        #expect(text.types["layoutd_cluster_broker_thread_cpu_seconds_total"] == "counter")
    }

    @Test func aWorkerThatLeftLosesItsSeriesOnceTheBrokerForgetsIt() throws {
        let cluster = SimulatedCluster()
        let a = cluster.join("a")
        cluster.join("b")
        for index in 0..<6 { cluster.request(prepareBody("k\(index)", count: 5)) }
        cluster.deliverAll()
        #expect(workers(in: try metrics(of: cluster), "layoutd_worker_alive") == ["a", "b"])

        cluster.kill("b")
        // Declared dead: listed (as in `stats`) with alive 0, for a while.
        let dead = try metrics(of: cluster)
        #expect(dead.value(#"layoutd_worker_alive{worker="b"}"#) == 0)
        #expect(dead.value(#"layoutd_worker_alive{worker="a"}"#) == 1)
        #expect(dead.value("layoutd_cluster_workers") == 1)
        #expect(dead.value("layoutd_cluster_workers_died_total") == 1)

        // Sixty heartbeat intervals later the broker forgets it, and its series go; a's stay.
        for _ in 0..<61 {
            cluster.clock += 1_000_000_000
            _ = cluster.core.heard(from: a.routingID, now: cluster.clock)
            cluster.core.tick(now: cluster.clock)
        }
        let gone = try metrics(of: cluster)
        #expect(gone.samples.keys.filter { $0.contains(#"worker="b""#) }.isEmpty)
        #expect(gone.value(#"layoutd_worker_alive{worker="a"}"#) == 1)
        #expect(workers(in: gone, "layoutd_worker_routed_total") == ["a"])
        #expect(gone.value("layoutd_cluster_workers_died_total") == 1)
    }

    @Test func aWorkerRegisteredAgainUnderItsIDShowsItsNewRegistrationOnce() throws {
        let cluster = SimulatedCluster()
        cluster.join("a")
        cluster.join("b")
        for index in 0..<20 { cluster.request(prepareBody("k\(index)", count: 5)) }
        cluster.deliverAll()
        let routed = try #require(try metrics(of: cluster).value(#"layoutd_worker_routed_total{worker="b"}"#))
        #expect(routed > 0)

        cluster.kill("b")
        cluster.join("b")
        // Both registrations are listed; the label shows the connected one, its counter started afresh.
        #expect(cluster.core.workers.filter { $0.name == "b" }.count == 2)
        let text = try metrics(of: cluster)
        #expect(text.value(#"layoutd_worker_alive{worker="b"}"#) == 1)
        #expect(text.value(#"layoutd_worker_routed_total{worker="b"}"#) == 0)
        #expect(text.series(of: "layoutd_worker_alive").count == 2)
    }
}
