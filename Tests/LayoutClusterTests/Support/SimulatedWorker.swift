import Foundation
import LayoutServer
import LayoutWire
import Synchronization
import Testing
@testable import LayoutCluster

/// A worker's handler, store, RESTORE and SNAPSHOT code, run synchronously.
final class SimulatedWorker {
    let name: String
    let routingID: [UInt8]
    let store: LayoutStore
    private(set) var jobs: ClusterJobHandler
    let brokerJobs = BrokerJobDesk()
    var connected = true
    /// The protocol its READY declares.
    var protocolVersion = WorkerProtocol.extensionVersion
    /// The direct endpoint its READY names (`cluster.direct`); nil: none.
    var directEndpoint: String?
    /// Keys it was told to stop answering direct reads of (FENCE).
    let fences = DirectReadFences()
    /// Its clock, read lease and heartbeats, when it has a direct endpoint (`SimulatedDirectReads`).
    private(set) var directSide: SimulatedDirectSide?
    /// Its link to the broker is cut (a partition, or a pause of its I/O thread) while clients still
    /// reach its direct endpoint; nil when the link works. Orders wait; its heartbeats are held until the
    /// link heals, or lost.
    var cutOff: CutLink?
    /// Whether its queue is full for rebuilds: RESTORE answered `busy`, nothing changed.
    var refusesRestores = false
    /// How many RESTOREs it refuses next (a queue full for a while).
    var restoresToRefuse = 0

    /// What its store evicted and the broker has not been told yet.
    private final class EvictionLog: Sendable {
        let entries = Mutex<[ReadyInfo.KeyVersion]>([])
    }
    private let evictions = EvictionLog()

    init(name: String, routingID: [UInt8], storeBytes: Int = 1 << 30) {
        self.name = name
        self.routingID = routingID
        let evictions = self.evictions
        let store = LayoutStore(capacityBytes: storeBytes) { change in
            if case .invalidated(let key, let version, .evicted, _, let epoch) = change {
                evictions.entries.withLock { $0.append(ReadyInfo.KeyVersion(key: key, version: version, epoch: epoch)) }
            }
        }
        let stats = ServerStats()
        self.store = store
        let limits = ServerConfiguration().inputLimits
        var jobs = ClusterJobHandler(handler: RequestHandler(store: store, stats: stats, limits: limits, startedAt: Date()), store: store, stats: stats, limits: limits, brokerJobs: brokerJobs)
        jobs.fences = fences
        self.jobs = jobs
    }

    func attach(_ side: SimulatedDirectSide) {
        directSide = side
        jobs.lease = side.lease
    }

    func takeEvictions() -> [ReadyInfo.KeyVersion] {
        evictions.entries.withLock { taken in
            defer { taken = [] }
            return taken
        }
    }

    func ready(keys: [ReadyInfo.KeyVersion]?) -> ReadyInfo {
        var ready = ReadyInfo(extensionVersion: protocolVersion, workerID: name, credit: 64, threads: 2, keys: keys ?? store.summaries().map { .init(key: $0.key, version: $0.version, epoch: $0.epoch) })
        ready.directEndpoint = directEndpoint
        return ready
    }

    /// The epoch of the broker it last heard a HEARTBEAT from.
    var brokerEpoch: UInt64 = 0

    /// Runs one order from the broker of `brokerEpoch` (a HEARTBEAT carries it); the token and reply for
    /// requests, rebuilds and snapshots.
    func run(_ order: WorkerOrder, brokerEpoch epochOfSender: UInt64 = 0, grant: LeaseGrant? = nil) -> (RequestToken, ReplyBody)? {
        switch order {
        case .request(let token, let body, let caller):
            // The caller's frame as the worker reads it off the wire.
            let received = caller.flatMap { Caller(workerFrame: $0.workerFrame) } ?? .anonymous
            return (token, execute(RequestBody(body.array, caller: received), from: ClusterJobHandler.Origin(epoch: brokerEpoch)))
        case .restore(let token, let header, let bodies):
            if refusesRestores || restoresToRefuse > 0 {
                restoresToRefuse = max(0, restoresToRefuse - 1)
                return (token, ReplyBody(RestoreOutcome.failed(code: "busy", message: "the worker's queue is full").body))
            }
            var job = RestoreJob(header: RestoreHeader(frame: header.frame) ?? header, frames: bodies.map(\.array))
            job.epoch = brokerEpoch
            let body = brokerJobs.submit(.restore(job))
            return (token, execute(body))
        case .snapshot(let token, let request):
            // A worker of protocol 2 would not know the command (the broker must not send it one).
            #expect(protocolVersion >= WorkerProtocol.snapshotVersion, "SNAPSHOT sent to a worker of protocol \(protocolVersion)")
            let body = brokerJobs.submit(.snapshot(SnapshotJob(request: SnapshotRequest(frame: request.frame) ?? request)))
            return (token, execute(body))
        case .release(let keys):
            for key in ReleaseFrames.decode(ReleaseFrames.encode(keys)) {
                store.release(key)
                fences.lift(key)
            }
            return nil
        case .fence(let token, let request):
            // Only a worker whose READY named a direct endpoint is fenced.
            #expect(directEndpoint != nil, "FENCE sent to a worker without a direct endpoint")
            fences.fence(FenceRequest(frame: request.frame)?.key ?? request.key)
            return (token, ReplyBody(FenceRequest.done))
        case .heartbeat:
            brokerEpoch = epochOfSender
            if let grant { directSide?.granted(grant) }
            return nil
        case .disconnect:
            return nil
        }
    }

    private func execute(_ body: RequestBody, from origin: ClusterJobHandler.Origin = .none) -> ReplyBody {
        switch jobs.decode(body, context: origin) {
        case .reply(let reply): return reply.body
        case .run(let job, _): return jobs.answer(job)?.body ?? ReplyBody([])
        }
    }
}

extension WorkerOrder {
    var isRestore: Bool { if case .restore = self { true } else { false } }
    var isRequest: Bool { if case .request = self { true } else { false } }
    var isSnapshot: Bool { if case .snapshot = self { true } else { false } }
    var isHeartbeat: Bool { if case .heartbeat = self { true } else { false } }
    var restoreHeader: RestoreHeader? { if case .restore(_, let header, _) = self { header } else { nil } }
    var releasedKeys: [LayoutKey]? { if case .release(let keys) = self { keys } else { nil } }
    var fencedKey: LayoutKey? { if case .fence(_, let request) = self { request.key } else { nil } }
}
