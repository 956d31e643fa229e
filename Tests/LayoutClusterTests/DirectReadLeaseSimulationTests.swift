import Foundation
import LayoutServer
import Testing
@testable import LayoutCluster

/// The read lease's rule, step by step on the simulator's clocks (docs/PROTOCOL.md §10.5): a worker
/// counts its lease from when it *sent* the heartbeat a grant names, so a grant held in a buffer during a
/// partition, arriving late, cannot make it answer direct reads after the broker gave its key away.
@Suite struct DirectReadLeaseSimulationTests {
    @Test func aGrantHeldBehindACutLinkDoesNotStretchTheLease() throws {
        let cluster = SimulatedCluster()
        cluster.modelsLinks = true
        // The slowest clock the lease's margin covers (above 2/3 of the broker's rate with liveness 3).
        cluster.clockRates["a"] = 700
        cluster.directEndpoints["a"] = "tcp://a:5570"
        let a = cluster.join("a")
        cluster.join("b")
        for index in 0..<12 { cluster.request(prepareBody("k\(index)", count: 5)) }
        cluster.deliverAll()
        let key = try #require((0..<12).map { "k\($0)" }.first { cluster.core.keys[LayoutKey(name: $0)]?.owner?.name == "a" })
        let epoch = try #require(a.store.summary(forKey: LayoutKey(name: key))?.epoch)
        func read() -> [String: Any]? {
            cluster.finishPool("a")
            let body = #"{"v":1,"id":"d","op":"query","layout":"\#(key)","rect":{"x":0,"y":0,"width":320,"height":1000},"epoch":\#(epoch),"minVersion":1}"#
            return try? JSONSerialization.jsonObject(with: Data(a.directRead(body))) as? [String: Any]
        }
        // 1.5 s on: a's second heartbeat (sent at 1.75 s of its clock) reached the broker, and its grant
        // is on its way when the link is cut; a's heartbeats from then on are lost.
        for _ in 0..<3 { cluster.advanceClocks(by: 500_000_000) }
        #expect(read()?["ok"] as? Bool == true, "the lease from a's first heartbeat holds")
        cluster.cut("a", holding: false)
        for _ in 0..<5 { cluster.advanceClocks(by: 500_000_000) }
        // At 5 s the grants held for a get through: its lease ends 2 s (of its clock) after the second
        // heartbeat left, 5.36 s on the broker's, not 2 s after they arrived (7.86 s).
        cluster.deliverHeldHeartbeats(to: "a")
        #expect(read()?["ok"] as? Bool == true, "still within the lease")
        // At 6 s the broker judges a dead; its hold (the second heartbeat's arrival + 3 s) is over, so at
        // its next tick the key is rebuilt at b, and a change is made there.
        cluster.advanceClocks(by: 1_000_000_000)
        #expect(cluster.record(of: "a")?.isConnected != true)
        cluster.advanceClocks(by: 1_000_000_000)
        cluster.deliverAll()
        let change = cluster.request(updateBody(key, insert: "x"))
        cluster.deliverAll()
        #expect(cluster.reply(for: change)?["ok"] as? Bool == true)
        #expect(cluster.core.keys[LayoutKey(name: key)]?.owner?.name == "b")
        // a still keeps its copy at the epoch the client's table names, and is cut off: only the lease
        // stops it answering the version before the change.
        let answer = try #require(read())
        #expect(answer["ok"] as? Bool == false)
        #expect(((answer["error"] as? [String: Any])?["message"] as? String)?.contains("read lease") == true)
    }
}
