import Dispatch
import LayoutEngine
import LayoutWire

/// What an I/O thread answers itself, at most: `FrontDesk`'s bounds, and a cluster worker's direct
/// endpoint's.
public enum InlineAnswerBounds {
    /// The largest body decoded on an I/O thread: a few screenfuls of JSON; a `ping` is 26 bytes and a
    /// query about 100.
    public static let maxBodyBytes = 2048
    /// The most elements a query answered there may return (counted from the rect index's leaves, an
    /// upper bound): a screenful or two, some tens of microseconds to encode.
    public static let maxQueryElements = 256
}

/// What the I/O thread does with a request it has received: answers the cheap ones itself, as Redis
/// does, and hands the rest to the worker pool.
///
/// Why: a `ping` or a small `query` costs a few microseconds of work, and twice as much again in
/// hand-offs through the pool (a worker woken, the reply posted back and the I/O thread woken for it:
/// docs/BENCHMARKS.md, "Where the daemon's time goes"). Answered where it arrived, it costs the work.
///
/// The bounds that keep a slow request off the one thread every client shares: only bodies of at most
/// `maxBodyBytes` without attachments are decoded here, and only `ping` and a rect `query` of at most
/// `maxQueryElements` candidate elements, on a layout in memory that no admitted request is working on,
/// are answered here. Everything else goes to the pool, decoded already when it was decoded here. At
/// the pool's bound nothing is answered here: every request is answered `busy`, as it always was.
///
/// The ordering rule holds: a query is answered here only when every admitted request is decoded and
/// none on its layout is unfinished (`WorkerPool.isFree`), and the I/O thread, which alone admits, does
/// so before it admits the next one. Its reply leaves at once, after the replies the workers have posted
/// (an earlier op on its layout may have posted its reply and not yet been sent):
/// `Decision.answered(_:afterPosted:)`.
///
/// Not Sendable on purpose: it is used by the I/O thread only.
struct FrontDesk {
    static let maxBodyBytes = InlineAnswerBounds.maxBodyBytes
    static let maxQueryElements = InlineAnswerBounds.maxQueryElements

    /// What to do with a request.
    enum Decision {
        /// Answered here: send this reply; when `afterPosted`, after what the workers have posted so far.
        case answered(ReplyBody, afterPosted: Bool)
        /// For the pool: `admit` it.
        case pool(Pending)
    }

    /// A request on its way to the pool, decoded when it was decoded here.
    struct Pending {
        var envelope: Envelope
        var body: RequestBody
        var decoded: (request: RequestHandler.Admitted, key: String?)?
    }

    let handler: RequestHandler
    let pool: WorkerPool<RequestHandler>
    let stats: ServerStats

    /// Answers `body` here when it is cheap, else says it is for the pool.
    func look(at body: RequestBody, envelope: Envelope) -> Decision {
        guard body.attachments.isEmpty, body.count <= Self.maxBodyBytes else {
            return .pool(Pending(envelope: envelope, body: body))
        }
        let arrived = DispatchTime.now().uptimeNanoseconds
        let decoded = handler.decode(body)
        var key: String?
        if case .run(_, let runKey) = decoded { key = runKey }
        // At the queue bound every request is answered `busy`, as before: `admit` refuses it.
        let room = pool.room(for: key)
        guard room != .full else { return .pool(Pending(envelope: envelope, body: body)) }
        switch decoded {
        case .reply(let reply):
            // A request that does not decode runs nothing: its error may leave at once.
            record(reply, since: arrived)
            return .answered(reply.body, afterPosted: false)
        case .run(let admitted, let key):
            if let reply = handler.answerAtOnce(admitted, maxQueryElements: Self.maxQueryElements, keyIsFree: room == .free) {
                record(reply, since: arrived)
                return .answered(reply.body, afterPosted: key != nil)
            }
            return .pool(Pending(envelope: envelope, body: body, decoded: (admitted, key)))
        }
    }

    /// Admits `pending` to the pool; false when it is full (answer `busy`).
    func admit(_ pending: Pending) -> Bool {
        if let decoded = pending.decoded {
            return pool.submit(envelope: pending.envelope, decoded: decoded.request, key: decoded.key)
        }
        return pool.submit(envelope: pending.envelope, body: pending.body)
    }

    private func record(_ reply: JobReply, since arrived: UInt64) {
        let now = DispatchTime.now().uptimeNanoseconds
        stats.recordRequest(op: reply.op, micros: (now > arrived ? now - arrived : 0) / 1000, errorCode: reply.errorCode)
    }
}

extension RequestHandler {
    /// The reply of `admitted` when it is cheap to run here and now, nil when it must go to the pool:
    /// a `ping`, or a rect `query` without pinning or dynamics, on a layout in memory, whose rect meets
    /// at most `maxQueryElements` elements, when `keyIsFree` (no earlier request on its layout is
    /// unfinished). Anything that needs more (an error to phrase, a layout to reload from the journal)
    /// is left to the pool, which answers it as before.
    func answerAtOnce(_ admitted: Admitted, maxQueryElements: Int, keyIsFree: Bool) -> JobReply? {
        let request = admitted.request
        switch request.operation {
        case .ping:
            return execute(admitted)
        case .query(let query):
            guard keyIsFree, let entry = smallRectQueryEntry(query, caller: admitted.caller, maxQueryElements: maxQueryElements) else { return nil }
            return JobReply(body: Self.answer(query, id: request.id, from: entry), op: request.operation.name.rawValue, errorCode: nil)
        default:
            return nil
        }
    }

    /// Whether `admitted` is as cheap to run as what a daemon's I/O thread answers itself (`FrontDesk`):
    /// a `ping`, or a rect `query` without pinning or dynamics, on a layout in memory, whose rect meets
    /// at most `maxQueryElements` elements. For another I/O thread that answers such requests where they
    /// arrive: a cluster worker's direct endpoint.
    public func isCheapToAnswerAtOnce(_ admitted: Admitted, maxQueryElements: Int = InlineAnswerBounds.maxQueryElements) -> Bool {
        switch admitted.request.operation {
        case .ping: return true
        case .query(let query): return smallRectQueryEntry(query, caller: admitted.caller, maxQueryElements: maxQueryElements) != nil
        default: return false
        }
    }

    /// The layout a rect query without pinning or dynamics reads, when `caller` may read it, it is in
    /// memory, and the rect meets at most `maxQueryElements` of its elements; nil otherwise.
    private func smallRectQueryEntry(_ query: QueryRequest, caller: Caller, maxQueryElements: Int) -> LayoutStore.Entry? {
        guard case .rect(let rect) = query.selection, query.pinning == .none, query.dynamics == nil else { return nil }
        let namespace = query.namespace ?? caller.namespace
        guard caller.mayRead(namespace), let entry = store.entry(forKey: LayoutKey(namespace: namespace, name: query.layout)),
            entry.layout.mayHaveAtMost(maxQueryElements, elementsIn: rect)
        else { return nil }
        return entry
    }
}
