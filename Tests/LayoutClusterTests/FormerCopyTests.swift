import Foundation
import LayoutServer
import LayoutWire
import Testing
@testable import LayoutCluster

/// Issue 14, defect 5: a false death (a pause or a partition past liveness) cost two rebuilds per key:
/// one elsewhere at the death, one moving the key back when the worker rejoined and won it again. A key
/// that has not changed since its rebuild holds the state the returning worker's copy holds: that copy
/// takes it back, with no second rebuild.
@Suite struct FormerCopyTests {
    @Test func aWorkerBackFromAFalseDeathTakesItsUnchangedKeysBackWithoutARebuild() throws {
        let (cluster, frames, owner, other) = try feedChangedOnce()
        cluster.kill(owner)              // cut off: it keeps its copy
        cluster.deliverAll()
        #expect(cluster.core.keys[LayoutKey(name: "feed")]?.owner?.name == other)
        #expect(cluster.core.counters.restores == 1)

        cluster.join(owner)
        #expect(cluster.core.keys[LayoutKey(name: "feed")]?.owner?.name == owner)
        #expect(cluster.orders(to: other).contains { $0.releasedKeys == [LayoutKey(name: "feed")] })
        cluster.deliverAll()
        #expect(!cluster.keeps(other))
        let counters = cluster.core.counters
        #expect(counters.formerCopiesTakenBack == 1 && counters.restores == 1 && counters.moves == 0)
        let query = cluster.request(queryBody("feed", id: "same"))
        cluster.deliverAll()
        #expect(cluster.replyBytes(for: query) == frames)
        // Its copy's own stamp is the key's again, and the next change follows on there.
        let epoch = try #require(cluster.workers[owner]?.store.summaries().first?.epoch)
        #expect(cluster.core.keys[LayoutKey(name: "feed")]?.epoch == epoch)
        let change = cluster.request(updateBody("feed", insert: "y"))
        cluster.deliverAll()
        #expect((cluster.reply(for: change)?["result"] as? [String: Any])?["version"] as? Int == 3)
        #expect(cluster.core.keys[LayoutKey(name: "feed")]?.owner?.name == owner)
    }

    @Test func aKeyChangedSinceItsRebuildIsNotTakenBackByTheOldCopy() throws {
        let (cluster, _, owner, other) = try feedChangedOnce()
        cluster.kill(owner)
        cluster.deliverAll()
        let change = cluster.request(updateBody("feed", insert: "after"))
        cluster.deliverAll()
        #expect((cluster.reply(for: change)?["result"] as? [String: Any])?["version"] as? Int == 3)
        let query = cluster.request(queryBody("feed", id: "same"))
        cluster.deliverAll()
        let frames = try #require(cluster.replyBytes(for: query))

        cluster.join(owner)
        cluster.deliverAll()
        #expect(cluster.core.counters.formerCopiesTakenBack == 0)
        // Wherever the key is now (it may move back by rendezvous, rebuilt), it answers the change.
        let again = cluster.request(queryBody("feed", id: "same"))
        cluster.deliverAll()
        #expect(cluster.replyBytes(for: again) == frames)
        #expect([owner, other].filter { cluster.keeps($0) }.count == 1)
    }
}
