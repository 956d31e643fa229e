import Foundation
import LayoutServer
import LayoutWire
import Testing
@testable import LayoutCluster

/// Issue 32, the unknown_layout after a takeover (StandbyBrokerTests once, the two-broker walk's seeds 22,
/// 220, 246, 310, 368, 380 and 382): a broker that starts with a key's recipe from the journal is
/// reported a copy one change ahead of it (a change whose answer died with the broker before). Adopting
/// that copy used to drop the recipe, so when the copy's worker died before a snapshot protected it
/// again, the key was lost, acknowledged changes and all, and answered `unknown_layout` from then on.
@Suite struct FallbackRecipeTests {
    /// `feed` acknowledged at v2 (journaled), its owner one unacknowledged change ahead (v3), and the
    /// broker restarted from its journal with both workers back: the cluster and the owner's name.
    private static func copyAheadOfItsRecipe() throws -> (cluster: SimulatedCluster, owner: String, other: String) {
        let cluster = SimulatedCluster(journaled: true)
        cluster.join("a")
        cluster.join("b")
        _ = cluster.request(prepareBody("feed", count: 5))
        cluster.deliverAll()
        let changed = cluster.request(updateBody("feed", insert: "x"))
        cluster.deliverAll()
        #expect((cluster.reply(for: changed)?["result"] as? [String: Any])?["version"] as? Int == 2)
        let owner = try #require(cluster.core.keys[LayoutKey(name: "feed")]?.owner?.name)
        // The owner applies a change whose answer never reaches the broker, which then restarts.
        let worker = try #require(cluster.workers[owner])
        _ = worker.run(.request(RequestToken(9_999), HeldBody(Array(updateBody("feed", insert: "y").utf8)), caller: nil))
        #expect(worker.store.summaries().first?.version == 3)
        // Adopted as the worker registers again (its SNAPSHOT, asked then, is not delivered yet).
        cluster.restartBroker()
        let record = try #require(cluster.core.keys[LayoutKey(name: "feed")])
        #expect(record.owner?.name == owner && record.version == 3, "the newer copy is adopted")
        return (cluster, owner, owner == "a" ? "b" : "a")
    }

    @Test func theRecipeIsKeptUntilASnapshotOfTheCopyReplacesIt() throws {
        let (cluster, owner, _) = try Self.copyAheadOfItsRecipe()
        #expect(cluster.core.recipes.recipe(for: LayoutKey(name: "feed"))?.lastVersion == 2)
        #expect(cluster.orders(to: owner).contains { $0.isSnapshot })
        let query = cluster.request(queryBody("feed"))
        cluster.deliverAll()
        #expect((cluster.reply(for: query)?["result"] as? [String: Any])?["version"] as? Int == 3)
        let recipe = try #require(cluster.core.recipes.recipe(for: LayoutKey(name: "feed")))
        #expect(recipe.base == 3 && recipe.lastVersion == 3, "the snapshot starts the recipe over at the copy's version")
    }

    @Test func theKeyIsRebuiltFromItsRecipeWhenTheCopyAheadOfItDies() throws {
        let (cluster, owner, other) = try Self.copyAheadOfItsRecipe()
        cluster.kill(owner)
        cluster.deliverAll()
        let query = cluster.request(queryBody("feed"))
        cluster.deliverAll()
        let reply = try #require(cluster.reply(for: query))
        // Rebuilt at the acknowledged version, the unacknowledged change gone; not lost.
        #expect((reply["result"] as? [String: Any])?["version"] as? Int == 2, "\(reply)")
        #expect(cluster.core.keys[LayoutKey(name: "feed")]?.owner?.name == other)
        #expect(cluster.core.counters.lost == 0)
        // And the next change follows on from there, into the recipe.
        let change = cluster.request(updateBody("feed", insert: "z"))
        cluster.deliverAll()
        #expect((cluster.reply(for: change)?["result"] as? [String: Any])?["version"] as? Int == 3)
        #expect(cluster.core.recipes.recipe(for: LayoutKey(name: "feed"))?.lastVersion == 3)
    }
}
