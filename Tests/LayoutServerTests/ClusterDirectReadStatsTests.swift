import Foundation
import Testing
import ZeroMQ
@testable import LayoutCluster
@testable import LayoutServer

/// Issue 25, items 4 and 5: a worker counts how its direct endpoint answered (ok, `moved` by reason,
/// `behind`, `read_only`) and how its read leases ended, in its own stats and metrics, and its heartbeats
/// carry the counts to the broker's stats and metrics. Over real sockets, in this process.
@Suite(.serialized) struct ClusterDirectReadStatsTests {
    /// The worker's own `cluster.direct`.
    private func ownCounts(_ direct: DirectReadCluster, _ worker: String) throws -> [String: Any] {
        let endpoint = try #require(direct.workerStatsEndpoints[worker])
        let stats = try TestDaemon.object(try direct.ask(statsOf: endpoint))
        let cluster = try #require(stats["cluster"] as? [String: Any])
        #expect(cluster["role"] as? String == "worker")
        return try #require(cluster["direct"] as? [String: Any], "\(cluster)")
    }

    /// `worker`'s entry's `direct` in the broker's `cluster.workers[]`, nil while it has none.
    private func brokerCounts(_ direct: DirectReadCluster, _ worker: String) throws -> [String: Any]? {
        let stats = try TestDaemon.object(try direct.ask())
        let workers = (stats["cluster"] as? [String: Any])?["workers"] as? [[String: Any]] ?? []
        return workers.first { $0["id"] as? String == worker }?["direct"] as? [String: Any]
    }

