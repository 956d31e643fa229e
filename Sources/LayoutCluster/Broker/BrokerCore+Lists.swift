import LayoutServer
import LayoutWire

extension BrokerCore {
    /// `list`: asked of every connected worker as the caller (each answers with the caller's namespace,
    /// or every namespace for an admin), answered with one list (after any move in progress has
    /// finished, so that no key is missed or listed twice).
    func startList(_ request: ClientRequest) {
        counters.lists += 1
        guard workers.contains(where: \.isConnected) else {
            answer(request, WireError(.unavailable, "no worker is serving; retry later"))
            return
        }
        if keysInMotion > 0 {
            listsWaiting.append(request)
            heldCount += 1
            return
        }
        let aggregate = ListAggregate(request: request)
        for worker in workers where worker.isConnected {
            let token = makeToken()
            guard output.send(.request(token, request.body, caller: request.caller), to: worker.routingID) else { continue }
            pending[token] = Pending(token: token, worker: worker, kind: .listPart(aggregate), epoch: epoch)
            worker.pendingTokens.insert(token)
            worker.inFlight += 1
            aggregate.waiting.insert(token)
        }
        if aggregate.waiting.isEmpty {
            answer(request, WireError(.unavailable, "no worker is serving; retry later"))
        }
    }

    func releaseWaitingLists() {
        guard !listsWaiting.isEmpty else { return }
        let waiting = listsWaiting
        listsWaiting = []
        heldCount -= waiting.count
        for request in waiting { startList(request) }
    }

    /// One worker's answer to a `list`; the last one completes the reply.
    func collect(_ body: HeldBody, from worker: WorkerRecord, into aggregate: ListAggregate) {
        guard !aggregate.abandoned else { return }
        if let entries = body.withUnsafeBytes({ ListResult.entries(inReply: $0) }) {
            let namespace = aggregate.request.caller?.namespace ?? ""
            for entry in entries where keys[Self.key(of: entry, callerNamespace: namespace)]?.owner.map({ $0 === worker }) ?? true {
                aggregate.entries.append(entry)
            }
        } else if aggregate.failure == nil {
            aggregate.failure = body
        }
        guard aggregate.waiting.isEmpty else { return }
        let request = aggregate.request
        if let failure = aggregate.failure {
            output.reply(to: request.envelope, body: failure, trailing: [])
            record(request, errorCode: failure.withUnsafeBytes { ReplySummary(scanning: $0, readingResult: false).errorCode } ?? "internal")
            return
        }
        // One entry per key: a key the table does not know may be reported twice only by a stale copy.
        // Sorted as the single daemon sorts: by namespace (an admin's list), then key.
        let namespace = request.caller?.namespace ?? ""
        var byKey: [LayoutKey: ListResult.Entry] = [:]
        for entry in aggregate.entries {
            let key = Self.key(of: entry, callerNamespace: namespace)
            if (byKey[key]?.version ?? .min) < entry.version { byKey[key] = entry }
        }
        let entries = byKey.sorted { $0.key < $1.key }.map(\.value)
        output.reply(to: request.envelope, bytes: ReplyEncoder.success(id: request.route.id, result: ListResult(layouts: entries)))
        record(request, errorCode: nil)
    }

    /// The key a worker's list entry names: an admin's entries name their namespace, anyone else's are
    /// the caller's own.
    static func key(of entry: ListResult.Entry, callerNamespace: String) -> LayoutKey {
        LayoutKey(namespace: entry.namespace ?? callerNamespace, name: entry.layout)
    }
}
