import Foundation
import LayoutServer
import Synchronization
import Testing
@testable import LayoutCluster

/// Issue 14: events fenced by the worker's connection to its broker. A change a worker was running when
/// its broker gave up on the connection is not published (its queued ones do not even run).
struct JobOriginTests {
    /// A worker's job handler over a store whose events go through the fence: `feed` prepared, then
    /// `body` run; `connectionEnds` ends the connection as the store emits the change's event, that is
    /// while the request runs. The events published for `body`, and whether it succeeded.
    private func run(_ body: String, connectionEnds: Bool) -> (published: Int, ok: Bool) {
        let membership = WorkerMembership(livenessNanos: 1_000_000_000)
        let published = Mutex(0)
        let running = Atomic<Bool>(false)
        let fenced = JobOrigin.fenced(by: membership) { _ in published.withLock { $0 += 1 } }
        let store = LayoutStore(capacityBytes: 1 << 30) { change in
            if connectionEnds, running.load(ordering: .relaxed) { membership.noteLeft() }
            fenced(change)
        }
        let stats = ServerStats()
        let limits = ServerConfiguration().inputLimits
        var jobs = ClusterJobHandler(handler: RequestHandler(store: store, stats: stats, limits: limits, startedAt: Date()), store: store, stats: stats, limits: limits, brokerJobs: BrokerJobDesk())
        jobs.membership = membership
        func execute(_ body: String) -> JobReply? {
            let origin = ClusterJobHandler.Origin(epoch: 7, conversation: membership.conversation)
            switch jobs.decode(RequestBody(Array(body.utf8), caller: .anonymous), context: origin) {
            case .reply(let refused): return refused
            case .run(let job, _): return jobs.answer(job)
            }
        }
        _ = execute(prepareBody("feed", count: 5))
        published.withLock { $0 = 0 }
        running.store(true, ordering: .relaxed)
        let reply = execute(body)
        return (published.withLock { $0 }, reply?.errorCode == nil && reply != nil)
    }

    @Test func aChangeRunningWhenTheConnectionEndsPublishesNothing() {
        let body = updateBody("feed", insert: "x")
        let joined = run(body, connectionEnds: false)
        #expect(joined.ok && joined.published == 1, "published while the connection lives")
        let cutOff = run(body, connectionEnds: true)
        #expect(cutOff.ok, "it ran: it was admitted before the connection ended")
        #expect(cutOff.published == 0, "its event is not published")
    }

    /// A RELEASE the pool reaches after its connection ended is skipped: the worker's READY to the next
    /// broker listed the copy, and that broker must find it where READY said (issue 32: a broker named
    /// a worker that had released its copy as the key's owner, and the key answered unknown_layout).
    @Test func aReleaseOfAConnectionThatEndedIsNotRun() throws {
        let membership = WorkerMembership(livenessNanos: 1_000_000_000)
        let store = LayoutStore(capacityBytes: 1 << 30) { _ in }
        let stats = ServerStats()
        let limits = ServerConfiguration().inputLimits
        let desk = BrokerJobDesk()
        var jobs = ClusterJobHandler(handler: RequestHandler(store: store, stats: stats, limits: limits, startedAt: Date()), store: store, stats: stats, limits: limits, brokerJobs: desk)
        jobs.membership = membership
        func submit(_ body: RequestBody, from origin: ClusterJobHandler.Origin) -> ClusterJobHandler.Job? {
            guard case .run(let job, _) = jobs.decode(body, context: origin) else { return nil }
            return job
        }
        let key = LayoutKey(name: "feed")
        _ = submit(RequestBody(Array(prepareBody("feed", count: 5).utf8)), from: .none).map(jobs.answer)
        #expect(store.summary(forKey: key) != nil)

        let origin = ClusterJobHandler.Origin(epoch: 7, conversation: membership.conversation)
        let stale = submit(desk.submit(.release(key)), from: origin)
        membership.noteLeft()
        let staleJob = try #require(stale)
        #expect(jobs.answer(staleJob) == nil, "a release answers nobody")
        #expect(store.summary(forKey: key) != nil, "the copy READY listed is still there")

        let current = submit(desk.submit(.release(key)), from: ClusterJobHandler.Origin(epoch: 8, conversation: membership.conversation))
        _ = current.map(jobs.answer)
        #expect(store.summary(forKey: key) == nil, "a release of the live connection runs")
    }
}
