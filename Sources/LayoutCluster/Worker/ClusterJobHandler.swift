import Foundation
import LayoutEngine
import LayoutServer
import LayoutWire

/// What a cluster worker's pool runs: the daemon's own ops (`RequestHandler`, unchanged), and the
/// broker's RESTORE and SNAPSHOT, ordered with the key's other requests like any op on that key.
struct ClusterJobHandler: JobHandler {
    enum Job: Sendable {
        /// A client's request, the epoch of the broker that sent it, the connection it came on, and the
        /// `minVersion` it carries, if any (`ClusterJobHandler+MinVersion`).
        case request(RequestHandler.Admitted, epoch: UInt64, conversation: UInt64, minVersion: Int? = nil)
        /// A rebuild, a snapshot and a release, each with the connection to the broker it came on: one
        /// that the pool reaches after that connection ended is not run (see `answer`).
        case restore(RestoreJob, conversation: UInt64 = 0)
        case snapshot(SnapshotJob, conversation: UInt64 = 0)
        case release(LayoutKey, conversation: UInt64 = 0)
        /// A read from the direct endpoint, with its conditions, the layout it names and the read
        /// lease's term it arrived in.
        case directRead(RequestHandler.Admitted, DirectReadFields, layout: String?, leaseTerm: UInt64?)
    }

    /// Where a request came from: the broker's epoch and the worker's connection to it that a REQUEST
    /// arrived on (a request from a connection that has ended is not run: the broker that sent it has
    /// given up on this worker); both 0 for what did not come as a REQUEST.
    struct Origin: Sendable {
        var epoch: UInt64 = 0
        var conversation: UInt64 = 0

        static let none = Origin()
    }

    let handler: RequestHandler
    let store: LayoutStore
    let stats: ServerStats
    let limits: InputLimits
    let brokerJobs: BrokerJobDesk
    /// The worker's link to its broker, whose current connection a request must have come on to run;
    /// nil where there is no link (the simulator).
    var membership: WorkerMembership?
    /// Where the direct endpoint files its requests; nil without one.
    var directReads: JobDesk<DirectRead>?
    /// Whether direct reads may be answered now; nil without a direct endpoint.
    var lease: ReadLease?
    /// Keys moving away, whose direct reads are answered `moved`; nil without a direct endpoint.
    var fences: DirectReadFences?
    /// How the direct endpoint answered; nil without one.
    var directCounters: DirectReadCounters?

    func decode(_ body: RequestBody, context origin: Origin) -> DecodeOutcome<Job> {
        switch brokerJobs.take(for: body) {
        case .restore(let job)?: return .run(.restore(job, conversation: origin.conversation), key: job.header.key.schedulingKey)
        case .snapshot(let job)?: return .run(.snapshot(job, conversation: origin.conversation), key: job.request.key.schedulingKey)
        case .release(let key)?: return .run(.release(key, conversation: origin.conversation), key: key.schedulingKey)
        case nil: break
        }
        if let read = directReads?.take(for: body) { return decodeDirect(body, arrivedIn: read.leaseTerm) }
        switch handler.decode(body) {
        case .run(let request, let key):
            let minVersion = request.request.operation.name == .query ? Self.forwardedMinVersion(in: body) : nil
            return .run(.request(request, epoch: origin.epoch, conversation: origin.conversation, minVersion: minVersion), key: key)
        case .reply(let reply): return .reply(reply)
        }
    }

