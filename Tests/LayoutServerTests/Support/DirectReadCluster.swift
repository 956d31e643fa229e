import Foundation
import Logging
import Testing
import ZeroMQ
@testable import LayoutCluster
@testable import LayoutServer

/// A broker and workers with direct endpoints in this process, and sockets to the broker's front and to
/// each worker's direct endpoint.
final class DirectReadCluster {
    let cluster: TestCluster
    let context: Context
    /// Each worker's direct endpoint, by name.
    private(set) var directEndpoints: [String: String] = [:]
    /// Each worker's own stats socket, by name.
    private(set) var workerStatsEndpoints: [String: String] = [:]

    init(workers names: [String], configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var configuration = ServerConfiguration()
        configuration.useFreeLoopbackPorts()
        configuration.workers = 2
        configure(&configuration)
        var logger = Logger(label: "layoutd-test")
        logger.logLevel = .warning
        context = try Context()
        cluster = try TestCluster(workers: 0, configuration: configuration, logger: logger)
        for name in names { try addWorker(named: name) }
    }

    /// One more worker with a direct endpoint; returns once the broker counts it.
    func addWorker(named name: String) throws {
        let node = try cluster.addWorker(named: name) {
            $0.directEndpoint = "tcp://127.0.0.1:*"
            $0.workerStatsEndpoint = "tcp://127.0.0.1:*"
        }
        directEndpoints[name] = node.frontEndpoint
        workerStatsEndpoints[name] = node.statsEndpoint
    }

    deinit {
        cluster.stop()
        context.terminate()
    }

    /// A DEALER to `endpoint` (the broker's front by default), with a receive timeout so no test hangs.
    func dealer(_ endpoint: String? = nil) throws -> Socket {
        let socket = try Socket(.dealer, in: context)
        try socket.set(.receiveTimeout, 10_000)
        try socket.connect(endpoint ?? cluster.broker.frontEndpoint)
        return socket
    }

    /// One request, its reply parsed.
    func call(_ body: String, on socket: Socket) throws -> [String: Any] {
        _ = try socket.send(multipart: [[], Array(body.utf8)])
        guard let frames = try socket.receiveMultipart() else { throw TestFailure("no reply to \(body.prefix(200))") }
        #expect(frames.count == 2 && frames[0].isEmpty, "the reply carries the request's envelope")
        return try TestDaemon.object(frames[frames.count - 1])
    }

    /// `body` on `socket` until it is answered ok (a worker that has just joined holds no read lease
    /// until its broker's first grant arrives, and answers `moved` meanwhile); the last reply.
    func callUntilAnswered(_ body: String, on socket: Socket, within seconds: Double = 20) throws -> [String: Any] {
        let bound = Date().addingTimeInterval(seconds)
        var reply = try call(body, on: socket)
        while !reply.ok, Date() < bound {
            Thread.sleep(forTimeInterval: 0.02)
            reply = try call(body, on: socket)
        }
        return reply
    }

    /// `stats` (or `metrics`) from `endpoint`'s stats socket, the broker's by default, as text.
    func ask(_ request: String = "stats", statsOf endpoint: String? = nil) throws -> [UInt8] {
        let socket = try Socket(.req, in: context)
        try socket.set(.receiveTimeout, 5_000)
        try socket.connect(endpoint ?? cluster.broker.statsEndpoint)
        _ = try socket.send(request)
        guard let reply = try socket.receiveBytes() else { throw TestFailure("no \(request) answer from \(endpoint ?? "the broker")") }
        return reply
    }

    /// The broker's route table.
    func route(layout: String? = nil) throws -> [String: Any] {
        let body = layout.map { #"{"v":1,"id":"r","op":"route","layout":"\#($0)"}"# } ?? #"{"v":1,"id":"r","op":"route"}"#
        let reply = try call(body, on: try dealer())
        #expect(reply.ok, "route: \(reply)")
        return reply.result
    }

    /// The table's entry for `layout`: its owner's name, its epoch and version.
    func entry(_ layout: String) throws -> (worker: String, epoch: Int, version: Int) {
        let keys = try route(layout: layout)["keys"] as? [[String: Any]] ?? []
        guard let entry = keys.first, let worker = entry["worker"] as? String, let epoch = entry["epoch"] as? Int, let version = entry["version"] as? Int else {
            throw TestFailure("no settled entry for \(layout) in the route table")
        }
        return (worker, epoch, version)
    }
}
