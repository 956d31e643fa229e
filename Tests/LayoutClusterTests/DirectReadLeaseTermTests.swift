import Foundation
import LayoutServer
import Testing
@testable import LayoutCluster

/// A direct read is answered only under the read lease it arrived in (docs/PROTOCOL.md §11): not under
/// the lease of a later connection to a broker, whose RELEASE of a stale copy may be queued behind it,
/// and no lease is granted while a broker that has just started waits for its workers to register again.
@Suite struct DirectReadLeaseTermTests {
    private static let second: UInt64 = 1_000_000_000

    @Test func aTermHoldsUntilTheConnectionEndsNotJustUntilTheNextGrant() {
        let lease = ReadLease()
        #expect(lease.term(ifHoldingAt: Self.second) == nil, "no lease yet: a read arriving now will be moved")
        lease.extend(until: 5 * Self.second, at: Self.second)
        let first = lease.term(ifHoldingAt: 2 * Self.second)
        #expect(first != nil)
        // Grants on the same connection extend the same term, and a lapse between them does not end it:
        // the broker moved nothing of a worker it still hears.
        lease.extend(until: 9 * Self.second, at: 6 * Self.second)
        #expect(first.map { lease.holds(at: 7 * Self.second, inTerm: $0) } == true)
        // The connection ends, and a new one is granted a lease: a read of the old term is not answered.
        lease.revoke(at: 8 * Self.second)
        #expect(lease.term(ifHoldingAt: 8 * Self.second) == nil)
        lease.extend(until: 14 * Self.second, at: 10 * Self.second)
        let second = lease.term(ifHoldingAt: 11 * Self.second)
        #expect(second != nil && second != first)
        #expect(first.map { lease.holds(at: 11 * Self.second, inTerm: $0) } == false)
        #expect(second.map { lease.holds(at: 11 * Self.second, inTerm: $0) } == true)
        #expect(second.map { lease.holds(at: 14 * Self.second, inTerm: $0) } == false, "and only while it holds")
    }

    @Test func aReadThatWaitedWhileItsWorkerJoinedAgainIsMoved() throws {
        let (cluster, worker) = SimulatedCluster.withLeasedWorker(items: 5)
        let lease = try #require(worker.directSide?.lease)
        let epoch = try #require(worker.store.summary(forKey: LayoutKey(name: "feed"))?.epoch)
        let query = #"{"v":1,"id":"d","op":"query","layout":"feed","rect":{"x":0,"y":0,"width":320,"height":1000},"epoch":\#(epoch)}"#
        func decoded() throws -> ClusterJobHandler.Job {
            try #require(worker.directJob(query), "the read decodes")
        }
        func answer(_ job: ClusterJobHandler.Job) throws -> [String: Any] {
            let bytes = try #require(worker.jobs.answer(job)).body.bytes
            return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        }
        #expect(try answer(try decoded())["ok"] as? Bool == true, "answered under the lease it arrived in")

        // A read arrives, and waits in the pool while the worker's connection ends and it joins again,
        // and the new connection is granted a lease: it is not answered under that one.
        let waiting = try decoded()
        cluster.kill("a")
        cluster.join("a")
        cluster.deliverAll()
        cluster.advanceClocks(by: Self.second / 2)
        #expect(lease.holdsNow, "the new connection's grant arrived")
        let late = try answer(waiting)
        #expect(late["ok"] as? Bool == false)
        let error = try #require(late["error"] as? [String: Any])
        #expect(error["code"] as? String == "moved" && (error["message"] as? String)?.contains("read lease") == true)
        // A read arriving under the new lease is answered.
        #expect(try answer(try decoded())["ok"] as? Bool == true)
    }

    @Test func aBrokerWaitingForItsWorkersToRegisterAgainGrantsNoLease() throws {
        let cluster = SimulatedCluster()
        cluster.modelsLinks = true
        cluster.core.holdKeyedRequests(until: cluster.clock + 4 * Self.second)
        let worker = cluster.join("a", direct: "tcp://a:5570")
        for _ in 0..<7 {
            cluster.advanceClocks(by: Self.second / 2)
            #expect(worker.directSide?.lease.holdsNow == false)
        }
        #expect(cluster.core.leaseGrant(forWorkerAt: worker.routingID) == nil)
        // Once the wait is over, its next heartbeat is granted one.
        for _ in 0..<4 { cluster.advanceClocks(by: Self.second / 2) }
        #expect(cluster.core.rejoinUntil == nil)
        #expect(cluster.core.leaseGrant(forWorkerAt: worker.routingID) != nil)
        #expect(worker.directSide?.lease.holdsNow == true)
    }
}
