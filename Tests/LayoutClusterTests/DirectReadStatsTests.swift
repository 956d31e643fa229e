import Foundation
import Testing
@testable import LayoutCluster

/// The counts behind a worker's direct-read stats and metrics: how leases end, and the tally's JSON as
/// heartbeats carry it to the broker.
@Suite struct DirectReadStatsTests {
    private static let second: UInt64 = 1_000_000_000

    /// `[expiries, revocations]` as of `now`.
    private func counts(_ lease: ReadLease, at now: UInt64) -> [Int] {
        let transitions = lease.transitions(at: now)
        return [transitions.expiries, transitions.revocations]
    }

    @Test func aLeaseThatLapsesIsCountedOnceHoweverOftenItIsLookedAt() {
        let lease = ReadLease()
        // Nothing granted yet: nothing lapses.
        lease.noteTime(5 * Self.second)
        #expect(counts(lease, at: 5 * Self.second) == [0, 0])
        lease.extend(until: 12 * Self.second, at: 10 * Self.second)
        lease.noteTime(11 * Self.second)
        #expect(counts(lease, at: 11 * Self.second) == [0, 0])
        // No grant in time: one lapse, however often it is noticed.
        lease.noteTime(13 * Self.second)
        lease.noteTime(14 * Self.second)
        #expect(counts(lease, at: 15 * Self.second) == [1, 0])
        // A grant that arrives spent leaves it lapsed, and counts no second lapse.
        lease.extend(until: 14 * Self.second, at: 16 * Self.second)
        #expect(counts(lease, at: 17 * Self.second) == [1, 0])
        // Granted again, then lapsed before a grant noticed it: the lapse is counted by the grant.
        lease.extend(until: 20 * Self.second, at: 18 * Self.second)
        lease.extend(until: 23 * Self.second, at: 21 * Self.second)
        #expect(counts(lease, at: 22 * Self.second) == [2, 0])
        #expect(lease.holds(at: 22 * Self.second))
    }

    @Test func aRevocationCountsOnlyALeaseThatHeld() {
        let lease = ReadLease()
        lease.revoke(at: Self.second)
        #expect(counts(lease, at: Self.second) == [0, 0])
        lease.extend(until: 5 * Self.second, at: 2 * Self.second)
        lease.revoke(at: 3 * Self.second)
        #expect(!lease.holds(at: 3 * Self.second))
        #expect(counts(lease, at: 9 * Self.second) == [0, 1], "revoked while it held: no lapse after")
        // Lapsed first, then the connection ended: a lapse, not a revocation.
        lease.extend(until: 11 * Self.second, at: 10 * Self.second)
        lease.revoke(at: 12 * Self.second)
        #expect(counts(lease, at: 12 * Self.second) == [1, 1])
    }

    @Test func theCountersTallyEachOutcome() {
        let counters = DirectReadCounters()
        let outcomes: [DirectReadCounters.Outcome] = [
            .answered, .answered, .behind, .readOnly, .moved(.epoch), .moved(.epoch), .moved(.notKept),
            .moved(.fenced), .moved(.lease), .moved(.namespace),
        ]
        for outcome in outcomes { counters.record(outcome) }
        let tally = counters.tally(lease: ReadLease())
        #expect(tally.reads == 2 && tally.behind == 1 && tally.readOnly == 1)
        #expect(tally.movedBy == [.epoch: 2, .notKept: 1, .fenced: 1, .lease: 1, .namespace: 1])
        #expect(tally.moved == 6)
    }

    @Test func theTallyTravelsInTheHeartbeatAndOlderWorkersSendNone() throws {
        var tally = DirectReadTally()
        tally.reads = 40
        tally.movedBy = [.epoch: 3, .lease: 2]
        tally.behind = 1
        tally.readOnly = 4
        tally.leaseExpiries = 2
        tally.leaseRevocations = 1
        var load = WorkerLoad(threads: 2, busy: 1, queued: 0, layouts: 3, layoutBytes: 10, itemsPrepared: 7)
        load.leaseSequence = 9
        load.direct = tally
        let decoded = try #require(WorkerLoad(frame: load.frame))
        #expect(decoded == load)
        #expect(decoded.direct?.moved == 5)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(load.frame)) as? [String: Any])
        let direct = try #require(object["direct"] as? [String: Any])
        #expect(direct["moved"] as? Int == 5)
        #expect((direct["movedBy"] as? [String: Int]) == ["notKept": 0, "epoch": 3, "fenced": 0, "lease": 2, "namespace": 0])
        // A worker without a direct endpoint (or an older one) sends no `direct`.
        let plain = WorkerLoad(threads: 1)
        #expect(!String(decoding: plain.frame, as: UTF8.self).contains("direct"))
        #expect(WorkerLoad(frame: plain.frame)?.direct == nil)
        // Members a later worker may add, or leave out, do not make the frame unreadable.
        let odd = Array(#"{"threads":1,"direct":{"reads":3,"movedBy":{"epoch":1,"someday":4},"future":true}}"#.utf8)
        let read = try #require(WorkerLoad(frame: odd)?.direct)
        #expect(read.reads == 3 && read.movedBy == [.epoch: 1] && read.behind == 0)
    }
}
