import LayoutServer
import LayoutWire

/// Reads that came on the worker's direct endpoint (docs/PROTOCOL.md, Direct reads). One is answered
/// only when all of these hold as it runs, in the key's order with the broker's requests on it:
/// - this worker keeps the key, stamped with the epoch the client names (the broker's route table gives
///   it; a copy of another epoch is one a move or rebuild left behind, or not yet the one the client's
///   table knows);
/// - its version is at least the client's `minVersion`;
/// - its read lease holds (`ReadLease`), checked last, once the answer is made, and has held on the
///   same connection to the broker since the read arrived: a worker cut off from its broker stops
///   answering before the broker may give its keys to another worker, and a read that waited while the
///   worker joined a broker again is not answered under the new connection's lease.
/// Otherwise the answer is `moved` or `behind`, and the client asks the broker. Each answer is counted
/// (`DirectReadCounters`) for the worker's stats, heartbeats and metrics.
extension ClusterJobHandler {
    /// `leaseTerm`: the read lease's term when the read arrived, nil when no lease held then.
    func decodeDirect(_ body: RequestBody, arrivedIn leaseTerm: UInt64?) -> DecodeOutcome<Job> {
        let scanned = body.withUnsafeBytes { bytes -> Result<(DirectReadFields, RequestRoute), WireError> in
            do throws(WireError) {
                return .success((try DirectReadFields(scanning: bytes), RequestRoute(scanning: bytes)))
            } catch {
                return .failure(error)
            }
        }
        let fields: DirectReadFields
        let route: RequestRoute
        switch scanned {
        case .success(let found): (fields, route) = found
        case .failure(let error): return .reply(DirectReadReplies.refusal(body, error, op: "unknown"))
        }
        let op = route.operation?.rawValue ?? "unknown"
        switch route.operation {
        case .ping?:
            break
        case .query?, .list?:
            // A list of one layout: the direct endpoint answers for the keys it owns, not for the cluster.
            guard route.layout != nil else {
                let message = route.operation == .list ? "a direct list names the one layout it asks about" : "must be a non-empty string"
                return .reply(DirectReadReplies.refusal(body, WireError(.invalidRequest, message, path: "layout"), op: op))
            }
            guard fields.epoch != nil else {
                return .reply(DirectReadReplies.refusal(body, WireError(.invalidRequest, "a direct read names the key's epoch, from the broker's route table", path: "epoch"), op: op))
            }
        default:
            let message = "this is a worker's direct endpoint, which answers query, list of one layout and ping only; send \(route.operation.map { "`\($0.rawValue)`" } ?? "this request") to the broker"
            directCounters?.record(.readOnly)
            return .reply(DirectReadReplies.refusal(body, WireError(.readOnly, message, path: "op"), op: op))
        }
        switch handler.decode(body) {
        case .run(let request, let key):
            let ordered = key ?? route.layout.map { LayoutKey(namespace: request.caller.namespace, name: $0).schedulingKey }
            return .run(.directRead(request, fields, layout: route.layout, leaseTerm: leaseTerm), key: ordered)
        case .reply(let reply):
            return .reply(reply)
        }
    }

    /// The answer of `job` when it is a direct read as cheap as what a daemon's I/O thread answers
    /// itself (a `ping`, a `list` of one layout, a small rect `query`: `RequestHandler.isCheapToAnswerAtOnce`),
    /// for the worker's I/O thread to send where it arrived; nil for anything else, which goes to the pool.
    /// The caller runs it only when no admitted request is on its key (`WorkerPool.room(for:)`), so it
    /// runs in the key's order as the pool would run it.
    func answerDirectAtOnce(_ job: Job) -> JobReply? {
        guard case .directRead(let request, let fields, let layout, let leaseTerm) = job else { return nil }
        switch request.request.operation {
        case .list, .ping: break
        default: guard handler.isCheapToAnswerAtOnce(request) else { return nil }
        }
        return executeDirect(request, fields, layout: layout, leaseTerm: leaseTerm)
    }

    func executeDirect(_ request: RequestHandler.Admitted, _ fields: DirectReadFields, layout: String?, leaseTerm: UInt64?) -> JobReply {
        let op = request.request.operation.name.rawValue
        let id = request.request.id
        guard request.request.operation.name != .ping else { return handler.execute(request) }
        guard let layout, let epoch = fields.epoch else {
            return DirectReadReplies.failure(id: id, WireError(.internal, "a direct read without its layout or epoch"), op: op)
        }
        if case .query(let query) = request.request.operation, let namespace = query.namespace, namespace != request.caller.namespace {
            directCounters?.record(.moved(.namespace))
            return DirectReadReplies.moved(id: id, "another namespace is read through the broker", copy: nil, op: op)
        }
        let key = LayoutKey(namespace: request.caller.namespace, name: layout)
        guard let copy = store.summary(forKey: key) else {
            directCounters?.record(.moved(.notKept))
            return DirectReadReplies.moved(id: id, "this worker keeps no layout under \"\(layout)\"; ask the broker", copy: nil, op: op)
        }
        guard copy.epoch == epoch else {
            directCounters?.record(.moved(.epoch))
            return DirectReadReplies.moved(id: id, "this worker's copy of \"\(layout)\" is of epoch \(copy.epoch), not \(epoch); refresh the route table and ask its owner or the broker", copy: copy, op: op)
        }
        if let minVersion = fields.minVersion, copy.version < minVersion {
            directCounters?.record(.behind)
            return DirectReadReplies.behind(id: id, "this worker's copy of \"\(layout)\" is at version \(copy.version), before minVersion \(minVersion); ask the broker", copy: copy, op: op)
        }
        let reply: JobReply
        switch request.request.operation {
        case .list: reply = DirectReadReplies.list(id: id, copy)
        default: reply = handler.execute(request)
        }
        // Last: the answer is made from a copy read before this instant, so the lease must hold now, and
        // the key must not be moving away (FENCE).
        if let fences, fences.isFenced(key) {
            directCounters?.record(.moved(.fenced))
            return DirectReadReplies.moved(id: id, "\"\(layout)\" is moving to another worker; ask the broker", copy: nil, op: op)
        }
        guard let lease, let leaseTerm, lease.holdsNow(inTerm: leaseTerm) else {
            directCounters?.record(.moved(.lease))
            return DirectReadReplies.moved(id: id, "this worker has not heard from its broker within its read lease; ask the broker", copy: nil, op: op)
        }
        // A query that failed on its own terms (its errors count it) was not a read answered.
        if reply.errorCode == nil { directCounters?.record(.answered) }
        return reply
    }
}