    /// The value of the sample `series` (name and labels as exposed) in a Prometheus text.
    private func sample(_ exposition: [UInt8], _ series: String) -> Double? {
        String(decoding: exposition, as: UTF8.self).split(separator: "\n")
            .first { $0.hasPrefix(series + " ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    private func count(_ object: [String: Any]?, _ path: String...) -> Int {
        var value: Any? = object
        for member in path { value = (value as? [String: Any])?[member] }
        return value as? Int ?? -1
    }

    /// Polls `condition` every 20 ms for up to `seconds`; whether it came true.
    private func eventually(within seconds: Double = 20, _ condition: () throws -> Bool) rethrows -> Bool {
        let bound = Date().addingTimeInterval(seconds)
        while Date() < bound {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }

    @Test func aWorkersStatsHeartbeatsAndMetricsCountItsDirectAnswers() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        let front = try direct.dealer()
        #expect(try direct.call(mosaicJob(key: "feed", count: 10), on: front).ok)
        let owner = try direct.entry("feed")
        let socket = try direct.dealer(direct.directEndpoints[owner.worker])
        let query = #"{"v":1,"op":"query","layout":"feed","epoch":\#(owner.epoch),"minVersion":1,"items":[[0,0]]}"#
        // `moved` (lease) until the first grant: counted, but before the baseline.
        #expect(try direct.callUntilAnswered(query, on: socket).ok)
        let before = try ownCounts(direct, owner.worker)
        #expect(before["endpoint"] as? String == direct.directEndpoints[owner.worker])

        // Three answered (each until ok: a lease lapsing on a loaded machine answers `moved`, counted
        // under `lease`, which this test does not pin), two of another epoch, one of a key not kept here,
        // two ahead of the copy, one change.
        for _ in 0..<3 { #expect(try direct.callUntilAnswered(query, on: socket).ok) }
        let stale = #"{"v":1,"op":"query","layout":"feed","epoch":\#(owner.epoch + 1),"items":[[0,0]]}"#
        for _ in 0..<2 { #expect(try direct.call(stale, on: socket).errorCode == "moved") }
        let unknown = #"{"v":1,"op":"list","layout":"nosuch","epoch":\#(owner.epoch)}"#
        #expect(try direct.call(unknown, on: socket).errorCode == "moved")
        let ahead = #"{"v":1,"op":"query","layout":"feed","epoch":\#(owner.epoch),"minVersion":2,"items":[[0,0]]}"#
        for _ in 0..<2 { #expect(try direct.call(ahead, on: socket).errorCode == "behind") }
        let change = #"{"v":1,"op":"update","layout":"feed","updates":[{"delete":[0,0]}]}"#
        #expect(try direct.call(change, on: socket).errorCode == "read_only")

        let after = try ownCounts(direct, owner.worker)
        #expect(count(after, "reads") - count(before, "reads") == 3)
        #expect(count(after, "movedBy", "epoch") - count(before, "movedBy", "epoch") == 2)
        #expect(count(after, "movedBy", "notKept") - count(before, "movedBy", "notKept") == 1)
        #expect(count(after, "movedBy", "fenced") == 0 && count(after, "movedBy", "namespace") == 0)
        #expect(count(after, "behind") - count(before, "behind") == 2)
        #expect(count(after, "readOnly") - count(before, "readOnly") == 1)
        let reasons = ["notKept", "epoch", "fenced", "lease", "namespace"]
        #expect(count(after, "moved") == reasons.reduce(0) { $0 + count(after, "movedBy", $1) })
        #expect(count(after, "leaseRevocations") == 0)

        // The worker's metrics: the same counts.
        let metrics = try direct.ask("metrics", statsOf: direct.workerStatsEndpoints[owner.worker])
        #expect(sample(metrics, "layoutd_direct_reads_total").map(Int.init) == count(after, "reads"))
        #expect(sample(metrics, #"layoutd_direct_moved_total{reason="epoch"}"#).map(Int.init) == count(after, "movedBy", "epoch"))
        #expect(sample(metrics, #"layoutd_direct_moved_total{reason="namespace"}"#) == 0)
        #expect(sample(metrics, "layoutd_direct_behind_total").map(Int.init) == count(after, "behind"))
        #expect(sample(metrics, "layoutd_direct_read_only_total").map(Int.init) == count(after, "readOnly"))
        #expect(sample(metrics, "layoutd_direct_lease_expiries_total") != nil)
        #expect(sample(metrics, "layoutd_direct_lease_revocations_total") == 0)
        #expect(sample(metrics, "layoutd_direct_lease_holds") != nil)

        // The broker's stats and metrics, once a heartbeat has carried them.
        var shown: [String: Any]?
        let carried = try eventually {
            shown = try brokerCounts(direct, owner.worker)
            return count(shown, "behind") >= count(after, "behind") && count(shown, "readOnly") >= count(after, "readOnly")
        }
        #expect(carried, "the broker's stats never showed the worker's direct reads: \(String(describing: shown))")
        #expect(count(shown, "reads") >= count(after, "reads"))
        #expect(count(shown, "movedBy", "epoch") == count(after, "movedBy", "epoch"))
        #expect(shown?["endpoint"] == nil && shown?["leaseHolds"] == nil, "the worker's own stats say these")
        let brokerMetrics = try direct.ask("metrics")
        #expect(sample(brokerMetrics, #"layoutd_worker_direct_behind_total{worker="\#(owner.worker)"}"#).map(Int.init) == count(after, "behind"))
        #expect(sample(brokerMetrics, #"layoutd_worker_direct_reads_total{worker="\#(owner.worker)"}"#) != nil)
    }

    @Test func aWorkerCountsTheLeaseItLosesWithItsBroker() throws {
        let direct = try DirectReadCluster(workers: ["direct-0"])
        #expect(try direct.call(mosaicJob(key: "feed", count: 10), on: try direct.dealer()).ok)
        let owner = try direct.entry("feed")
        let socket = try direct.dealer(direct.directEndpoints[owner.worker])
        let query = #"{"v":1,"op":"query","layout":"feed","epoch":\#(owner.epoch),"items":[[0,0]]}"#
        #expect(try direct.callUntilAnswered(query, on: socket).ok)
        var counts = try ownCounts(direct, owner.worker)
        let ended = count(counts, "leaseExpiries") + count(counts, "leaseRevocations")
        #expect(try eventually { try ownCounts(direct, owner.worker)["leaseHolds"] as? Bool == true })

        // The broker goes: its worker drops the lease when it sees the connection end (a revocation),
        // or, should it notice only the silence, after the lease ran out (a lapse). One way, once.
        direct.cluster.broker.stop()
        let dropped = try eventually {
            counts = try ownCounts(direct, owner.worker)
            return counts["leaseHolds"] as? Bool == false && count(counts, "leaseExpiries") + count(counts, "leaseRevocations") > ended
        }
        #expect(dropped, "the lease never ended: \(counts)")
        #expect(count(counts, "leaseExpiries") + count(counts, "leaseRevocations") == ended + 1, "\(counts)")
        let movedByLease = count(counts, "movedBy", "lease")
        #expect(try direct.call(query, on: socket).errorCode == "moved")
        #expect(count(try ownCounts(direct, owner.worker), "movedBy", "lease") == movedByLease + 1)
    }
}
