import Foundation
import LayoutEngine
import LayoutWire
import Synchronization

/// Decodes requests and runs the ops of the front socket against the layout store.
///
/// Runs on worker threads; the scheduler guarantees one op at a time per layout key, in arrival order.
/// Every key is looked up in the caller's namespace (see `LayoutKey`), so a client never reaches, or
/// learns of, another client's layouts: they answer `unknown_layout` as if they did not exist.
/// Public so that another front (a cluster worker) can run the same ops behind its own socket.
public struct RequestHandler: JobHandler {
    /// A decoded request and who sent it.
    public struct Admitted: Sendable {
        public var request: Request
        public var caller: Caller
        /// With a journal, a change's body as it came, which the journal keeps to replay it.
        var body: JournaledBody?
        /// The layout the op works on, in the namespace it is looked up in; nil for an op on none.
        var key: LayoutKey?
    }

    let store: LayoutStore
    let stats: ServerStats
    let options: PrepareOptions
    let startedAt: Date
    /// How long a `list` waits for the journal's keys after a start before it is answered
    /// `unavailable`: reading 10^6 keys takes seconds, but a journal whose keys cannot be read at all
    /// must not hold a client forever.
    public var listWaitForKeys: Duration = .seconds(20)
    let decoder = RequestDecoder()
    /// The journal behind the store; nil without one (and on a replay's private store).
    let durable: DurableLayouts?
    /// Whether anyone subscribes to events; nil (a cluster worker, a replay) when they are always made.
    let audience: EventAudience?
    /// What `ping` lists, made once rather than per ping.
    private static let layoutNames = LayoutKind.allCases.map(\.rawValue)

    public init(store: LayoutStore, stats: ServerStats, limits: InputLimits, startedAt: Date, durable: DurableLayouts? = nil, audience: EventAudience? = nil) {
        self.store = store
        self.audience = audience
        self.durable = durable
        self.stats = stats
        self.options = PrepareOptions(limits: limits)
        self.startedAt = startedAt
    }

    public func decode(_ body: RequestBody, context: Void) -> DecodeOutcome<Admitted> {
        decode(body)
    }

    public func answer(_ admitted: Admitted) -> JobReply? {
        execute(admitted)
    }

    /// Decodes a request body: the request to run on its layout's key, or the reply to a bad one.
    public func decode(_ body: RequestBody) -> DecodeOutcome<Admitted> {
        let caller = body.caller
        return body.withUnsafeBytes { bytes, frames in
            do throws(WireError) {
                let request = try decoder.decode(bytes, frames: frames)
                // A namespace the caller may not read orders nothing: the op will fail as unknown.
                let namespace = request.operation.namespace.flatMap { caller.mayRead($0) ? $0 : nil } ?? caller.namespace
                let key = request.operation.layoutKey.map { LayoutKey(namespace: namespace, name: $0) }
                let kept = request.operation.changesLayout ? durable.map { JournaledBody(body, logged: $0.journal.writesALog) } : nil
                return .run(Admitted(request: request, caller: caller, body: kept, key: key), key: key?.schedulingKey)
            } catch {
                if error.code == .unknownOperation, RouteRequest(scanning: bytes) != nil {
                    let reply = ReplyBody(StandaloneRoute.reply(id: RequestDecoder.requestID(in: bytes)))
                    return .reply(JobReply(body: reply, op: "route", errorCode: nil))
                }
                let reply = ReplyBody(ReplyEncoder.failure(id: RequestDecoder.requestID(in: bytes), error: error))
                // Counted under its op when it names a valid one (PROTOCOL.md §8), as a broker counts it.
                let op = RequestRoute(scanning: bytes).operation?.rawValue ?? "unknown"
                return .reply(JobReply(body: reply, op: op, errorCode: error.code.rawValue))
            }
        }
    }

