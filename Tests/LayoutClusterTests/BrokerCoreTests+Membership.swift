import Foundation
import LayoutServer
import LayoutWire
import Testing
@testable import LayoutCluster

/// The broker's membership: workers joining and taking keys, silent workers declared dead, a restarted
/// broker learning keys from READY, and `list` across workers.
extension BrokerCoreTests {
    @Test func aJoiningWorkerTakesTheKeysItWinsAndTheOldOwnersForgetThem() throws {
        let cluster = SimulatedCluster(restoresPerWorker: 4)
        for name in ["a", "b", "c"] { cluster.join(name) }
        let keys = (0..<200).map { "key-\($0)" }
        for key in keys { cluster.request(prepareBody(key, count: 8)) }
        cluster.deliverAll()
        let before = Dictionary(uniqueKeysWithValues: keys.map { ($0, owner(of: $0, in: cluster) ?? "") })

        cluster.join("d")
        cluster.deliverAll()
        let after = Dictionary(uniqueKeysWithValues: keys.map { ($0, owner(of: $0, in: cluster) ?? "") })
        let moved = keys.filter { before[$0] != after[$0] }
        #expect(moved.allSatisfy { after[$0] == "d" })
        #expect(moved.count > 30 && moved.count < 70)
        // Each moved key was released by the worker it left, and only after its rebuild.
        let released = cluster.sent.compactMap { $0.order.releasedKeys }.flatMap { $0 }
        #expect(Set(released) == Set(moved.map { LayoutKey(name: $0) }))
        for key in moved {
            #expect(cluster.workers[before[key] ?? ""]?.store.entry(forKey: LayoutKey(name: key)) == nil)
            #expect(cluster.workers["d"]?.store.entry(forKey: LayoutKey(name: key))?.version == 1)
        }
        #expect(cluster.core.keysInMotion == 0)
    }

    @Test func requestsOnAMovingKeyWaitForItsRebuildAndKeepTheirOrder() throws {
        let cluster = SimulatedCluster()
        cluster.join("a")
        // A key that a worker named "b" wins.
        let seeds = ["a", "b"].map(Rendezvous.seed(forWorker:))
        let key = try #require((0..<100).map { "m\($0)" }.first { Rendezvous.winner(keyHash: Rendezvous.hash($0), seeds: seeds) == 1 })
        cluster.request(prepareBody(key))
        cluster.deliverAll()
        let inFlight = cluster.request(updateBody(key, insert: "one", requestID: "u1"))
        cluster.join("b")
        // The key waits for the change at a: later requests are held, nothing goes to b yet.
        let second = cluster.request(updateBody(key, insert: "two", requestID: "u2"))
        let read = cluster.request(queryBody(key))
        // Only the HEARTBEAT that gives b the broker's epoch (protocol 4).
        #expect(cluster.orders(to: "b").allSatisfy { if case .heartbeat = $0 { true } else { false } })
        cluster.deliver(to: "a")
        // Drained: the rebuild (with the first change) goes to b; the held requests follow its answer, in
        // order.
        let orders = cluster.orders(to: "b").filter { if case .heartbeat = $0 { false } else { true } }
        #expect(orders.count == 1)
        #expect(orders.first?.restoreHeader?.version == 2)
        cluster.deliver(to: "b")
        #expect(cluster.orders(to: "b").isEmpty)
        cluster.deliverAll()
        #expect((cluster.reply(for: inFlight)?["result"] as? [String: Any])?["version"] as? Int == 2)
        #expect((cluster.reply(for: second)?["result"] as? [String: Any])?["version"] as? Int == 3)
        #expect((cluster.reply(for: read)?["result"] as? [String: Any])?["version"] as? Int == 3)
        #expect(owner(of: key, in: cluster) == "b")
    }

    @Test func listGathersEveryWorkersLayoutsOnceSortedByKey() throws {
        let cluster = SimulatedCluster()
        cluster.join("a")
        cluster.join("b")
        for key in ["zeta", "alpha", "mid", "beta"] { cluster.request(prepareBody(key, count: 3)) }
        cluster.deliverAll()
        let list = cluster.request(#"{"v":1,"id":"l","op":"list"}"#)
        cluster.deliverAll()
        let layouts = try #require((cluster.reply(for: list)?["result"] as? [String: Any])?["layouts"] as? [[String: Any]])
        #expect(layouts.compactMap { $0["layout"] as? String } == ["alpha", "beta", "mid", "zeta"])
        #expect(cluster.reply(for: list)?["id"] as? String == "l")
        // An error every worker gives comes back once, as a worker wrote it.
        let bad = cluster.request(#"{"v":2,"id":"l2","op":"list"}"#)
        cluster.deliverAll()
        #expect((cluster.reply(for: bad)?["error"] as? [String: Any])?["path"] as? String == "v")
        #expect(cluster.replyCount(for: bad) == 1)
    }

    @Test func silentWorkersAreDeclaredDeadAndStrangersToldToStartOver() throws {
        let cluster = SimulatedCluster()
        cluster.join("a")
        let record = try #require(cluster.record(of: "a"))
        cluster.clock += 2_900_000_000
        cluster.core.tick(now: cluster.clock)
        #expect(record.isConnected)
        cluster.clock += 200_000_000
        cluster.core.tick(now: cluster.clock)
        #expect(!record.isConnected)
        #expect(cluster.sent.last.map { if case .disconnect = $0.order { true } else { false } } == true)
        // A command from a worker the broker does not know (it restarted) is answered DISCONNECT.
        #expect(cluster.core.heard(from: Array("stranger".utf8), now: cluster.clock) == nil)
        let ping = cluster.request(#"{"v":1,"id":9,"op":"ping"}"#)
        #expect((cluster.reply(for: ping)?["error"] as? [String: Any])?["code"] as? String == "unavailable")
    }

    @Test func aRestartedBrokerLearnsKeysFromReadyAndReleasesStaleCopies() throws {
        let cluster = SimulatedCluster()
        cluster.join("a", keys: [.init(key: "feed", version: 5), .init(key: "other", version: 2)])
        cluster.join("b", keys: [.init(key: "feed", version: 5)])
        #expect(owner(of: "feed", in: cluster) == "a")
        #expect(cluster.core.keys["feed"]?.version == 5)
        #expect(cluster.sent.compactMap { $0.order.releasedKeys }.flatMap { $0 } == ["feed"])
    }
}
