import Foundation
import Logging
import Testing
import ZeroMQ
@testable import LayoutServer

/// A real daemon on free loopback ports, and raw sockets to talk to it.
final class TestDaemon {
    let running: RunningDaemon
    let context: Context

    init(configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var configuration = ServerConfiguration()
        configuration.frontEndpoint = "tcp://127.0.0.1:*"
        configuration.eventsEndpoint = "tcp://127.0.0.1:*"
        configuration.statsEndpoint = "tcp://127.0.0.1:*"
        // Off unless a test turns it on (port 0): a fixed port would collide between tests.
        configuration.httpAddress = ""
        configuration.workers = 2
        configure(&configuration)
        var logger = Logger(label: "layoutd-test")
        logger.logLevel = .warning
        running = try LayoutDaemon(configuration: configuration, logger: logger).start()
        context = try Context()
    }

    deinit {
        running.stop()
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
