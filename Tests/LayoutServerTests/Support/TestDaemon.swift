import Foundation
import LayoutCluster
import Logging
import Testing
import ZeroMQ
@testable import LayoutServer

/// What a test talks to: the single daemon, or a broker with workers, all in this process on free
/// loopback ports. The daemon's integration tests run against each, expecting the same replies and events.
enum Topology: Hashable, Sendable, CustomTestStringConvertible {
    case single
    case cluster(workers: Int)

    /// The single daemon, a broker with one worker, and a broker with three.
    static let all: [Topology] = [.single, .cluster(workers: 1), .cluster(workers: 3)]
    /// Where every layout shares one store (its memory bound, its queue): the single daemon and one worker.
    static let oneStore: [Topology] = [.single, .cluster(workers: 1)]

    var testDescription: String {
        switch self {
        case .single: "single"
        case .cluster(let workers): "broker+\(workers)"
        }
    }
}

/// A real daemon (or cluster) on free loopback ports, and raw sockets to talk to it.
final class TestDaemon {
    let running: RunningNode
    let context: Context
    private let stops: [() -> Void]

    init(_ topology: Topology = .single, configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var configuration = ServerConfiguration()
        configuration.useFreeLoopbackPorts()
        configuration.workers = 2
        configure(&configuration)
        var logger = Logger(label: "layoutd-test")
        logger.logLevel = .warning
        context = try Context()
        switch topology {
        case .single:
            let daemon = try LayoutDaemon(configuration: configuration, logger: logger).start()
            running = daemon
            stops = [daemon.stop]
        case .cluster(let count):
            let cluster = try TestCluster(workers: count, configuration: configuration, logger: logger)
            running = cluster.broker
            stops = [cluster.stop]
        }
    }

    deinit {
        for stop in stops { stop() }
        context.terminate()
    }

    /// A DEALER connected to the front, with a receive timeout so no test can hang.
    func dealer() throws -> Socket {
        let socket = try Socket(.dealer, in: context)
        try socket.set(.receiveTimeout, 10_000)
        try socket.connect(running.frontEndpoint)
        return socket
    }

    func req() throws -> Socket {
        let socket = try Socket(.req, in: context)
        try socket.set(.receiveTimeout, 10_000)
        try socket.connect(running.frontEndpoint)
        return socket
    }

    func subscriber(_ prefixes: String...) throws -> Socket {
        let socket = try Socket(.sub, in: context)
        try socket.set(.receiveTimeout, 5_000)
        for prefix in prefixes { try socket.subscribe(prefix) }
        try socket.connect(running.eventsEndpoint)
        return socket
    }

    /// One request over a DEALER (empty delimiter, as REQ would send), its reply parsed.
    func call(_ body: String, on socket: Socket? = nil) throws -> [String: Any] {
        let dealer = try socket ?? self.dealer()
        _ = try dealer.send(multipart: [[], Array(body.utf8)])
        guard let frames = try dealer.receiveMultipart() else { throw TestFailure("no reply to \(body.prefix(200))") }
        #expect(frames.count == 2 && frames[0].isEmpty, "the reply carries the request's envelope")
        return try Self.object(frames[frames.count - 1])
    }

    func call(_ object: [String: Any], on socket: Socket? = nil) throws -> [String: Any] {
        let data = try JSONSerialization.data(withJSONObject: object)
        return try call(String(decoding: data, as: UTF8.self), on: socket)
    }

    /// `stats` from the stats socket.
    func stats() throws -> [String: Any] {
        let socket = try Socket(.req, in: context)
        try socket.set(.receiveTimeout, 5_000)
        try socket.connect(running.statsEndpoint)
        _ = try socket.send("stats")
        guard let reply = try socket.receiveBytes() else { throw TestFailure("no stats reply") }
        return try Self.object(reply)
    }

    func metrics() throws -> String {
        let socket = try Socket(.req, in: context)
        try socket.set(.receiveTimeout, 5_000)
        try socket.connect(running.statsEndpoint)
        _ = try socket.send("metrics")
        guard let reply = try socket.receiveString() else { throw TestFailure("no metrics reply") }
        return reply
    }