    /// Runs an admitted request and produces its reply.
    public func execute(_ admitted: Admitted) -> JobReply {
        let request = admitted.request
        let op = request.operation.name.rawValue
        do {
            if let durable {
                if case .list = request.operation, !durable.keysLoaded.load(ordering: .acquiring) { return listOnceLoaded(admitted, durable: durable) }
                // The key's version as the journal has it, while its keys are still being read after a start.
                if let key = admitted.key { try durable.resolve(key) }
                if request.operation.changesLayout { try durable.checkWritable() }
            }
            let (body, change) = try run(request, caller: admitted.caller)
            let reply = JobReply(body: body, op: op, errorCode: nil)
            guard let durable, let change else { return reply }
            return durable.journaling(change, body: admitted.body, reply: reply, id: request.id)
        } catch {
            return JobReply(body: ReplyBody(ReplyEncoder.failure(id: request.id, error: error)), op: op, errorCode: error.code.rawValue)
        }
    }


    /// A `list` while the journal's keys are still being read after a start: answered, complete, once
    /// they are all read (the worker is free meanwhile), never from the part read so far; `unavailable`
    /// when they are not read within `listWaitForKeys`.
    private func listOnceLoaded(_ admitted: Admitted, durable: DurableLayouts) -> JobReply {
        let op = admitted.request.operation.name.rawValue
        var reply = JobReply(body: ReplyBody([]), op: op, errorCode: nil)
        reply.deferral = JobReply.Deferral { resume in
            // Whichever comes first answers: the keys read, or the wait's end.
            let answered = FirstCall()
            durable.whenKeysLoaded {
                if answered.claim() { resume(execute(admitted)) }
            }
            let wait = listWaitForKeys.components
            let nanos = Int(wait.seconds) * 1_000_000_000 + Int(wait.attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanos)) {
                guard answered.claim() else { return }
                let error = WireError(.unavailable, "the journal's keys are still being read after a start; retry the list")
                resume(JobReply(body: ReplyBody(ReplyEncoder.failure(id: admitted.request.id, error: error)), op: op, errorCode: error.code.rawValue))
            }
        }
        return reply
    }

    /// Runs `request`: its reply, and what it changed in the store (nil for an op that changed nothing).
    private func run(_ request: Request, caller: Caller) throws(WireError) -> (ReplyBody, KeptChange?) {
        let id = request.id
        func own(_ name: String) -> LayoutKey { LayoutKey(namespace: caller.namespace, name: name) }
        switch request.operation {
        case .ping:
            let result = PingResult(version: LayoutdVersion.current, layouts: Self.layoutNames, uptimeSeconds: Date().timeIntervalSince(startedAt))
            return (ReplyBody.success(id: id, result: result), nil)

        case .layout(let job):
            let layout = try prepare(job.input)
            return (ReplyBody.success(id: id, result: LayoutResult(layout: layout, selection: job.attributes, format: job.format)), nil)

        case .prepare(let job):
            if let required = job.ifVersion {
                // Checked before the work, and again as the layout is stored (an eviction may come between).
                try Self.check(required, against: store.version(forKey: own(job.layout)))
            }
            let layout = try prepare(job.input)
            let version = try keep(layout, key: own(job.layout), cause: .prepare, requiredVersion: job.ifVersion)
            let body = ReplyBody.success(id: id, result: PrepareResult(key: job.layout, version: version, layout: layout, selection: job.attributes, format: job.format))
            return (body, .prepared(own(job.layout), version: version, layout: layout))

        case .query(let query):
            let namespace = query.namespace ?? caller.namespace
            // Another namespace answers as an unknown layout, not as forbidden: nothing is learnt of it.
            guard caller.mayRead(namespace) else { throw Self.unknownLayout(query.layout) }
            let entry = try existing(LayoutKey(namespace: namespace, name: query.layout))
            return (Self.answer(query, id: id, from: entry), nil)

        case .bounds(let change):
            let entry = try existing(own(change.layout))
            if let required = change.ifVersion { try Self.check(required, against: entry.version) }
            guard entry.layout.isInvalidated(byBoundsChangeTo: change.bounds) else {
                return (ReplyBody.success(id: id, result: BoundsResult(invalidated: false, version: entry.version, contentSize: entry.layout.contentSize)), nil)
            }
            var input = entry.layout.input
            input.bounds = change.bounds
            let layout = try prepare(input)
            let version = try keep(layout, key: own(change.layout), cause: .bounds, expectedVersion: entry.version)
            let body = ReplyBody.success(id: id, result: BoundsResult(invalidated: true, version: version, contentSize: layout.contentSize))
            return (body, .changed(own(change.layout), version: version, layout: layout))

        case .update(let update):
            return try BatchOps(handler: self, key: own(update.layout)).update(id: id, request: update)

        case .diff(let diff):
            return try BatchOps(handler: self, key: own(diff.layout)).diff(id: id, request: diff)

        case .drop(let drop):
            // A layout kept only in the journal is dropped as one in memory is.
            if durable != nil { _ = try? existing(own(drop.layout)) }
            let version: Int
            switch store.drop(own(drop.layout), ifVersion: drop.ifVersion) {
            case .success(let dropped): version = dropped
            case .failure(.unknown): throw Self.unknownLayout(drop.layout)
            case .failure(.versionConflict(let current)): throw Self.versionConflict(required: drop.ifVersion ?? 0, current: current)
            }
            return (ReplyBody.success(id: id, result: DropResult(layout: drop.layout, version: version)), .dropped(own(drop.layout), version: version))

        case .list(let list):
            return (ReplyBody.success(id: id, result: listPage(list, caller: caller)), nil)
        }
    }

    /// A query's reply from the entry it names.
    static func answer(_ query: QueryRequest, id: RequestID?, from entry: LayoutStore.Entry) -> ReplyBody {
        ReplyBody.success(id: id, result: QueryResult(version: entry.version, layout: entry.layout, selection: query.selection, format: query.format, pinning: query.pinning, dynamics: query.dynamics))
    }

    /// Prepares `input`, counting its items for stats; engine errors become wire errors with the
    /// engine's path (for a bounds change that rejects the new width, that names the parameter at fault).
    func prepare(_ input: LayoutInput) throws(WireError) -> PreparedLayout {
        do {
            let layout = try PreparedLayout.prepare(input, options: options)
            stats.recordItemsPrepared(layout.itemCount)
            return layout
        } catch {
            throw WireError(error)
        }
    }

    /// Stores `layout` under `key`; too large for the whole store is `too_large`.
    /// - Parameter expectedVersion: the version the change was computed from (see `LayoutStore.store`).
    func keep(_ layout: PreparedLayout, key: LayoutKey, cause: StoreCause, expectedVersion: Int? = nil, requiredVersion: Int? = nil) throws(WireError) -> Int {
        switch store.store(layout, forKey: key, cause: cause, expectedVersion: expectedVersion, requiredVersion: requiredVersion) {
        case .versionConflict(let current):
            throw Self.versionConflict(required: requiredVersion ?? 0, current: current)
        case .stored(let version):
            return version
        case .tooLarge:
            throw WireError(.tooLarge, "the layout needs \(layout.byteCount) bytes, more than the store's bound of \(store.capacityBytes)", path: "layout")
        case .stale:
            throw WireError(.unknownLayout, "the layout \"\(key.name)\" was evicted while this request ran; prepare it again", path: "layout")
        }
    }

    /// The layout kept under `key`; with a journal, brought back from it when not in memory.
    func existing(_ key: LayoutKey) throws(WireError) -> LayoutStore.Entry {
        if let entry = store.entry(forKey: key) { return entry }
        if let durable, let entry = try durable.reload(key) { return entry }
        throw Self.unknownLayout(key.name)
    }

    /// `version_conflict` unless the key is at `required` (its `ifVersion`).
    static func check(_ required: Int, against current: Int) throws(WireError) {
        guard required != current else { return }
        throw versionConflict(required: required, current: current)
    }

    static func versionConflict(required: Int, current: Int) -> WireError {
        WireError(.versionConflict, "the layout is at version \(current), not \(required)", path: "ifVersion")
    }

    static func unknownLayout(_ key: String) -> WireError {
        WireError(.unknownLayout, "no layout is kept under \"\(key)\"", path: "layout")
    }
}

extension LayoutWire.Operation {
    /// The namespace an op names itself (an admin's `query`); nil for the caller's own.
    var namespace: String? {
        if case .query(let query) = self { return query.namespace }
        return nil
    }
}

/// The daemon's version, reported by `ping`.
enum LayoutdVersion {
    static let current = "0.1.0"
}

/// Which of several callbacks came first: only the first `claim()` is true.
private final class FirstCall: Sendable {
    private let claimed = Atomic<Bool>(false)

    func claim() -> Bool {
        !claimed.exchange(true, ordering: .acquiringAndReleasing)
    }
}
