import LayoutServer
import Testing
@testable import LayoutCluster

/// A key moving away from a worker with a direct endpoint (issue 25): the old owner is told to stop
/// answering direct reads of it (FENCE), and the new owner gets the key only once it has answered, so
/// no change made there can be missed by a direct read at the old owner.
@Suite struct DirectReadFenceTests {
    @Test func aMovingKeyIsFencedAtItsOldOwnerBeforeItsNewOwnerGetsIt() throws {
        let cluster = SimulatedCluster()
        let old = cluster.join("a", direct: "tcp://a:5570")
        for index in 0..<20 { cluster.request(prepareBody("k\(index)", count: 5)) }
        cluster.deliverAll()
        cluster.join("b")
        let fenced = cluster.orders(to: "a").compactMap(\.fencedKey)
        #expect(!fenced.isEmpty, "b wins some of the 20 keys")
        // Until a has answered its FENCEs, b is sent none of those keys.
        #expect(!cluster.orders(to: "b").contains { $0.isRestore })
        cluster.deliver(to: "a", limit: fenced.count)
        #expect(fenced.allSatisfy { old.fences.isFenced($0) })
        // Then their rebuilds go out (two at a time: `cluster.restoresPerWorker`).
        #expect(cluster.orders(to: "b").contains { $0.isRestore })
        cluster.deliverAll()
        #expect(Set(fenced.compactMap { cluster.core.keys[$0]?.owner?.name }) == ["b"])
        #expect(fenced.allSatisfy { old.store.summary(forKey: $0) == nil }, "released at a once rebuilt at b")
        #expect(cluster.core.counters.fences == fenced.count)
        // Keys that stayed are not fenced; a worker without a direct endpoint is never sent a FENCE.
        let stayed = (0..<20).map { LayoutKey(name: "k\($0)") }.filter { !fenced.contains($0) }
        #expect(stayed.allSatisfy { !old.fences.isFenced($0) && cluster.core.keys[$0]?.owner?.name == "a" })
        cluster.join("c")
        #expect(!cluster.orders(to: "b").contains { $0.fencedKey != nil })
        cluster.deliverAll()
    }

    @Test func aKeyWhoseFenceIsUnansweredWaitsForTheLeaseWhenItsOwnerDrops() throws {
        let cluster = SimulatedCluster()
        cluster.join("a", direct: "tcp://a:5570")
        for index in 0..<20 { cluster.request(prepareBody("k\(index)", count: 5)) }
        cluster.deliverAll()
        // a was granted a lease from a heartbeat it sent now.
        cluster.record(of: "a")?.leaseHeartbeat = (sequence: 1, receivedAt: cluster.clock)
        cluster.join("b")
        let fenced = cluster.orders(to: "a").compactMap(\.fencedKey)
        let key = try #require(fenced.first)
        // a's connection drops before it answered: it may be alive and still answering direct reads.
        cluster.kill("a")
        let change = cluster.request(updateBody(key.name, insert: "x"))
        cluster.deliverAll()
        #expect(cluster.replyCount(for: change) == 0, "no change is made elsewhere while a's lease may hold")
        // Once the lease is surely over, the key is rebuilt at b and the change made there.
        cluster.advance(by: 60_000_000_000)
        cluster.deliverAll()
        #expect(cluster.reply(for: change)?["ok"] as? Bool == true)
        #expect(cluster.core.keys[key]?.owner?.name == "b")
    }

    @Test func aKeyRebuiltAtAWorkerIsReadableThereAgain() throws {
        let worker = SimulatedCluster().join("a", direct: "tcp://a:5570")
        let key = LayoutKey(name: "feed")
        _ = worker.run(.fence(RequestToken(1), FenceRequest(key: key)))
        #expect(worker.fences.isFenced(key))
        // The broker gives it the key again (here only its version count): its new copy may be read.
        _ = worker.run(.restore(RequestToken(2), RestoreHeader(layout: "feed", version: 3, base: 1), []))
        #expect(!worker.fences.isFenced(key))
        _ = worker.run(.fence(RequestToken(3), FenceRequest(key: key)))
        _ = worker.run(.release([key]))
        #expect(!worker.fences.isFenced(key))
    }
}
