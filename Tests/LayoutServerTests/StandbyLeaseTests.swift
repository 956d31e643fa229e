import Foundation
import LayoutTestKit
import Testing
import ZeroMQ

/// Issue 32, finding 1, on real processes and a real PostgreSQL: an active broker cut off from the
/// database (its link blackholed: connections stay open, no byte passes) must stop answering before a
/// standby can take the lease. Broker b1 is active with worker w1, b2 its standby with w2; b1's link
/// to PostgreSQL goes through a relay that blackholes; b2 takes over, rebuilds the key and acknowledges
/// a newer version; from then on b1 answers no read (before the fix it answered the older version for
/// as long as its renewal hung, about 30 s).
@Suite(.serialized) struct StandbyLeaseTests {
    private typealias Node = LoggedNode

    private static let settings = [
        "LAYOUTD_JOURNAL_DURABILITY": "sync", "LAYOUTD_CLUSTER_HEARTBEAT_MILLIS": "200", "LAYOUTD_CLUSTER_LIVENESS": "3",
        "LAYOUTD_CLUSTER_LEASE_MILLIS": "1500", "LAYOUTD_CLUSTER_RECONNECT_MILLIS": "200", "LAYOUTD_CLUSTER_REJOIN_MILLIS": "800",
        "LAYOUTD_CLUSTER_RECONNECT_MAX_MILLIS": "400",
    ]

    private static let prepare = #"{"op":"prepare","layout":"k","bounds":{"width":375,"height":800},"spec":{"type":"list"},"sections":[{"count":20,"heights":[20,30,40,50,20,30,40,50,20,30,40,50,20,30,40,50,20,30,40,50]}]}"#
    private static let update = #"{"op":"update","layout":"k","updates":[{"delete":[0,0]}]}"#
    private static let query = #"{"op":"query","layout":"k","rect":{"x":0,"y":0,"width":10,"height":10}}"#

    @Test func aBrokerCutOffFromPostgreSQLAnswersNothingOnceTheStandbyServes() throws {
        let postgres = try PostgresServer()
        let port = try #require(Int(postgres.url.split(separator: ":").last?.split(separator: "/").first ?? ""))
        let relay = try TCPRelay(to: port)
        let folder = TemporaryFolder("layoutd-standby-lease")
        func broker(_ name: String, journal: String) throws -> (front: String, back: String, node: Node) {
            var ports = try (0..<4).map { _ in try freePort() }
            for _ in 0..<50 where try !portIsFree(ports[3] + 1) { ports[3] = try freePort() }
            let (front, back) = ("tcp://127.0.0.1:\(ports[0])", "tcp://127.0.0.1:\(ports[3])")
            let node = try Node(
                ["--role", "broker", "--front", front, "--events", "tcp://127.0.0.1:\(ports[1])", "--stats", "tcp://127.0.0.1:\(ports[2])", "--back", back, "--http", ""],
                environment: Self.settings.merging(["LAYOUTD_JOURNAL_URL": journal]) { $1 }, log: "\(folder.path)/\(name).log"
            )
            return (front, back, node)
        }
        let context = try Context()
        defer { context.terminate() }

        let first = try broker("b1", journal: postgres.url.replacingOccurrences(of: ":\(port)/", with: ":\(relay.port)/"))
        let firstClient = try JournalClient(first.front, in: context)
        let second = try broker("b2", journal: postgres.url)
        let workerSettings = Self.settings.filter { $0.key.hasPrefix("LAYOUTD_CLUSTER") }
        let w1 = try Node(["--role", "worker", "--join", first.back, "--worker-id", "w1", "--workers", "1"], environment: workerSettings, log: "\(folder.path)/w1.log")
        let w2 = try Node(["--role", "worker", "--join", second.back, "--worker-id", "w2", "--workers", "1"], environment: workerSettings, log: "\(folder.path)/w2.log")
        _ = (w1, w2)

        var prepared = try firstClient.call(Self.prepare)
        let deadline = ContinuousClock.now + .seconds(30)
        while !prepared.ok && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            prepared = try firstClient.call(Self.prepare)
        }
        #expect(prepared.ok, "\(prepared)\n\(first.node.output)")
        let changed = try firstClient.call(Self.update)
        #expect(changed.ok, "\(changed)")
        let before = changed.result["version"] as? Int ?? 0
        #expect(try firstClient.call(Self.query).result["version"] as? Int == before)

        relay.blackhole()
        // The standby takes the lease, rebuilds the key on w2 and acknowledges a newer version.
        let secondClient = try JournalClient(second.front, in: context)
        var acknowledged = 0
        let takeover = ContinuousClock.now + .seconds(60)
        while acknowledged <= before && ContinuousClock.now < takeover {
            let reply = try secondClient.call(#"{"op":"update","layout":"k","updates":[{"delete":[0,0]}],"ifVersion":\#(before)}"#)
            if reply.ok { acknowledged = reply.result["version"] as? Int ?? 0 } else { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(acknowledged == before + 1, "the standby never acknowledged a change\n\(second.node.output)")

        // From now on, b1 answers no read: each would be older than the change b2 acknowledged.
        let probe = try Socket(.dealer, in: context)
        defer { probe.close() }
        try probe.set(.linger, 0)
        try probe.set(.receiveTimeout, 100)
        try probe.connect(first.front)
        var answered: [String] = []
        for index in 0..<20 {
            _ = try probe.send(multipart: [[], Array(("{\"id\":\(index)," + Self.query.dropFirst()).utf8)])
            if let frames = try probe.receiveMultipart(), let last = frames.last {
                answered.append(String(decoding: last, as: UTF8.self))
            }
        }
        #expect(answered.isEmpty, "b1 answered after b2 acknowledged version \(acknowledged): \(answered.prefix(3))\n\(first.node.output)")
        relay.stop()
    }
}
