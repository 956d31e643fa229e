import Foundation
import LayoutServer
import LayoutWire
import Testing
@testable import LayoutCluster

/// Issue 14, defect 3: evictions were believed from the event stream, whoever published them. A stale
/// copy evicted on another worker dropped the recipe of a key its owner still kept, and the owner's death
/// then lost the key with no `lost`. Evictions now count only when the key's owner reports them (EVICTED).
@Suite struct EvictionReportTests {
    /// An eviction of `key` at `version` of a copy stamped `epoch`.
    private func evicted(_ key: String, at version: Int, epoch: UInt64) -> [ReadyInfo.KeyVersion] {
        [ReadyInfo.KeyVersion(key: LayoutKey(name: key), version: version, epoch: epoch)]
    }

    @Test func aStaleCopysEvictionLeavesTheKeyProtected() throws {
        let (cluster, frames, owner, other) = try feedChangedOnce()
        // Another worker's copy evicted, as its event passes the proxy's capture, and as it reports it.
        let event = EventEncoder.invalidated(layout: "feed", version: 3, reason: .evicted, contentSize: .zero)
        cluster.core.observeCaptured([Array(event.topic), Array(event.body)])
        let epoch = try #require(cluster.core.keys[LayoutKey(name: "feed")]?.epoch)
        cluster.core.workerEvicted(evicted("feed", at: 3, epoch: epoch), at: try #require(cluster.record(of: other)))
        #expect(cluster.core.counters.staleEvictions == 1 && cluster.core.counters.evictions == 0)
        #expect(cluster.core.recipes.recipe(for: LayoutKey(name: "feed")) != nil)

        // The owner dies: the key is rebuilt from its recipe, bit for bit.
        cluster.kill(owner)
        cluster.deliverAll()
        let query = cluster.request(queryBody("feed", id: "same"))
        cluster.deliverAll()
        let same = cluster.replyBytes(for: query) == frames
        #expect(same, "the rebuilt key answers as before: \(String(decoding: cluster.replyBytes(for: query) ?? [], as: UTF8.self).prefix(200))")
        #expect(cluster.published.isEmpty)
    }

    @Test func theOwnersEvictionEndsTheKeysProtectionAndItsVersionsContinue() throws {
        let (cluster, _, owner, _) = try feedChangedOnce()
        let keeper = try #require(cluster.record(of: owner))
        let epoch = try #require(cluster.workers[owner]?.store.summaries().first?.epoch)
        #expect(epoch == cluster.core.keys[LayoutKey(name: "feed")]?.epoch)
        // Stale: an eviction older than what the broker acknowledged says nothing, and neither does one
        // of a copy the owner kept from before the key's epoch.
        cluster.core.workerEvicted(evicted("feed", at: 2, epoch: epoch), at: keeper)
        cluster.core.workerEvicted(evicted("feed", at: 3, epoch: epoch - 1), at: keeper)
        #expect(cluster.core.recipes.recipe(for: LayoutKey(name: "feed")) != nil)
        cluster.core.workerEvicted(evicted("feed", at: 3, epoch: epoch), at: keeper)
        #expect(cluster.core.counters.evictions == 1 && cluster.core.counters.staleEvictions == 2)
        #expect(cluster.core.recipes.recipe(for: LayoutKey(name: "feed")) == nil)
        #expect(cluster.core.keys[LayoutKey(name: "feed")]?.kept == false)

        // Its death rebuilds nothing and publishes nothing: the client was told `evicted` already.
        let restoresBefore = cluster.core.counters.restores
        cluster.kill(owner)
        cluster.deliverAll()
        #expect(cluster.core.counters.restores == restoresBefore)
        #expect(cluster.published.isEmpty)
        // A new prepare continues past the eviction's version.
        let prepare = cluster.request(prepareBody("feed"))
        cluster.deliverAll()
        #expect((cluster.reply(for: prepare)?["result"] as? [String: Any])?["version"] as? Int == 4)
    }

    @Test func theFrameCarriesKeysInTheirNamespaces() throws {
        let report = EvictionReport(evicted: [
            ReadyInfo.KeyVersion(key: LayoutKey(name: "feed"), version: 3, epoch: 1_764_000_000_003),
            ReadyInfo.KeyVersion(key: LayoutKey(namespace: "alice", name: "wall"), version: 9),
        ])
        #expect(EvictionReport(frame: report.frame) == report)
        // Malformed entries are skipped; a frame that is not such an object is refused.
        let mixed = EvictionReport(frame: Array(#"{"evicted": [["feed", 3, "", 7], ["", 2, "", 7], ["x", "2", "", 7], ["y", 0, "", 7], ["z", 4, ""], ["w", 4, "", -1]]}"#.utf8))
        #expect(mixed?.evicted == [ReadyInfo.KeyVersion(key: LayoutKey(name: "feed"), version: 3, epoch: 7)])
        #expect(EvictionReport(frame: Array("[]".utf8)) == nil)
    }

    /// Simulator, seed 200980: a key moving to a joining worker that was cut off running the rebuild
    /// stays with its old owner, whose copy kept its stamp; the key's epoch, raised when the rebuild was
    /// sent, stayed raised, so the owner's eviction of its copy was taken for a stale copy's, and the key
    /// later answered `unknown_layout` with no `lost`.
    @Test func aKeyLeftWithItsOwnerByAFailedMoveStandsAtItsCopysStampAndItsEvictionCounts() throws {
        // Every move's rebuild sent at once.
        let cluster = SimulatedCluster(restoresPerWorker: 64)
        cluster.join("a")
        cluster.join("b")
        for index in 0..<16 { cluster.request(prepareBody("k\(index)", count: 5)) }
        cluster.deliverAll()
        // The epoch advances (b is declared dead): the copies a kept are stamped with the one before.
        cluster.kill("b")
        cluster.deliverAll()
        cluster.join("c")
        let stamps = Dictionary(uniqueKeysWithValues: (cluster.workers["a"]?.store.summaries() ?? []).map { ($0.key, $0.epoch) })
        let moving = try #require(cluster.core.keys.values.first { record in
            guard case .restoring(_, let previous) = record.phase, previous?.name == "a" else { return false }
            return (stamps[record.key] ?? 0) < cluster.core.epoch
        })
        let previous = "a"
        // c runs the rebuilds it was sent and is cut off before answering: the keys stay where they were.
        while cluster.runNextThenCutOff("c") {}
        cluster.deliverAll()
        #expect(moving.owner?.name == previous && moving.isSettled)
        let stamp = try #require(cluster.workers[previous]?.store.summaries().first { $0.key == moving.key }?.epoch)
        #expect(moving.epoch == stamp)
        cluster.core.workerEvicted([ReadyInfo.KeyVersion(key: moving.key, version: moving.version + 1, epoch: stamp)], at: try #require(cluster.record(of: previous)))
        #expect(cluster.core.counters.evictions == 1 && moving.kept == false)
    }

    /// The worker's pool stores a change on one thread while another thread's job evicts the key: the
    /// eviction is posted, and believed, before the change's reply. The reply must not bring the key back
    /// below the eviction's version (a death would then rebuild what subscribers were told is evicted).
    @Test func aChangeAnsweredAfterItsKeysEvictionDoesNotBringTheKeyBack() throws {
        let (cluster, _, owner, _) = try feedChangedOnce()
        let key = LayoutKey(name: "feed")
        let change = cluster.request(updateBody("feed", insert: "y"))
        let stamp = try #require(cluster.core.keys[key]?.epoch)
        // Stored at version 3, then evicted (version 4) before the reply leaves.
        cluster.core.workerEvicted(evicted("feed", at: 4, epoch: stamp), at: try #require(cluster.record(of: owner)))
        cluster.deliverAll()
        #expect((cluster.reply(for: change)?["result"] as? [String: Any])?["version"] as? Int == 3)
        let record = try #require(cluster.core.keys[key])
        #expect(!record.kept && record.version == 4)
        #expect(cluster.core.recipes.recipe(for: key) == nil)
    }

    /// Simulator, seed 28111: a key's end by eviction kept the key's epoch, below a copy stamped later (a
    /// standby sent and abandoned), which came back at an earlier version after the eviction. The end
    /// stands at the broker's epoch, as a change's would.
    @Test func anEvictionEndsTheKeyUnderTheBrokersEpoch() throws {
        let cluster = SimulatedCluster()
        for name in ["a", "b", "c"] { cluster.join(name) }
        cluster.request(prepareBody("feed"))
        cluster.deliverAll()
        let key = LayoutKey(name: "feed")
        let owner = try #require(cluster.core.keys[key]?.owner?.name)
        let stamp = try #require(cluster.core.keys[key]?.epoch)
        // Another worker dies: the broker's epoch advances past the key's.
        cluster.kill(try #require(["a", "b", "c"].first { $0 != owner }))
        cluster.deliverAll()
        #expect(cluster.core.epoch > stamp)
        cluster.core.workerEvicted(evicted("feed", at: 2, epoch: stamp), at: try #require(cluster.record(of: owner)))
        #expect(cluster.core.keys[key]?.kept == false && cluster.core.keys[key]?.epoch == cluster.core.epoch)
    }
}
