import Foundation
import LayoutServer
import LayoutWire
import Testing
@testable import LayoutCluster

/// Issue 14: a drop healed within `cluster.dropGraceMillis` moves no key, and the grace must not make a
/// real death slower to recover from (the broker cannot tell a killed process from a reset connection).
/// While a dropped worker's keys wait for it, each is rebuilt on the worker that would take it (a
/// standby): released if the worker returns, the key's copy at once if it does not.
@Suite struct StandbyRebuildTests {
    private static let grace: Nanos = 2_000_000_000

    @Test func aWorkerBackWithinTheGraceKeepsItsKeysAndTheStandbyIsReleased() throws {
        let (cluster, frames, owner, other) = try feedChangedOnce(dropGraceNanos: Self.grace)
        cluster.kill(owner)
        // The standby is rebuilt at the acknowledged version while the key waits.
        #expect(cluster.orders(to: other).contains { $0.restoreHeader == RestoreHeader(layout: "feed", version: 2, base: 1) })
        let query = cluster.request(queryBody("feed", id: "same"))
        cluster.deliverAll()
        #expect(cluster.keeps(other))
        #expect(cluster.replyCount(for: query) == 0, "requests wait for the owner's return")

        cluster.join(owner)
        #expect(cluster.orders(to: other).contains { $0.releasedKeys == [LayoutKey(name: "feed")] })
        cluster.deliverAll()
        #expect(cluster.replyBytes(for: query) == frames)
        #expect(cluster.core.keys[LayoutKey(name: "feed")]?.owner?.name == owner)
        #expect(!cluster.keeps(other))
        let counters = cluster.core.counters
        #expect(counters.keysKeptThroughDrops == 1 && counters.standbyRebuilds == 1 && counters.standbysUsed == 0)
        #expect(counters.moves == 0 && counters.restores == 0)

        // The change after it follows on at the owner.
        let change = cluster.request(updateBody("feed", insert: "y"))
        cluster.deliverAll()
        #expect((cluster.reply(for: change)?["result"] as? [String: Any])?["version"] as? Int == 3)
    }

    @Test(arguments: [true, false]) func aWorkerNotBackWhenTheGraceEndsIsReplacedByItsStandby(standbyBuilt: Bool) throws {
        let (cluster, frames, owner, other) = try feedChangedOnce(dropGraceNanos: Self.grace)
        cluster.kill(owner)
        if standbyBuilt { cluster.deliverAll() }
        let query = cluster.request(queryBody("feed", id: "same"))
        #expect(cluster.replyCount(for: query) == 0)

        cluster.advance(by: Self.grace + 1)
        cluster.deliverAll()
        // No second rebuild: the standby is the key's copy (counted as its rebuild).
        #expect(cluster.replyBytes(for: query) == frames)
        #expect(cluster.core.keys[LayoutKey(name: "feed")]?.owner?.name == other)
        let counters = cluster.core.counters
        #expect(counters.standbyRebuilds == 1 && counters.standbysUsed == 1 && counters.keysRebuiltAfterDrops == 1)
        #expect(counters.restores == 1)
        #expect(cluster.core.keysInMotion == 0)
        // Its copy is stamped with the epoch after the drop, and the key stands there.
        let copy = try #require(cluster.workers[other]?.store.summaries().first)
        #expect(copy.epoch == cluster.core.epoch && cluster.core.keys[LayoutKey(name: "feed")]?.epoch == copy.epoch)

        // The old owner, back late: its copy is older than the key's (by epoch) and goes. (The key then
        // moves back to it, as to any worker that joins and wins it by rendezvous.)
        cluster.join(owner)
        cluster.deliverAll()
        #expect([owner, other].filter { cluster.keeps($0) }.count == 1)
        #expect(cluster.core.counters.released >= 1)
        let change = cluster.request(updateBody("feed", insert: "y"))
        cluster.deliverAll()
        #expect((cluster.reply(for: change)?["result"] as? [String: Any])?["version"] as? Int == 3)
    }

    /// The owner applied a change and was cut off before its answer left (`unavailable`): its copy is a
    /// version past the standby's. Taken back, it would rank below the standby's later epoch should the
    /// broker restart with the standby still there; so the change resolves as not applied.
    @Test func aCopyBackPastTheStandbysVersionIsNotTakenBack() throws {
        let (cluster, frames, owner, other) = try feedChangedOnce(dropGraceNanos: Self.grace)
        let change = cluster.request(updateBody("feed", insert: "lost"))
        #expect(cluster.runNextThenCutOff(owner))
        #expect((cluster.reply(for: change)?["error"] as? [String: Any])?["code"] as? String == "unavailable")
        cluster.deliverAll()
        #expect(cluster.keeps(other))

        cluster.join(owner)
        #expect(cluster.orders(to: owner).contains { $0.releasedKeys == [LayoutKey(name: "feed")] }, "its copy is released")
        #expect(cluster.core.counters.standbysUsed == 1 && cluster.core.counters.keysKeptThroughDrops == 0)
        cluster.deliverAll()
        // The key stands at the standby's version, wherever it is now (it may move back to the owner, as
        // to any worker that joins and wins it), and the next change follows on from it.
        let query = cluster.request(queryBody("feed", id: "same"))
        cluster.deliverAll()
        #expect(cluster.replyBytes(for: query) == frames)
        #expect([owner, other].filter { cluster.keeps($0) }.count == 1)
        let next = cluster.request(updateBody("feed", insert: "kept"))
        cluster.deliverAll()
        #expect((cluster.reply(for: next)?["result"] as? [String: Any])?["version"] as? Int == 3)
    }

