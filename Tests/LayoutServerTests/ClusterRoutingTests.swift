import Foundation
import Logging
import Testing
import LayoutClient
import LayoutTestKit
import ZeroMQ
@testable import LayoutServer

/// A broker with three workers in this process: keys spread, per-key order under concurrency, stats.
@Suite(.serialized) struct ClusterRoutingTests {
    @Test func keysSpreadOverTheWorkersAndStatsShowIt() throws {
        let daemon = try TestDaemon(.cluster(workers: 3))
        let dealer = try daemon.dealer()
        for index in 0..<60 { #expect(try daemon.call(mosaicJob(key: "spread-\(index)", count: 20), on: dealer).ok) }
        let cluster = try #require(try daemon.stats()["cluster"] as? [String: Any])
        let workers = try #require(cluster["workers"] as? [[String: Any]])
        let keys = workers.compactMap { $0["keys"] as? Int }
        #expect(keys.count == 3)
        #expect(keys.reduce(0, +) == 60)
        #expect(keys.allSatisfy { $0 >= 8 }, "keys per worker: \(keys)")
        #expect(Set(workers.compactMap { $0["id"] as? String }) == ["worker-0", "worker-1", "worker-2"])
        #expect(workers.allSatisfy { $0["alive"] as? Bool == true && $0["lastHeartbeatAgeSeconds"] is Double })
        let metrics = try PrometheusText(text: try daemon.metrics())
        let keysShown = (0..<3).compactMap { metrics.value(#"layoutd_worker_keys{worker="worker-\#($0)"}"#) }
        #expect(keysShown.map(Int.init) == keys)
        #expect(metrics.value("layoutd_cluster_queue_depth") == 0)
        #expect(metrics.value(#"layoutd_requests_total{op="prepare"}"#) == 60)
    }

    @Test func sixteenClientsChangingSharedKeysSeeTheirOwnChangesInOrder() throws {
        let daemon = try TestDaemon(.cluster(workers: 3))
        let keys = (0..<4).map { "shared-\($0)" }
        for key in keys { #expect(try daemon.call(TrafficClient.prepareBody(key, id: "p")).ok) }
        let events = try daemon.subscriber("batch:shared-")
        for _ in 0..<200 where (try daemon.stats()["subscribers"] as? Int ?? 0) < 1 { Thread.sleep(forTimeInterval: 0.01) }

        let perClient = 20
        let results = LockedResults()
        let done = DispatchSemaphore(value: 0)
        for client in 0..<16 {
            let front = daemon.running.frontEndpoint
            Thread {
                defer { done.signal() }
                do {
                    let context = try Context()
                    defer { context.terminate() }
                    let dealer = try Socket(.dealer, in: context)
                    try dealer.set(.receiveTimeout, 15_000)
                    try dealer.connect(front)
                    defer { dealer.close() }
                    let key = keys[client % keys.count]
                    // Pipelined: every change is sent before any reply is read.
                    for n in 0..<perClient {
                        let body = #"{"v":1,"id":\#(n),"op":"update","layout":"\#(key)","updates":[{"insert":[0,0],"item":{"height":\#(n + 1)}}]}"#
                        _ = try dealer.send(multipart: [[], Array(body.utf8)])
                    }
                    var versions: [Int: Int] = [:]
                    for _ in 0..<perClient {
                        guard let frames = try dealer.receiveMultipart() else { throw TestFailure("no reply") }
                        let reply = try TestDaemon.object(frames[frames.count - 1])
                        guard let id = reply["id"] as? Int, let version = reply.result["version"] as? Int else { throw TestFailure("bad reply \(reply)") }
                        versions[id] = version
                    }
                    results.add(client: client, key: key, versions: (0..<perClient).map { versions[$0] ?? -1 })
                } catch {
                    results.fail("\(error)")
                }
            }.start()
        }
        for _ in 0..<16 { done.wait() }
        #expect(results.failures.isEmpty, "\(results.failures)")
        for (_, key, versions) in results.all {
            // Each client's changes ran in the order it sent them.
            #expect(versions == versions.sorted() && Set(versions).count == versions.count, "\(key): \(versions)")
        }
        for key in keys {
            // Every version of every key was given exactly once: 2 ... 1 + 4 clients × 20.
            let given = results.all.filter { $0.key == key }.flatMap(\.versions).sorted()
            #expect(given == Array(2...(1 + 4 * perClient)))
        }
        // Subscribers saw each key's versions consecutively.
        var seen: [String: [Int]] = [:]
        for _ in 0..<(keys.count * 4 * perClient) {
            let event = try TestDaemon.nextEvent(events)
            seen[event.body["layout"] as? String ?? "", default: []].append(event.body["version"] as? Int ?? -1)
        }
        for key in keys { #expect(seen[key] == Array(2...(1 + 4 * perClient))) }
    }

    @Test func aWorkerStoppedGracefullyHandsItsKeysOverWithNothingLost() throws {
        var configuration = ServerConfiguration()
        configuration.useFreeLoopbackPorts()
        configuration.workers = 2
        var logger = Logger(label: "test")
        logger.logLevel = .error
        let cluster = try TestCluster(workers: 3, configuration: configuration, logger: logger)
        defer { cluster.stop() }
        let context = try Context()
        defer { context.terminate() }
        let dealer = try Socket(.dealer, in: context)
        try dealer.set(.receiveTimeout, 10_000)
        try dealer.connect(cluster.broker.frontEndpoint)
        func call(_ body: String) throws -> [UInt8] {
            _ = try dealer.send(multipart: [[], Array(body.utf8)])
            return try #require(try dealer.receiveMultipart()).last ?? []
        }
        let keys = (0..<30).map { "leave-\($0)" }
        var before: [String: [UInt8]] = [:]
        for key in keys {
            #expect(try TestDaemon.object(try call(TrafficClient.prepareBody(key, id: "p"))).ok)
            before[key] = try call(TrafficClient.queryBody(key, id: "q"))
        }
        // SIGTERM's path: the worker says DISCONNECT, answers what it has, and goes.
        cluster.workers[1].stop()
        try cluster.waitForWorkers(2)
        for key in keys { #expect(try call(TrafficClient.queryBody(key, id: "q")) == before[key], "\(key)") }
        let stats = try TestDaemon.object(try {
            let socket = try Socket(.req, in: context)
            try socket.set(.receiveTimeout, 5_000)
            try socket.connect(cluster.broker.statsEndpoint)
            _ = try socket.send("stats")
            return try #require(try socket.receiveBytes())
        }())
        let routing = (stats["cluster"] as? [String: Any])?["routing"] as? [String: Int]
        #expect(routing?["lost"] == 0)
        // Its keys were handed over: moved after its DISCONNECT or, when the connection's drop reaches the
        // broker first (a race on a loaded machine), rebuilt elsewhere from their recipes.
        #expect((routing?["moves"] ?? 0) + (routing?["restores"] ?? 0) > 0)
    }

    @Test func aBrokerWithoutWorkersAnswersUnavailable() throws {
        var configuration = ServerConfiguration()
        configuration.useFreeLoopbackPorts()
        let cluster = try TestCluster(workers: 0, configuration: configuration, logger: .init(label: "test"))
        defer { cluster.stop() }
        let context = try Context()
        defer { context.terminate() }
        let dealer = try Socket(.dealer, in: context)
        try dealer.set(.receiveTimeout, 5_000)
        try dealer.connect(cluster.broker.frontEndpoint)
        for body in [#"{"v":1,"id":"p","op":"ping"}"#, mosaicJob(key: "k"), #"{"v":1,"id":"l","op":"list"}"#] {
            _ = try dealer.send(multipart: [[], Array(body.utf8)])
            let reply = try TestDaemon.object(try #require(try dealer.receiveMultipart()).last ?? [])
            #expect(reply.errorCode == "unavailable")
        }
    }
}

/// Results gathered from client threads.
final class LockedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(client: Int, key: String, versions: [Int])] = []
    private var errors: [String] = []

    func add(client: Int, key: String, versions: [Int]) { lock.withLock { entries.append((client, key, versions)) } }
    func fail(_ message: String) { lock.withLock { errors.append(message) } }
    var all: [(client: Int, key: String, versions: [Int])] { lock.withLock { entries } }
    var failures: [String] { lock.withLock { errors } }
}

/// The Swift client works against a broker as against a single daemon.
@Suite struct ClusterClientTests {
    @Test(arguments: Topology.all) func theSwiftClientWorksUnchanged(_ topology: Topology) throws {
        let daemon = try TestDaemon(topology)
        let client = try LayoutClient(endpoint: daemon.running.frontEndpoint, context: daemon.context)
        defer { client.close() }
        #expect(try client.ping().ok)
        let job: [String: Any] = ["bounds": ["width": 375, "height": 800], "spec": ["type": "list", "itemHeight": 44], "sections": [["count": 30]]]
        let prepared = try client.prepare(key: "client-feed", job: job)
        #expect(prepared.result.int("version") == 1)
        let query = try client.query(key: "client-feed", rect: QueryRect(x: 0, y: 0, width: 375, height: 100))
        #expect(query.result.array("attributes")?.count == 3)
        let updated = try client.update(key: "client-feed", updates: [["delete": [0, 0]]], ifVersion: 1)
        #expect(updated.result.int("version") == 2)
        #expect(try client.list().result.objects("layouts")?.map { $0.string("layout") } == ["client-feed"])
        let stats = try StatsClient(endpoint: daemon.running.statsEndpoint, context: daemon.context)
        defer { stats.close() }
        #expect(try stats.stats().object("requests")?.int("prepare") == 1)
    }
}
