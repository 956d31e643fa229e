import Foundation
import LayoutServer
import LayoutWire
import Testing
@testable import LayoutCluster

/// Recipes compacted by snapshots, driven step by step: which requests are in flight when the broker
/// asks, what the snapshot covers, and what happens when it cannot be used. Workers run the real handler,
/// store, RESTORE and SNAPSHOT code.
@Suite struct CompactionTests {
    private let feed = LayoutKey(name: "feed")

    private func owner(_ cluster: SimulatedCluster) throws -> String {
        try #require(cluster.core.keys[feed]?.owner?.name)
    }

    private func version(_ reply: [String: Any]?) -> Int? {
        (reply?["result"] as? [String: Any])?["version"] as? Int
    }

    /// Sends `count` updates of `feed` one at a time, each answered before the next.
    private func update(_ cluster: SimulatedCluster, times count: Int, from first: Int = 0) {
        for index in first..<(first + count) {
            cluster.request(updateBody("feed", insert: "n\(index)", requestID: "u\(index)"))
            cluster.deliverAll()
        }
    }

    @Test func aLongFedKeyIsCompactedAndRebuiltFromItsSnapshotWhenItsWorkerDies() throws {
        let cluster = SimulatedCluster(compaction: CompactionPolicy(afterBytes: 0, afterChanges: 8))
        cluster.join("a")
        cluster.join("b")
        cluster.request(prepareBody("feed"))
        cluster.deliverAll()
        update(cluster, times: 20)
        let recipe = try #require(cluster.core.recipes.recipe(for: feed))
        // Compacted after the 9th change (version 10) and the 18th (version 19); two changes since.
        #expect(cluster.core.counters.snapshots == 2 && cluster.core.counters.snapshotFailures == 0)
        #expect(recipe.base == 19 && recipe.lastVersion == 21 && recipe.bodies.count == 3)
        #expect(cluster.sent.filter(\.order.isSnapshot).count == 2)
        let body = try #require(recipe.bodies.first).array
        #expect(body.withUnsafeBytes { RequestRoute(scanning: $0).operation } == .prepare)

        let query = cluster.request(queryBody("feed", id: "same"))
        cluster.deliverAll()
        let frames = try #require(cluster.replyBytes(for: query))
        let dead = try owner(cluster)
        cluster.kill(dead)
        #expect(cluster.orders(to: dead == "a" ? "b" : "a").first { !$0.isHeartbeat }?.restoreHeader == RestoreHeader(layout: "feed", version: 21, base: 19))
        let after = cluster.request(queryBody("feed", id: "same"))
        cluster.deliverAll()
        #expect(cluster.replyBytes(for: after) == frames)
        let next = cluster.request(updateBody("feed", insert: "last"))
        cluster.deliverAll()
        #expect(version(cluster.reply(for: next)) == 22)
        #expect(cluster.core.counters.lost == 0 && cluster.core.counters.restoreFailures == 0)
    }

    @Test func theSnapshotCoversExactlyTheChangesTheWorkerRanBeforeIt() throws {
        let cluster = SimulatedCluster(compaction: CompactionPolicy(afterBytes: 0, afterChanges: 4))
        cluster.join("a")
        cluster.join("b")
        cluster.request(prepareBody("feed"))
        cluster.deliverAll()
        update(cluster, times: 4)
        let worker = try owner(cluster)
        // Three changes in flight (versions 6, 7, 8); the first one's answer makes the recipe due, so the
        // SNAPSHOT goes behind the other two; one more change goes behind the SNAPSHOT.
        let inFlight = (4..<7).map { cluster.request(updateBody("feed", insert: "n\($0)", requestID: "u\($0)")) }
        cluster.deliver(to: worker, limit: 1)
        #expect(cluster.orders(to: worker).map(\.isSnapshot) == [false, false, true])
        let last = cluster.request(updateBody("feed", insert: "n7", requestID: "u7"))
        cluster.deliverAll()
        #expect(inFlight.map { version(cluster.reply(for: $0)) } == [6, 7, 8])
        #expect(version(cluster.reply(for: last)) == 9)
        // The snapshot stood at version 8: the change after it stays in the recipe.
        let recipe = try #require(cluster.core.recipes.recipe(for: feed))
        #expect(recipe.base == 8 && recipe.bodies.count == 2)
        #expect(cluster.core.counters.snapshots == 1)

        let query = cluster.request(queryBody("feed", id: "same"))
        cluster.deliverAll()
        let frames = try #require(cluster.replyBytes(for: query))
        cluster.kill(worker)
        let after = cluster.request(queryBody("feed", id: "same"))
        cluster.deliverAll()
        #expect(cluster.replyBytes(for: after) == frames)
    }

    @Test func aSnapshotOfARecipeStartedOverMeanwhileIsDiscarded() throws {
        let cluster = SimulatedCluster(compaction: CompactionPolicy(afterBytes: 0, afterChanges: 2))
        cluster.join("a")
        cluster.request(prepareBody("feed"))
        cluster.deliverAll()
        update(cluster, times: 2)
        // A change whose answer makes the recipe due, and a new prepare behind it: the SNAPSHOT follows
        // the prepare, whose answer starts the recipe over before the snapshot's arrives.
        cluster.request(updateBody("feed", insert: "x"))
        cluster.request(prepareBody("feed", count: 5, id: "again"))
        cluster.deliver(to: "a", limit: 1)
        #expect(cluster.orders(to: "a").last?.isSnapshot == true)
        cluster.deliverAll()
        #expect(cluster.core.counters.snapshots == 0 && cluster.core.counters.snapshotFailures == 1)
        let recipe = try #require(cluster.core.recipes.recipe(for: feed))
        #expect(recipe.base == 5 && recipe.bodies.count == 1)
        #expect(String(decoding: recipe.bodies[0].array, as: UTF8.self).contains(#""id":"again""#))
    }

