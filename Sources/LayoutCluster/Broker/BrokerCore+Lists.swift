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
        let namespace = aggregate.request.caller?.namespace ?? ""
        if let page = body.withUnsafeBytes({ ListResult(reply: $0) }) {
            for entry in page.layouts where keys[Self.key(of: entry, callerNamespace: namespace)]?.owner.map({ $0 === worker }) ?? true {
                aggregate.entries.append(entry)
            }
            // This worker has more after its page: past its last key, the merged page knows nothing.
            if let next = page.next {
                let last = Self.key(ofCursor: next, callerNamespace: namespace, isAdmin: aggregate.request.caller?.isAdmin ?? false)
                aggregate.cutoff = aggregate.cutoff.map { min($0, last) } ?? last
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
        let result = Self.mergedPage(
            aggregate.entries, cutoff: aggregate.cutoff, pageSize: Self.pageSize(of: request), callerNamespace: namespace, isAdmin: request.caller?.isAdmin ?? false
        )
        output.reply(to: request.envelope, bytes: ReplyEncoder.success(id: request.route.id, result: result))
        record(request, errorCode: nil)
    }

    /// The page of the workers' entries: one entry per key (a key the table does not know may be
    /// reported twice only by a stale copy: the higher version wins), sorted as the single daemon sorts
    /// (by namespace for an admin, then key), up to the cutoff and at most `pageSize` of them, with
    /// `next` when more remain.
    static func mergedPage(_ entries: [ListResult.Entry], cutoff: LayoutKey?, pageSize: Int, callerNamespace: String, isAdmin: Bool) -> ListResult {
        var byKey: [LayoutKey: ListResult.Entry] = [:]
        for entry in entries {
            let key = Self.key(of: entry, callerNamespace: callerNamespace)
            if let cutoff, cutoff < key { continue }
            if (byKey[key]?.version ?? .min) < entry.version { byKey[key] = entry }
        }
        let sorted = byKey.sorted { $0.key < $1.key }
        let page = sorted.prefix(pageSize).map(\.value)
        guard sorted.count > pageSize || cutoff != nil else { return ListResult(layouts: page) }
        // More remain: after this page's last key, or (every entry up to the cutoff was a stale copy)
        // after the cutoff.
        let next = page.last?.cursor ?? cutoff.map { isAdmin ? ListCursor(namespace: $0.namespace, name: $0.name).text : $0.name }
        return ListResult(layouts: page, next: next)
    }

    /// The most entries `request`'s page holds (`limit`, or 10,000).
    static func pageSize(of request: ClientRequest) -> Int {
        let decoded = request.body.withUnsafeBytes { try? RequestDecoder().decode($0) }
        guard case .list(let list)? = decoded?.operation else { return ListRequest.maxLimit }
        return list.pageSize
    }

    /// The key a worker's list entry names: an admin's entries name their namespace, anyone else's are
    /// the caller's own.
    static func key(of entry: ListResult.Entry, callerNamespace: String) -> LayoutKey {
        LayoutKey(namespace: entry.namespace ?? callerNamespace, name: entry.layout)
    }

    /// The key a worker's `next` names: a `ListCursor` in an admin's list, else a key of the caller's.
    static func key(ofCursor text: String, callerNamespace: String, isAdmin: Bool) -> LayoutKey {
        guard isAdmin else { return LayoutKey(namespace: callerNamespace, name: text) }
        let cursor = ListCursor(text: text)
        return LayoutKey(namespace: cursor.namespace, name: cursor.name)
    }
}
