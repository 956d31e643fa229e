import LayoutServer
import LayoutWire
import Testing
@testable import LayoutCluster

/// Issue 32, findings 2 and 4: every hand-over of a key fences the worker that held it. A copy that takes
/// a key as it is (a returning worker's former copy, a newer copy reported after the one adopted first)
/// gets no change before the old owner, which may answer direct reads under its read lease, answered
/// FENCE; and a key moving back to a worker that served it directly at the same epoch waits for that
/// worker's lease when the worker's registration ends mid-rebuild, as a settled key does.
@Suite struct HandOverFenceTests {
    private let feed = LayoutKey(name: "feed")

    @Test func aFormerCopyTakesItsKeyBackOnlyOnceTheRebuiltCopysWorkerAnsweredFence() throws {
        let cluster = SimulatedCluster()
        cluster.join("a", direct: "tcp://a:5570")
        cluster.join("b", direct: "tcp://b:5570")
        cluster.request(prepareBody("feed"))
        cluster.deliverAll()
        cluster.request(updateBody("feed", insert: "x"))
        cluster.deliverAll()
        let owner = try #require(cluster.core.keys[feed]?.owner?.name)
        let other = owner == "a" ? "b" : "a"
        // Cut off (it keeps its copy); once its lease is surely over, the key is rebuilt at the other.
        cluster.kill(owner)
        cluster.advance(by: 10_000_000_000)
        cluster.deliverAll()
        #expect(cluster.core.keys[feed]?.owner?.name == other)

        // Back with its copy, unchanged since the rebuild: it takes the key back, after a FENCE at `other`,
        // which holds a read lease and may be answering direct reads of the key.
        cluster.record(of: other)?.leaseHeartbeat = (sequence: 1, receivedAt: cluster.clock)
        cluster.join(owner)
        #expect(cluster.orders(to: other).contains { $0.fencedKey == feed })
        let change = cluster.request(updateBody("feed", insert: "y"))
        #expect(!cluster.orders(to: owner).contains { $0.isRequest }, "no change reaches the returning copy before the FENCE is answered")
        cluster.deliver(to: other)
        #expect(cluster.core.keys[feed]?.owner?.name == owner)
        #expect(cluster.core.counters.formerCopiesTakenBack == 1)
        cluster.deliverAll()
        #expect(cluster.reply(for: change)?["ok"] as? Bool == true)
        #expect(!cluster.keeps(other), "the rebuilt copy is released once the key went back")
        #expect(cluster.core.counters.restores == 1)
    }

    @Test func aNewerCopyReplacesTheAdoptedOneOnlyOnceItsWorkerAnsweredFence() throws {
        let cluster = SimulatedCluster()
        cluster.join("a", direct: "tcp://a:5570")
        cluster.request(prepareBody("feed"))
        cluster.deliverAll()
        let record = try #require(cluster.core.keys[feed])
        #expect(record.owner?.name == "a")
        let adopted = (epoch: record.epoch, version: record.version)
        // b registers with a newer copy (the one that took changes a missed before it was cut off).
        cluster.join("b", keys: [ReadyInfo.KeyVersion(key: feed, version: adopted.version + 1, epoch: adopted.epoch)], direct: "tcp://b:5570")
        #expect(cluster.orders(to: "a").contains { $0.fencedKey == feed })
        let read = cluster.request(queryBody("feed"))
        #expect(!cluster.orders(to: "b").contains { $0.isRequest }, "the newer copy takes nothing before a answered its FENCE")
        #expect(cluster.replyCount(for: read) == 0, "nor is the older copy read through the broker meanwhile")
        cluster.deliver(to: "a")
        #expect(cluster.core.keys[feed]?.owner?.name == "b")
        #expect(cluster.core.keys[feed]?.version == adopted.version + 1)
        #expect(cluster.core.counters.supersededCopies == 1)
        #expect(cluster.orders(to: "b").contains { $0.isRequest })
        #expect(!cluster.keeps("a"), "the older copy is released after its FENCE")
    }

    @Test func aKeyMovingBackToAWorkerThatServedItAtTheSameEpochWaitsForItsLease() throws {
        let cluster = SimulatedCluster()
        cluster.join("a", direct: "tcp://a:5570")
        cluster.join("c", direct: "tcp://c:5570")
        let keys = (0..<40).map { LayoutKey(name: "k\($0)") }
        for key in keys { cluster.request(prepareBody(key.name)) }
        cluster.deliverAll()
        let before = Dictionary(uniqueKeysWithValues: keys.map { ($0, cluster.core.keys[$0]?.owner?.name) })
        // b joins and wins some of a's keys (fenced at a, rebuilt at b); then it leaves, and they move back.
        cluster.join("b", direct: "tcp://b:5570")
        cluster.deliverAll()
        let movedFromA = keys.filter { before[$0] == "a" && cluster.core.keys[$0]?.owner?.name == "b" }
        #expect(!movedFromA.isEmpty, "b wins some of a's 40 keys")
        cluster.core.workerLeaving(try #require(cluster.record(of: "b")))
        cluster.deliver(to: "b")
        let rebuilding = movedFromA.filter { key in
            guard case .restoring(let target, _)? = cluster.core.keys[key]?.phase else { return false }
            return target.name == "a"
        }
        let key = try #require(rebuilding.first, "a key being rebuilt at a, where it was served at this epoch")
        cluster.kill("b")
        // a was granted a read lease from a heartbeat it sent now.
        cluster.record(of: "a")?.leaseHeartbeat = (sequence: 1, receivedAt: cluster.clock)
        // a's registration ends before its rebuild's answer: it may apply it and, leased, answer a client
        // whose table still names it at that epoch. The key is not placed elsewhere until the lease is over.
        cluster.kill("a")
        #expect(!cluster.orders(to: "c").contains { $0.restoreHeader?.key == key })
        #expect(cluster.core.keys[key]?.owner == nil)
        let change = cluster.request(updateBody(key.name, insert: "x"))
        cluster.deliverAll()
        #expect(cluster.replyCount(for: change) == 0, "no change is made elsewhere while a's lease may hold: \(String(describing: cluster.reply(for: change)))")
        cluster.advance(by: 10_000_000_000)
        cluster.deliverAll()
        #expect(cluster.core.keys[key]?.owner?.name == "c")
        #expect(cluster.reply(for: change)?["ok"] as? Bool == true)
    }

    @Test func aQueryForwardedWithMinVersionIsAnsweredBehindByAnOlderCopy() throws {
        let cluster = SimulatedCluster()
        cluster.join("a")
        cluster.request(prepareBody("feed"))
        cluster.deliverAll()
        let version = try #require(cluster.core.keys[feed]?.version)
        let rect = #""rect":{"x":0,"y":0,"width":320,"height":600}"#
        let ahead = cluster.request(#"{"v":1,"id":"ahead","op":"query","layout":"feed","minVersion":\#(version + 1),\#(rect)}"#)
        let current = cluster.request(#"{"v":1,"id":"current","op":"query","layout":"feed","minVersion":\#(version),\#(rect)}"#)
        cluster.deliverAll()
        let error = cluster.reply(for: ahead)?["error"] as? [String: Any]
        #expect(error?["code"] as? String == "behind" && error?["path"] as? String == "minVersion", "\(String(describing: cluster.reply(for: ahead)))")
        #expect((error?["copy"] as? [String: Any])?["version"] as? Int == version)
        #expect(cluster.reply(for: current)?["ok"] as? Bool == true)
        #expect((cluster.reply(for: current)?["result"] as? [String: Any])?["version"] as? Int == version)
    }
}