    /// The next event: topic and parsed body.
    static func nextEvent(_ socket: Socket) throws -> (topic: String, body: [String: Any]) {
        guard let frames = try socket.receiveMultipart(), frames.count == 2 else { throw TestFailure("no event") }
        return (String(decoding: frames[0], as: UTF8.self), try object(frames[1]))
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw TestFailure("reply is not a JSON object: \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        }
        return object
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Dictionary where Key == String, Value == Any {
    var ok: Bool { self["ok"] as? Bool ?? false }
    var result: [String: Any] { self["result"] as? [String: Any] ?? [:] }
    var errorCode: String? { (self["error"] as? [String: Any])?["code"] as? String }
    var errorPath: String? { (self["error"] as? [String: Any])?["path"] as? String }
}

/// A small mosaic job body.
func mosaicJob(op: String = "prepare", key: String? = "feed", count: Int = 10, width: Double = 375, extra: String = "") -> String {
    let layout = key.map { #","layout":"\#($0)""# } ?? ""
    return #"{"v":1,"id":"\#(op)-1","op":"\#(op)"\#(layout),"bounds":{"width":\#(width),"height":800},"spec":{"type":"mosaic"},"sections":[{"count":\#(count)}]\#(extra)}"#
}

/// A broker and `workers` workers in this process; returns once every worker has joined.
final class TestCluster {
    let broker: RunningNode
    private(set) var workers: [RunningNode] = []
    let configuration: ServerConfiguration
    let cluster: ClusterConfiguration
    let logger: Logger
    /// With CURVE on the broker: an admin's key pair, for its stats socket.
    let statsKeys: CurveKeyPair?

    init(
        workers count: Int, configuration: ServerConfiguration, heartbeatMilliseconds: Int = 1000, liveness: Int = 3,
        statsKeys: CurveKeyPair? = nil, logger: Logger
    ) throws {
        var cluster = ClusterConfiguration()
        cluster.backEndpoint = "tcp://127.0.0.1:*"
        cluster.eventsInEndpoint = "tcp://127.0.0.1:*"
        cluster.heartbeatMilliseconds = heartbeatMilliseconds
        cluster.liveness = liveness
        // A fresh cluster: no worker of an earlier broker to wait for (ClusterRejoinTests waits).
        cluster.rejoinMilliseconds = 0
        cluster.role = .broker
        self.configuration = configuration
        self.logger = logger
        self.statsKeys = statsKeys
        broker = try ClusterBroker(configuration: configuration, cluster: cluster, logger: logger).start()
        cluster.role = .worker
        cluster.joinEndpoint = broker.backEndpoint
        cluster.joinEventsEndpoint = broker.eventsInEndpoint
        self.cluster = cluster
        for index in 0..<count { try addWorker(named: "worker-\(index)") }
    }

    /// Starts one more worker and waits until the broker counts it.
    @discardableResult
    func addWorker(named name: String, configure: (inout ClusterConfiguration) -> Void = { _ in }) throws -> RunningNode {
        var cluster = self.cluster
        cluster.workerID = name
        configure(&cluster)
        let worker = try ClusterWorker(configuration: configuration, cluster: cluster, logger: logger).start()
        workers.append(worker)
        try waitForWorkers(workers.count)
        return worker
    }

    /// Waits until the broker's stats count `count` live workers.
    func waitForWorkers(_ count: Int) throws {
        let context = try Context()
        defer { context.terminate() }
        let socket = try Socket(.req, in: context)
        try socket.set(.receiveTimeout, 5_000)
        if let statsKeys, let serverKey = broker.serverPublicKey { try socket.makeCurveClient(keys: statsKeys, serverKey: serverKey) }
        try socket.connect(broker.statsEndpoint)
        for _ in 0..<500 {
            _ = try socket.send("stats")
            guard let reply = try socket.receiveBytes() else { throw TestFailure("no stats reply from the broker") }
            let stats = try TestDaemon.object(reply)
            let totals = (stats["cluster"] as? [String: Any])?["totals"] as? [String: Any]
            if totals?["alive"] as? Int == count { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
        throw TestFailure("\(count) workers never joined the broker")
    }

    func stop() {
        broker.stop()
        for worker in workers { worker.stop() }
    }
}
