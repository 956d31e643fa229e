import Foundation
import LayoutEngine
import LayoutWire

/// Decodes requests and runs the ops of the front socket against the layout store.
///
/// Runs on worker threads; the scheduler guarantees one op at a time per layout key, in arrival order.
/// Public so that another front (a cluster worker) can run the same ops behind its own socket.
public struct RequestHandler: JobHandler {
    let store: LayoutStore
    let stats: ServerStats
    let options: PrepareOptions
    let startedAt: Date
    let decoder = RequestDecoder()
    /// What `ping` lists, made once rather than per ping.
    private static let layoutNames = LayoutKind.allCases.map(\.rawValue)

    public init(store: LayoutStore, stats: ServerStats, limits: InputLimits, startedAt: Date) {
        self.store = store
        self.stats = stats
        self.options = PrepareOptions(limits: limits)
        self.startedAt = startedAt
    }

    public func decode(_ body: RequestBody) -> DecodeOutcome<Request> {
        body.withUnsafeBytes { bytes in
            do throws(WireError) {
                let request = try decoder.decode(bytes)
                return .run(request, key: request.operation.layoutKey)
            } catch {
                let reply = ReplyBody(ReplyEncoder.failure(id: RequestDecoder.requestID(in: bytes), error: error))
                return .reply(JobReply(body: reply, op: "unknown", errorCode: error.code.rawValue))
            }
        }
    }

    public func execute(_ request: Request) -> JobReply {
        let op = request.operation.name.rawValue
        do {
            let body = try run(request)
            return JobReply(body: body, op: op, errorCode: nil)
        } catch {
            return JobReply(body: ReplyBody(ReplyEncoder.failure(id: request.id, error: error)), op: op, errorCode: error.code.rawValue)
        }
    }

    private func run(_ request: Request) throws(WireError) -> ReplyBody {
        let id = request.id
        switch request.operation {
        case .ping:
            let result = PingResult(version: LayoutdVersion.current, layouts: Self.layoutNames, uptimeSeconds: Date().timeIntervalSince(startedAt))
            return ReplyBody(ReplyEncoder.successBody(id: id, result: result))

        case .layout(let job):
            let layout = try prepare(job.input)
            return ReplyBody(ReplyEncoder.successBody(id: id, result: LayoutResult(layout: layout, selection: job.attributes, format: job.format)))

        case .prepare(let job):
            let layout = try prepare(job.input)
            let version = try keep(layout, key: job.layout, cause: .prepare)
            return ReplyBody(ReplyEncoder.successBody(id: id, result: PrepareResult(key: job.layout, version: version, layout: layout, selection: job.attributes, format: job.format)))

        case .query(let query):
            let entry = try existing(query.layout)
            return ReplyBody(ReplyEncoder.successBody(id: id, result: QueryResult(version: entry.version, layout: entry.layout, selection: query.selection, format: query.format)))

        case .bounds(let change):
            let entry = try existing(change.layout)
            guard entry.layout.isInvalidated(byBoundsChangeTo: change.bounds) else {
                return ReplyBody(ReplyEncoder.successBody(id: id, result: BoundsResult(invalidated: false, version: entry.version, contentSize: entry.layout.contentSize)))
            }
            var input = entry.layout.input
            input.bounds = change.bounds
            let layout = try prepare(input)
            let version = try keep(layout, key: change.layout, cause: .bounds, expectedVersion: entry.version)
            return ReplyBody(ReplyEncoder.successBody(id: id, result: BoundsResult(invalidated: true, version: version, contentSize: layout.contentSize)))

        case .update(let update):
            return try BatchOps(handler: self).update(id: id, request: update)

        case .diff(let diff):
            return try BatchOps(handler: self).diff(id: id, request: diff)

        case .drop(let drop):
            guard let version = store.drop(drop.layout) else { throw Self.unknownLayout(drop.layout) }
            return ReplyBody(ReplyEncoder.successBody(id: id, result: DropResult(layout: drop.layout, version: version)))

        case .list:
            let entries = store.summaries().map { ListResult.Entry(layout: $0.key, version: $0.version, items: $0.items, bytes: $0.bytes) }
            return ReplyBody(ReplyEncoder.successBody(id: id, result: ListResult(layouts: entries)))
        }
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
    func keep(_ layout: PreparedLayout, key: String, cause: StoreCause, expectedVersion: Int? = nil) throws(WireError) -> Int {
        switch store.store(layout, forKey: key, cause: cause, expectedVersion: expectedVersion) {
        case .stored(let version):
            return version
        case .tooLarge:
            throw WireError(.tooLarge, "the layout needs \(layout.byteCount) bytes, more than the store's bound of \(store.capacityBytes)", path: "layout")
        case .stale:
            throw WireError(.unknownLayout, "the layout \"\(key)\" was evicted while this request ran; prepare it again", path: "layout")
        }
    }

    func existing(_ key: String) throws(WireError) -> LayoutStore.Entry {
        guard let entry = store.entry(forKey: key) else { throw Self.unknownLayout(key) }
        return entry
    }

    static func unknownLayout(_ key: String) -> WireError {
        WireError(.unknownLayout, "no layout is kept under \"\(key)\"", path: "layout")
    }
}

extension LayoutWire.Operation {
    /// The layout key an op works on, which orders it behind earlier ops on the same key.
    var layoutKey: String? {
        switch self {
        case .ping, .layout, .list: return nil
        case .prepare(let r): return r.layout
        case .query(let r): return r.layout
        case .bounds(let r): return r.layout
        case .drop(let r): return r.layout
        case .update(let r): return r.layout
        case .diff(let r): return r.layout
        }
    }
}

/// The daemon's version, reported by `ping`.
enum LayoutdVersion {
    static let current = "0.1.0"
}