    @Test func aSnapshotOfADroppedKeyOrOnADeadWorkerIsDiscardedAndTheRecipeStays() throws {
        let cluster = SimulatedCluster(compaction: CompactionPolicy(afterBytes: 0, afterChanges: 2))
        cluster.join("a")
        cluster.join("b")
        cluster.request(prepareBody("feed"))
        cluster.deliverAll()
        update(cluster, times: 2)
        let worker = try owner(cluster)
        // The worker dies with the SNAPSHOT unanswered: the key is rebuilt from its whole recipe.
        cluster.request(updateBody("feed", insert: "x"))
        cluster.deliver(to: worker, limit: 1)
        #expect(cluster.orders(to: worker).first?.isSnapshot == true)
        let recipe = try #require(cluster.core.recipes.recipe(for: feed))
        #expect(recipe.bodies.count == 4)
        cluster.kill(worker)
        #expect(cluster.core.counters.snapshotFailures == 1)
        #expect(cluster.core.keys[feed]?.snapshotInFlight == false)
        cluster.deliverAll()
        let survivor = try owner(cluster)
        #expect(survivor != worker && cluster.workers[survivor]?.store.entry(forKey: feed)?.version == 4)

        // A drop ahead of the SNAPSHOT: the worker has nothing to snapshot. (After the failure the next
        // SNAPSHOT waits for more than twice the changes then: 7.)
        update(cluster, times: 3, from: 10)
        #expect(!cluster.orders(to: survivor).contains(where: \.isSnapshot) && cluster.sent.filter(\.order.isSnapshot).count == 1)
        cluster.request(updateBody("feed", insert: "y"))
        cluster.request(#"{"v":1,"id":"d","op":"drop","layout":"feed"}"#)
        cluster.deliver(to: survivor, limit: 1)
        #expect(cluster.orders(to: survivor).last?.isSnapshot == true)
        cluster.deliverAll()
        #expect(cluster.core.counters.snapshotFailures == 2 && cluster.core.counters.snapshots == 0)
        #expect(cluster.core.recipes.recipe(for: feed) == nil)
    }

    @Test func workersOfProtocolTwoAreNeverAskedForASnapshot() throws {
        let cluster = SimulatedCluster(compaction: CompactionPolicy(afterBytes: 1, afterChanges: 1))
        cluster.join("old", protocolVersion: 2)
        cluster.request(prepareBody("feed"))
        cluster.deliverAll()
        update(cluster, times: 10)
        #expect(!cluster.sent.contains { $0.order.isSnapshot })
        #expect(cluster.core.recipes.recipe(for: feed)?.bodies.count == 11)
        // A worker of protocol 3 taking the key over is asked.
        cluster.join("new")
        cluster.kill("old")
        cluster.deliverAll()
        update(cluster, times: 1, from: 10)
        #expect(cluster.sent.contains { $0.order.isSnapshot })
        #expect(cluster.core.counters.snapshots == 1)
        #expect(cluster.core.recipes.recipe(for: feed)?.bodies.count == 1)
    }

    @Test func aNamespacedKeyIsSnapshottedAndRebuiltInItsNamespace() throws {
        let cluster = SimulatedCluster(secured: true, compaction: CompactionPolicy(afterBytes: 0, afterChanges: 3))
        let alice = Caller(namespace: "alice", isAdmin: false)
        let bob = Caller(namespace: "bob", isAdmin: false)
        let key = LayoutKey(namespace: "alice", name: "feed")
        cluster.join("a")
        cluster.join("b")
        cluster.request(prepareBody("feed", count: 7), as: alice)
        cluster.request(prepareBody("feed", count: 30), as: bob)
        cluster.deliverAll()
        for index in 0..<4 {
            cluster.request(updateBody("feed", insert: "n\(index)"), as: alice)
            cluster.deliverAll()
        }
        #expect(cluster.core.counters.snapshots == 1)
        let snapshotOf = cluster.sent.compactMap { sent -> LayoutKey? in
            if case .snapshot(_, let request) = sent.order { request.key } else { nil }
        }
        #expect(snapshotOf == [key])
        let recipe = try #require(cluster.core.recipes.recipe(for: key))
        #expect(recipe.base == 5 && recipe.bodies.count == 1)

        let query = cluster.request(queryBody("feed", id: "same"), as: alice)
        cluster.deliverAll()
        let frames = try #require(cluster.replyBytes(for: query))
        let dead = try #require(cluster.core.keys[key]?.owner?.name)
        cluster.kill(dead)
        cluster.deliverAll()
        #expect(cluster.sent.compactMap(\.order.restoreHeader).contains(RestoreHeader(layout: "feed", namespace: "alice", version: 5, base: 5)))
        let after = cluster.request(queryBody("feed", id: "same"), as: alice)
        let bobs = cluster.request(queryBody("feed"), as: bob)
        cluster.deliverAll()
        #expect(cluster.replyBytes(for: after) == frames)
        #expect(((cluster.reply(for: bobs)?["result"] as? [String: Any])?["attributes"] as? [Any])?.count == 30)
    }
}