    func answer(_ job: Job) -> JobReply? {
        switch job {
        case .request(let request, let epoch, let conversation, let minVersion):
            if let membership, conversation != 0, conversation != membership.conversation {
                // Its broker gave up on this connection (and may have given the key to another worker):
                // not run, so nothing changes and nothing is published. Its reply is not read.
                let error = WireError(.unavailable, "this worker lost its broker before running the request; it was not applied")
                return JobReply(body: ReplyBody(ReplyEncoder.failure(id: request.request.id, error: error)), op: request.request.operation.name.rawValue, errorCode: error.code.rawValue)
            }
            if let behind = behindReply(request, minVersion: minVersion) { return behind }
            let reply = JobOrigin.$conversation.withValue(conversation) { handler.execute(request) }
            // A change is stamped with the epoch it was made under: READY reports it, and a restarted
            // broker orders copies of a key by (epoch, version).
            if reply.errorCode == nil, epoch > 0, let key = request.changedKey { store.stamp(key, epoch: epoch) }
            return reply
        case .restore(let restore, let conversation):
            // The broker that asked gave up on this connection: the worker has told the next broker
            // what it keeps (READY), and a copy made now would be one that broker does not know of.
            if hasEnded(conversation) {
                return JobReply(body: ReplyBody(RestoreOutcome.failed(code: "unavailable", message: "the broker's connection ended").body), op: "restore", errorCode: "unavailable")
            }
            let outcome = run(restore)
            switch outcome {
            case .restored:
                if restore.epoch > 0 { store.stamp(restore.header.key, epoch: restore.epoch) }
                // The broker gave this worker the key (again): its new copy may be read directly.
                fences?.lift(restore.header.key)
                return JobReply(body: ReplyBody(outcome.body), op: "restore", errorCode: nil)
            case .failed(let code, _): return JobReply(body: ReplyBody(outcome.body), op: "restore", errorCode: code)
            }
        case .snapshot(let snapshot, let conversation):
            if hasEnded(conversation) {
                return JobReply(body: ReplyBody(SnapshotOutcome.failed(code: "unavailable", message: "the broker's connection ended").frame), op: "snapshot", errorCode: "unavailable")
            }
            return run(snapshot)
        case .release(let key, let conversation):
            // Released only on the connection that asked: once it ended, the worker's READY to the next
            // broker listed this copy, and that broker decides what becomes of it (releasing it now would
            // leave that broker naming this worker as the owner of a copy it no longer holds).
            guard !hasEnded(conversation) else { return nil }
            _ = store.release(key)
            fences?.lift(key)
            return nil
        case .directRead(let request, let fields, let layout, let leaseTerm):
            return executeDirect(request, fields, layout: layout, leaseTerm: leaseTerm)
        }
    }

    /// Whether the connection to the broker a job came on (0: not known) has ended.
    private func hasEnded(_ conversation: UInt64) -> Bool {
        guard let membership, conversation != 0 else { return false }
        return conversation != membership.conversation
    }

    /// Replays the recipe on a private store of its own, through the same handler code as live
    /// requests (so frames come out bit for bit as they did), with the versions the broker saw; then
    /// keeps the result at the target version without publishing anything: subscribers saw every change.
    /// The recipe's bodies run as a caller of the key's namespace (see `RestoreJob`), so the layout is
    /// rebuilt, and kept, in that namespace.
    private func run(_ job: RestoreJob) -> RestoreOutcome {
        let key = job.header.layout
        let storeKey = job.header.key
        let version = job.header.version
        guard !job.bodies.isEmpty else {
            _ = store.restore(nil, forKey: storeKey, version: version)
            return .restored(layout: key, version: version, items: 0)
        }
        func fail(_ code: WireError.Code, _ message: String) -> RestoreOutcome {
            // Continue the count past the `lost` event the broker publishes for this failure.
            _ = store.restore(nil, forKey: storeKey, version: version + 1)
            return .failed(code: code.rawValue, message: message)
        }
        let layout: PreparedLayout
        switch RecipeReplay(key: storeKey, base: job.header.base, limits: limits, stats: stats).rebuild(from: job.bodies, version: version) {
        case .success(let rebuilt): layout = rebuilt
        case .failure(let error): return fail(error.code, error.message)
        }
        switch store.restore(layout, forKey: storeKey, version: version) {
        case .stored:
            return .restored(layout: key, version: version, items: layout.itemCount)
        case .tooLarge:
            return fail(.tooLarge, "the layout needs \(layout.byteCount) bytes, more than this worker's store bound of \(store.capacityBytes)")
        case .stale, .versionConflict:
            return fail(.internal, "the store refused the rebuilt layout")
        }
    }
}

/// A RESTORE on its way from the worker's I/O thread to the pool.
struct RestoreJob: Sendable {
    var header: RestoreHeader
    var bodies: [RequestBody]
    /// The epoch of the broker that asked for the rebuild.
    var epoch: UInt64 = 0

    /// The recipe's frames as bodies of a caller of the key's namespace: the requests that made the
    /// layout came from such callers (only `prepare` and changes, which act in the caller's own
    /// namespace, are in a recipe, so whether that caller was an admin does not matter).
    init(header: RestoreHeader, frames: some Sequence<[UInt8]>) {
        self.header = header
        let caller = Caller(namespace: header.namespace, isAdmin: false)
        bodies = frames.map { RequestBody($0, caller: caller) }
    }
}

extension RequestHandler.Admitted {
    /// The key a change acts on (in the caller's namespace); nil for an op that changes nothing.
    var changedKey: LayoutKey? {
        guard request.operation.changesLayout, let name = request.operation.layoutKey else { return nil }
        return LayoutKey(namespace: caller.namespace, name: name)
    }
}
