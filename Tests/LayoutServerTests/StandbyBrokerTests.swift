import Foundation
import LayoutTestKit
import Testing
import ZeroMQ

/// Two brokers on one PostgreSQL journal (a real server, started by the test): one holds the lease and
/// serves, the other answers as a standby; the active one is killed (-9) with changes in flight, the
/// standby takes over, and no acknowledged change is lost.
@Suite(.serialized) struct StandbyBrokerTests {
    private typealias Node = LoggedNode

    private struct Broker {
        let front: String, events: String, stats: String, back: String
        let node: Node
    }

    private static func prepareBody(_ key: String) -> String {
        let heights = (0..<40).map { String(20 + ($0 * 31) % 80) }.joined(separator: ",")
        return #"{"op":"prepare","layout":"\#(key)","bounds":{"width":375,"height":800},"spec":{"type":"waterfall","columns":2},"sections":[{"count":40,"heights":[\#(heights)]}]}"#
    }

    private static func updateBody(_ key: String, _ index: Int) -> String {
        #"{"op":"update","layout":"\#(key)","updates":[{"insert":[0,\#(index % 30)],"item":{"height":\#(15 + index % 70)}}]}"#
    }

    @Test func theStandbyTakesOverWhenTheActiveBrokerIsKilledAndNothingAcknowledgedIsLost() throws {
        let postgres = try PostgresServer()
        let folder = TemporaryFolder("layoutd-standby")
        // Liveness 5 (a second of silence), not 3: with the whole suite running beside it, a 600 ms stall
        // once dropped a worker in the middle of the takeover, which is a fault of its own (a worker
        // lost while the new broker waits for its workers), not the one this test is about.
        let settings = [
            "LAYOUTD_JOURNAL_URL": postgres.url, "LAYOUTD_JOURNAL_DURABILITY": "sync",
            "LAYOUTD_CLUSTER_HEARTBEAT_MILLIS": "200", "LAYOUTD_CLUSTER_LIVENESS": "5", "LAYOUTD_CLUSTER_LEASE_MILLIS": "1500",
            "LAYOUTD_CLUSTER_RECONNECT_MILLIS": "200", "LAYOUTD_CLUSTER_REJOIN_MILLIS": "1000",
        ]
        func broker(_ name: String) throws -> Broker {
            var ports = try (0..<4).map { _ in try freePort() }
            // Workers find each broker's events intake at its back port + 1: a back port whose successor is free.
            for _ in 0..<50 where try !portIsFree(ports[3] + 1) { ports[3] = try freePort() }
            let (front, events, stats, back) = ("tcp://127.0.0.1:\(ports[0])", "tcp://127.0.0.1:\(ports[1])", "tcp://127.0.0.1:\(ports[2])", "tcp://127.0.0.1:\(ports[3])")
            let node = try Node(
                ["--role", "broker", "--front", front, "--events", events, "--stats", stats, "--back", back, "--http", ""],
                environment: settings, log: "\(folder.path)/\(name).log"
            )
            return Broker(front: front, events: events, stats: stats, back: back, node: node)
        }
        let context = try Context()
        defer { context.terminate() }

        let first = try broker("first")
        let firstClient = try JournalClient(first.front, in: context)
        let second = try broker("second")
        // The second is a standby: it says so, and a client moves on at once.
        let standbyClient = try JournalClient(second.front, in: context)
        let refused = try standbyClient.call(#"{"op":"query","layout":"k0","rect":{"x":0,"y":0,"width":10,"height":10}}"#)
        let refusal = refused["error"] as? [String: Any] ?? [:]
        #expect(refusal["code"] as? String == "unavailable" && "\(refusal["message"] ?? "")".contains("standby"), "\(refused)")

        let workerEnvironment = ["LAYOUTD_CLUSTER_HEARTBEAT_MILLIS": "200", "LAYOUTD_CLUSTER_LIVENESS": "5", "LAYOUTD_CLUSTER_RECONNECT_MILLIS": "200", "LAYOUTD_CLUSTER_RECONNECT_MAX_MILLIS": "400"]
        let brokers = "\(first.back),\(second.back)"
        let workers = try (0..<2).map { index in
            try Node(["--role", "worker", "--join", brokers, "--worker-id", "w\(index)", "--workers", "2"], environment: workerEnvironment, log: "\(folder.path)/w\(index).log")
        }
        _ = workers

        // Prepared and changed through the active broker, once its workers joined (bounded wait).
        let keys = (0..<8).map { "k\($0)" }
        var acknowledged: [String: Int] = [:]
        var sent: [String: [String]] = [:]
        let deadline = ContinuousClock.now + .seconds(30)
        for key in keys {
            var reply = try firstClient.call(Self.prepareBody(key))
            while !reply.ok && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.05)
                reply = try firstClient.call(Self.prepareBody(key))
            }
            #expect(reply.ok, "\(key): \(reply)\n\(first.node.output)")
            acknowledged[key] = reply.result["version"] as? Int ?? 0
        }
        for round in 0..<3 {
            for key in keys {
                let body = Self.updateBody(key, round)
                sent[key, default: []].append(body)
                let reply = try firstClient.call(body)
                #expect(reply.ok, "\(reply)")
                acknowledged[key] = reply.result["version"] as? Int ?? -1
            }
        }
        // More changes in flight when the active broker dies; their answers never come.
        for key in keys {
            let body = Self.updateBody(key, 3)
            sent[key, default: []].append(body)
            _ = try firstClient.socket.send(multipart: [[], Array(("{\"id\":\"inflight\"," + body.dropFirst()).utf8)])
        }
        let killed = ContinuousClock.now
        kill(first.node.process.processIdentifier, SIGKILL)
        first.node.process.waitUntilExit()

        // The standby takes the lease once it lapses, and serves once the workers joined it.
        var served = false
        var lastAnswer: [String: Any] = [:]
        while !served && ContinuousClock.now < killed + .seconds(60) {
            lastAnswer = try standbyClient.call(#"{"op":"query","layout":"k0","rect":{"x":0,"y":0,"width":10,"height":10}}"#)
            served = lastAnswer.ok
            if !served { Thread.sleep(forTimeInterval: 0.02) }
        }
        let takeover = ContinuousClock.now - killed
        print("standby broker: first answer \(takeover) after the active broker was killed")
        #expect(served, "the standby never served: \(lastAnswer)\n\(second.node.output)")

        let reference = try TestDaemon(.single)
        for key in keys {
            let reply = try standbyClient.call(#"{"op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":1000,"height":100000}}"#)
            let answer = reply.result
            let version = answer["version"] as? Int ?? -1
            #expect(version >= acknowledged[key] ?? 0, "\(key): acknowledged \(acknowledged[key] ?? 0), answered \(version): \(reply["error"] ?? "no error")")
            #expect(version <= (sent[key]?.count ?? 0) + 1)
            #expect(try reference.call(Self.prepareBody(key)).ok)
            for change in (sent[key] ?? []).prefix(max(0, version - 1)) { #expect(try reference.call(change).ok) }
            let expected = try reference.call(#"{"op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":1000,"height":100000}}"#).result
            #expect(answer["attributes"] as? NSArray == expected["attributes"] as? NSArray, "\(key) at version \(version)")
        }
    }
}
