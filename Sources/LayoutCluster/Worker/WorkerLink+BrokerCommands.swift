import Dispatch
import LayoutServer
import LayoutWire
import ZeroMQ

/// What the worker does with each command its broker sends (PROTOCOL.md §10).
extension WorkerLink {
    /// False when the conversation ended (DISCONNECT).
    func handle(_ head: BrokerMessageHead, last: consuming Message, accepting: Bool) -> Bool {
        var command = head.command
        if head.count == 2 { command = last.withUnsafeBytes { $0.count == 1 ? WorkerCommand(rawValue: $0[0]) : nil } }
        guard head.wellFormed, head.count >= 2, let command else {
            logger.debug("malformed message from the broker ignored")
            return true
        }
        if command != .disconnect {
            refusals = 0
            backoff = reconnectNanos
        }
        // Where the commands below come from: this broker's epoch, this connection to it.
        let origin = ClusterJobHandler.Origin(epoch: brokerEpoch, conversation: membership.conversation)
        switch command {
        case .request:
            // `token, "", body`, or with CURVE `token, "", caller, body`: run as that caller.
            guard head.count == 5 || head.count == 6, let token = head.token, head.delimiterEmpty else { return true }
            var caller = Caller.anonymous
            if head.count == 6 {
                guard let named = head.extra.first.flatMap(Caller.init(workerFrame:)) else {
                    logger.warning("REQUEST with a malformed caller frame answered internal")
                    reply(token: token, body: FrontReplies.failure(for: RequestBody(last), error: WireError(.internal, "the broker sent a malformed caller frame")))
                    return true
                }
                caller = named
            }
            let body = RequestBody(last, caller: caller)
            if !accepting {
                reply(token: token, body: FrontReplies.busy(for: body, message: "the daemon is shutting down"))
            } else if !pool.submit(envelope: Envelope([token.frame]), body: body, context: origin) {
                stats.recordRequest(op: "unknown", micros: 0, errorCode: "busy")
                reply(token: token, body: FrontReplies.busy(for: body, message: "the request queue is full; retry later"))
            }
        case .restore:
            guard head.count >= 5, let token = head.token, head.delimiterEmpty else { return true }
            // Frames: header (the first after the delimiter), then the recipe's bodies.
            var frames = head.extra
            frames.append(last.bytes)
            guard let header = frames.first.flatMap(RestoreHeader.init(frame:)) else {
                reply(token: token, body: RestoreOutcome.failed(code: "internal", message: "malformed RESTORE").body)
                return true
            }
            var job = RestoreJob(header: header, frames: frames.dropFirst())
            job.epoch = brokerEpoch
            let body = brokerJobs.submit(.restore(job))
            if !pool.submit(envelope: Envelope([token.frame]), body: body, context: origin) {
                // Nothing changed here: the broker sends it again.
                brokerJobs.withdraw(body)
                reply(token: token, body: RestoreOutcome.failed(code: "busy", message: "the worker's queue is full").body)
            }
        case .snapshot:
            // `token, "", header`: run as an op on the key, behind the requests that came before it.
            guard head.count == 5, let token = head.token, head.delimiterEmpty else { return true }
            guard let request = SnapshotRequest(frame: last.bytes) else {
                reply(token: token, body: SnapshotOutcome.failed(code: "internal", message: "malformed SNAPSHOT").frame)
                return true
            }
            let body = brokerJobs.submit(.snapshot(SnapshotJob(request: request)))
            if !pool.submit(envelope: Envelope([token.frame]), body: body, context: origin) {
                brokerJobs.withdraw(body)
                reply(token: token, body: SnapshotOutcome.failed(code: "busy", message: "the worker's queue is full").frame)
            }
        case .release:
            var frames = head.extra
            if head.count >= 3 { frames.append(last.bytes) }
            for key in ReleaseFrames.decode(frames) {
                // In the key's order, behind the requests that came before it; nothing answers.
                let body = brokerJobs.submit(.release(key))
                if !pool.submit(envelope: Envelope(), body: body, context: origin) {
                    // A full queue: released at once rather than kept (the broker has moved on).
                    brokerJobs.withdraw(body)
                    _ = store.release(key)
                }
            }
        case .fence:
            // `token, "", header`: no direct read of the key is answered from now on; the REPLY tells the
            // broker so, and only then does it send the key's rebuild to its new owner.
            guard head.count == 5, let token = head.token, head.delimiterEmpty, let request = FenceRequest(frame: last.bytes) else { return true }
            fences?.fence(request.key)
            reply(token: token, body: FenceRequest.done)
        case .heartbeat:
            // Protocol 4: the broker's epoch, which the changes it sends are stamped with.
            if head.count == 3, let epoch = last.withUnsafeBytes({ $0.count == 8 ? UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) : nil }) {
                brokerEpoch = epoch
            } else if head.count == 4, let frame = head.extra.first, frame.count == 8 {
                // To a worker with a direct endpoint: the epoch, then a read lease (`LeaseGrant`).
                brokerEpoch = frame.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                if let lease, let grant = LeaseGrant(frame: last.bytes), let end = heartbeats.leaseEnd(of: grant) {
                    lease.extend(until: end, at: now())
                }
            }
        case .disconnect:
            // The broker ended the conversation (it restarted, or declared this worker dead): start a
            // new one, at once the first time, then backing off while it keeps refusing.
            let delay = refusals == 0 ? 0 : backoff
            if refusals > 0 { backoff = min(backoff * 2, reconnectMaxNanos) }
            refusals += 1
            logger.info("broker disconnected this worker; joining again", metadata: ["afterMillis": "\(delay / 1_000_000)"])
            disconnect(retryAfter: delay)
            return false
        case .ready, .reply, .evicted:
            logger.debug("worker command from the broker ignored")
        }
        return true
    }
}
