import Foundation
import LayoutTestKit
import Testing
@testable import LayoutServer

/// The operations HTTP listener over real sockets: probes, metrics, shutdown, and turning it off.
@Suite(.serialized) struct OperationsHTTPTests {
    /// The HTTP listener is the single daemon's.
    private func single(_ daemon: TestDaemon) throws -> RunningDaemon {
        daemon.running
    }

    private func daemonWithHTTP(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> (TestDaemon, String) {
        let daemon = try TestDaemon {
            $0.httpAddress = "127.0.0.1:0"
            configure(&$0)
        }
        let address = try #require(try single(daemon).httpAddress)
        return (daemon, address)
    }

    @Test func probesAnswerWhileServing() throws {
        let (daemon, address) = try daemonWithHTTP()
        let health = try HTTPProbe.request("GET", "/healthz", at: address)
        #expect(health.status == 200)
        let ready = try HTTPProbe.request("GET", "/readyz", at: address)
        #expect(ready.status == 200)
        #expect(ready.body == "ready\n")
        // HEAD answers the same status without a body.
        #expect(try HTTPProbe.request("HEAD", "/readyz", at: address).status == 200)
        #expect(try daemon.call(#"{"v":1,"id":1,"op":"ping"}"#).ok)
    }

    @Test func unknownPathsAndMethodsAreRefused() throws {
        let (daemon, address) = try daemonWithHTTP()
        defer { withExtendedLifetime(daemon) {} }
        #expect(try HTTPProbe.request("GET", "/nosuch", at: address).status == 404)
        #expect(try HTTPProbe.request("GET", "/metricsx", at: address).status == 404)
        let post = try HTTPProbe.request("POST", "/metrics", at: address)
        #expect(post.status == 405)
        #expect(post.headers["allow"] == "GET, HEAD")
        // A query string does not change the route.
        #expect(try HTTPProbe.request("GET", "/healthz?verbose=1", at: address).status == 200)
        // Not HTTP at all: the connection is answered 400 or closed, and the listener serves on.
        let parts = address.split(separator: ":")
        let garbage = try HTTPProbe.exchange(host: String(parts[0]), port: UInt16(parts[1]) ?? 0, request: "\u{1}\u{2}garbage\r\n\r\n")
        #expect(garbage.isEmpty || String(decoding: garbage.prefix(12), as: UTF8.self).hasPrefix("HTTP/1.1 400"))
        #expect(try HTTPProbe.request("GET", "/healthz", at: address).status == 200)
    }

    @Test func metricsParseAsPrometheusTextAndCountersRise() throws {
        let (daemon, address) = try daemonWithHTTP()
        #expect(try daemon.call(#"{"v":1,"id":1,"op":"ping"}"#).ok)
        let before = try PrometheusText(try HTTPProbe.request("GET", "/metrics", at: address))
        for _ in 0..<5 { #expect(try daemon.call(#"{"v":1,"id":1,"op":"ping"}"#).ok) }
        #expect(try daemon.call(mosaicJob(key: "m", count: 250)).ok)
        #expect(try daemon.call("not json").errorCode == "invalid_json")
        let response = try HTTPProbe.request("GET", "/metrics", at: address)
        #expect(response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
        let after = try PrometheusText(response)

        #expect(after.value(#"layoutd_requests_total{op="ping"}"#) == (before.value(#"layoutd_requests_total{op="ping"}"#) ?? 0) + 5)
        #expect(after.value(#"layoutd_errors_total{code="invalid_json"}"#) == 1)
        #expect(after.value("layoutd_items_prepared_total") == 250)
        #expect(after.value("layoutd_layouts") == 1)
        #expect(after.types["layoutd_requests_total"] == "counter")
        #expect(after.types["layoutd_request_duration_seconds"] == "histogram")
        #expect(after.value(#"layoutd_request_duration_seconds_count{op="ping"}"#) == 6)
        #expect(after.value(#"layoutd_request_duration_seconds_bucket{op="ping",le="+Inf"}"#) == 6)
        #expect(after.value(#"layoutd_latency_microseconds{op="ping",quantile="0.99"}"#) != nil)
        #expect(after.value("layoutd_worker_threads") == 2)
        #expect((after.value("process_resident_memory_bytes") ?? 0) > 0)
        #expect((after.value("process_open_fds") ?? 0) > 0)
        // Buckets are cumulative: never smaller than the one below.
        let buckets = after.samples.filter { $0.key.hasPrefix(#"layoutd_request_duration_seconds_bucket{op="ping""#) }
        #expect(buckets.count == DaemonMetrics.requestDurationBuckets.count + 1)

        // The stats socket's `metrics` is the same exposition.
        let socketText = try PrometheusText(text: try daemon.metrics())
        #expect(socketText.value(#"layoutd_requests_total{op="ping"}"#) == after.value(#"layoutd_requests_total{op="ping"}"#))
        #expect(Set(socketText.types.keys) == Set(after.types.keys))
    }

    /// Every metric the Grafana dashboard in deploy/ queries is one the daemon exports.
    @Test func theDashboardQueriesOnlyExportedMetrics() throws {
        // With a journal, as the daemon runs by default: the dashboard has a row for it.
        let folder = TemporaryFolder()
        let (daemon, address) = try daemonWithHTTP { $0.journalURL = .sqlite(path: folder.journalPath) }
        #expect(try daemon.call(#"{"v":1,"id":1,"op":"ping"}"#).ok)
        #expect(try daemon.call("not json").errorCode == "invalid_json")
        let exported = try PrometheusText(try HTTPProbe.request("GET", "/metrics", at: address))
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let dashboard = try String(contentsOf: root.appendingPathComponent("deploy/grafana/layoutd.json"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"\b(layoutd_[a-z_]+|process_[a-z_]+)"#)
        let names = Set(pattern.matches(in: dashboard, range: NSRange(dashboard.startIndex..., in: dashboard)).compactMap {
            Range($0.range, in: dashboard).map { String(dashboard[$0]) }
        })
        #expect(names.count > 10)
        for name in names {
            let family = ["_bucket", "_sum", "_count"].reduce(name) { $0.hasSuffix($1) ? String($0.dropLast($1.count)) : $0 }
            #expect(exported.types[family] != nil, "the dashboard queries \(name), which /metrics does not export")
        }
    }

    @Test func readinessFailsDuringShutdownAndTheListenerCloses() throws {
        let (daemon, address) = try daemonWithHTTP()
        let dealer = try daemon.dealer()
        try dealer.set(.receiveTimeout, 120_000)
        // A job long enough to keep the daemon draining while /readyz is asked.
        _ = try dealer.send(multipart: [[], Array(mosaicJob(key: "big", count: 3_000_000).utf8)])
        var admitted = false
        for _ in 0..<500 where !admitted {
            admitted = (try daemon.stats()["inFlight"] as? Int ?? 0) > 0
        }
        #expect(admitted)
        let running = try single(daemon)
        running.requestStop()
        #expect(running.health.phase == .draining || running.health.phase == .stopped)
        // 503 while draining, or no listener once the sockets are closed: never 200.
        switch Result(catching: { try HTTPProbe.request("GET", "/readyz", at: address) }) {
        case .success(let response):
            #expect(response.status == 503)
            #expect(response.body == "shutting down\n")
            #expect(try HTTPProbe.request("GET", "/healthz", at: address).status == 200)
        case .failure:
            break
        }
        let frames = try #require(try dealer.receiveMultipart(), "the admitted job is answered")
        #expect(try TestDaemon.object(frames[frames.count - 1]).ok)
        try single(daemon).stop()
        #expect(try single(daemon).health.phase == .stopped)
        #expect(throws: HTTPProbe.Failure.self) { try HTTPProbe.request("GET", "/healthz", at: address) }
    }

    @Test func anEmptyAddressTurnsTheListenerOff() async throws {
        let daemon = try TestDaemon { $0.httpAddress = "" }
        #expect(try single(daemon).httpAddress == nil)
        #expect(try daemon.call(#"{"v":1,"id":1,"op":"ping"}"#).ok)
        let configuration = try await ConfigurationLoader.load(filePath: nil, environment: ["LAYOUTD_HTTP": "127.0.0.1:9"])
        #expect(configuration.httpAddress == "127.0.0.1:9")
        let off = try await ConfigurationLoader.load(filePath: nil, overrides: ["http": .init(.string(""), isSecret: false)], environment: [:])
        #expect(off.httpAddress == "")
        await #expect(throws: ConfigurationError.self) {
            try await ConfigurationLoader.load(filePath: nil, environment: ["LAYOUTD_HTTP": "5558"])
        }
    }

    @Test func aTakenPortFailsTheStart() throws {
        let (daemon, address) = try daemonWithHTTP()
        defer { withExtendedLifetime(daemon) {} }
        #expect(throws: ServerError.self) { try TestDaemon { $0.httpAddress = address } }
    }
}
