import Foundation
import LayoutServer
import LayoutWire
import Testing
@testable import LayoutCluster

/// Issue 32, the two-broker walk's seeds 157, 203 and 363: a broker's book evicts a key's recipe with a
/// journal write that fails (its link to PostgreSQL is cut), so the journal still holds that recipe. A
/// change to the key, kept from then on without a recipe, used to be acknowledged with no journal write:
/// a broker taking over (or this one restarted) would rebuild the key from the stale recipe, at a version
/// older than the acknowledged change. The key's record is now written again before the acknowledgement.
@Suite struct JournalMissedRemovalTests {
    /// A broker with a PostgreSQL journal whose book holds the recipes of `feed` and `wall` and little
    /// more; a worker keeps both at version 1.
    private static func twoKeys() throws -> (cluster: SimulatedCluster, database: SimulatedDatabase) {
        let time = SimulatedTime(1_000_000_000_000)
        let database = SimulatedDatabase(time: time, ttl: 5_000_000_000)
        let epoch = try #require(database.acquire(by: 0))
        let bytes = prepareBody("feed", count: 5).utf8.count + prepareBody("wall", count: 5).utf8.count + 20
        let cluster = SimulatedCluster(recipeBytes: bytes, time: time, database: database, leaseEpoch: epoch)
        cluster.join("a")
        for key in ["feed", "wall"] {
            let prepared = cluster.request(prepareBody(key, count: 5, id: "p-\(key)"))
            cluster.deliverAll()
            #expect(cluster.reply(for: prepared)?["ok"] as? Bool == true)
        }
        #expect(database.hasRecipe(LayoutKey(name: "feed")) && database.hasRecipe(LayoutKey(name: "wall")))
        return (cluster, database)
    }

    /// `wall`'s change evicts `feed`'s recipe while the journal cannot write; `feed`'s change after the
    /// link healed must leave no recipe of `feed` in the journal older than the version it acknowledges.
    @Test func aChangeAfterAFailedEvictionRewritesTheKeysRecord() throws {
        let (cluster, database) = try Self.twoKeys()
        cluster.journalCut = true
        let wall = cluster.request(updateBody("wall", insert: "w1"))
        cluster.deliverAll()
        #expect((cluster.reply(for: wall)?["error"] as? [String: Any])?["code"] as? String == "unavailable")
        #expect(cluster.core.recipes.recipe(for: LayoutKey(name: "feed")) == nil, "the book evicted feed's recipe")
        #expect(database.hasRecipe(LayoutKey(name: "feed")), "the eviction's write failed")

        cluster.journalCut = false
        let feed = cluster.request(updateBody("feed", insert: "f1"))
        cluster.deliverAll()
        let version = try #require((cluster.reply(for: feed)?["result"] as? [String: Any])?["version"] as? Int)
        #expect(version == 2)
        // What a broker taking over would rebuild `feed` from: nothing older than the acknowledged v2.
        let journaled = database.journaled.recipes.first { $0.key == LayoutKey(name: "feed") }
        #expect(!database.hasRecipe(LayoutKey(name: "feed")), "the journal still rebuilds feed at v\(journaled.map { $0.base + $0.bodies.count - 1 } ?? 0)")
        #expect(journaled?.base == 2, "kept without a recipe at v2")
    }

    /// While the link is still cut, the rewrite fails too: the change is answered `unavailable`, not
    /// acknowledged.
    @Test func aChangeWhileTheJournalStillFailsIsNotAcknowledged() throws {
        let (cluster, database) = try Self.twoKeys()
        cluster.journalCut = true
        _ = cluster.request(updateBody("wall", insert: "w1"))
        cluster.deliverAll()
        let feed = cluster.request(updateBody("feed", insert: "f1"))
        cluster.deliverAll()
        #expect((cluster.reply(for: feed)?["error"] as? [String: Any])?["code"] as? String == "unavailable")
        #expect(database.hasRecipe(LayoutKey(name: "feed")))
    }

    /// A change to a key kept without a recipe whose journal record is current asks no write (the cost
    /// the bounded book is there to avoid).
    @Test func aKeyEvictedWithAWorkingJournalIsChangedWithNoWrite() throws {
        let (cluster, database) = try Self.twoKeys()
        _ = cluster.request(updateBody("wall", insert: "w1"))
        cluster.deliverAll()
        #expect(!database.hasRecipe(LayoutKey(name: "feed")))
        let writes = cluster.core.journalWrites
        let feed = cluster.request(updateBody("feed", insert: "f1"))
        cluster.deliverAll()
        #expect((cluster.reply(for: feed)?["result"] as? [String: Any])?["version"] as? Int == 2)
        #expect(cluster.core.journalWrites == writes)
    }
}