    /// Simulator, seed 202810: a standby abandoned while its rebuild was in flight (its worker came back)
    /// was released when its answer came, after a second drop had sent a new standby to the same worker:
    /// the RELEASE removed the new standby's copy, which then became the key's.
    @Test func anAbandonedStandbysAnswerLeavesALaterStandbyOnTheSameWorker() throws {
        let (cluster, frames, owner, other) = try feedChangedOnce(dropGraceNanos: Self.grace)
        cluster.kill(owner)
        cluster.join(owner)
        cluster.kill(owner)
        #expect(cluster.orders(to: other).filter(\.isRestore).count == 2)
        cluster.deliverAll()
        #expect(cluster.keeps(other))
        cluster.advance(by: Self.grace + 1)
        let query = cluster.request(queryBody("feed", id: "same"))
        cluster.deliverAll()
        #expect(cluster.replyBytes(for: query) == frames)
        #expect(cluster.core.counters.standbysUsed == 1)
    }

    /// A standby refused (the worker's queue full) leaves the key at the epoch it had: the owner, back in
    /// time, still takes its copy back (the standby's raised epoch had made it look stale: a rebuild per
    /// key per blip under load).
    @Test func aStandbyRefusedLeavesTheKeyToItsOwnersReturn() throws {
        let (cluster, frames, owner, other) = try feedChangedOnce(dropGraceNanos: Self.grace)
        cluster.workers[other]?.restoresToRefuse = 1
        let epoch = cluster.core.keys[LayoutKey(name: "feed")]?.epoch
        cluster.kill(owner)
        cluster.deliverAll()
        #expect(cluster.core.keys[LayoutKey(name: "feed")]?.standby == nil)
        #expect(cluster.core.keys[LayoutKey(name: "feed")]?.epoch == epoch)

        cluster.join(owner)
        cluster.deliverAll()
        #expect(cluster.core.keys[LayoutKey(name: "feed")]?.owner?.name == owner)
        #expect(cluster.core.counters.keysKeptThroughDrops == 1 && cluster.core.counters.restores == 0)
        let query = cluster.request(queryBody("feed", id: "same"))
        cluster.deliverAll()
        #expect(cluster.replyBytes(for: query) == frames)
    }

    /// Simulator, seeds 328772 and 173317: the owner applied a change and was cut off before answering;
    /// the standby's worker built its copy (stamped with the raised epoch) and was cut off too. The key
    /// went back to its epoch from before the standby, the owner's newer copy was taken back under its
    /// old stamp, and the standby's copy, back later, outranked it by epoch: a change read, then rolled
    /// back. The key now keeps the raised epoch, so the owner's copy is rebuilt instead of taken back,
    /// and the standby's copy, back later, is older than the key and goes.
    @Test func aStandbyCutOffWithItsCopyNeverOutranksTheKeyLater() throws {
        let (cluster, _, owner, other) = try feedChangedOnce(dropGraceNanos: Self.grace)
        let key = LayoutKey(name: "feed")
        let change = cluster.request(updateBody("feed", insert: "unknown"))
        #expect(cluster.runNextThenCutOff(owner))
        #expect((cluster.reply(for: change)?["error"] as? [String: Any])?["code"] as? String == "unavailable")
        let standbyEpoch = try #require(cluster.core.keys[key]?.epoch)
        // The standby's worker builds its copy and is cut off before the answer leaves.
        while let next = cluster.orders(to: other).first, !next.isRestore { cluster.deliver(to: other, limit: 1) }
        #expect(cluster.runNextThenCutOff(other))
        #expect(cluster.workers[other]?.store.summaries().first?.epoch == standbyEpoch)
        #expect(cluster.core.keys[key]?.epoch == standbyEpoch, "its copy may come back: the key keeps the epoch it was stamped with")

        cluster.join(owner)
        cluster.deliverAll()
        let query = cluster.request(queryBody("feed", id: "after"))
        cluster.deliverAll()
        #expect(cluster.reply(for: query)?["ok"] as? Bool == true)
        let read = try #require(cluster.core.keys[key]).version

        cluster.join(other)
        cluster.deliverAll()
        let record = try #require(cluster.core.keys[key])
        #expect(record.version == read, "the standby's copy, back, does not replace the key's")
        #expect(try #require(cluster.workers[other]?.store.summaries().first.map(\.epoch) ?? 0) <= record.epoch || !cluster.keeps(other))
        #expect([owner, other].filter { cluster.keeps($0) }.count == 1)
        let next = cluster.request(updateBody("feed", insert: "next"))
        cluster.deliverAll()
        #expect((cluster.reply(for: next)?["result"] as? [String: Any])?["version"] as? Int == read + 1)
    }

    @Test func aStandbysWorkerLostMeanwhileLeavesTheKeyToBePlacedAsAfterADeath() throws {
        let cluster = SimulatedCluster(dropGraceNanos: Self.grace)
        for name in ["a", "b", "c"] { cluster.join(name) }
        for index in 0..<12 { cluster.request(prepareBody("k\(index)", count: 5)) }
        cluster.deliverAll()
        let key = LayoutKey(name: "k0")
        let owner = try #require(cluster.core.keys[key]?.owner?.name)
        cluster.kill(owner)
        cluster.deliverAll()
        let standby = try #require(cluster.core.keys[key]?.standby?.worker.name)
        cluster.kill(standby)
        cluster.advance(by: Self.grace + 1)
        cluster.deliverAll()
        let third = try #require(["a", "b", "c"].first { $0 != owner && $0 != standby })
        #expect(cluster.core.keys[key]?.owner?.name == third)
        let query = cluster.request(queryBody("k0"))
        cluster.deliverAll()
        #expect(cluster.reply(for: query)?["ok"] as? Bool == true)
    }
}
