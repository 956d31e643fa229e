import Dispatch
import LayoutJournal
import LayoutServer
import LayoutWire
import Logging
import Synchronization
import ZeroMQ

/// What other threads tell the broker's I/O thread.
enum BrokerSignal: Sendable {
    case shutdown
    /// The journal committed the write numbered `sequence` (failed, with why).
    case journaled(sequence: Int, failure: String?)
    /// The HTTP listener's `/metrics`.
    case metrics(MetricsAsk)
}

/// A `/metrics` request from the HTTP listener's thread, answered by the broker's I/O thread, which
/// owns the state it reports.
final class MetricsAsk: Sendable {
    private let answer = Mutex<[UInt8]?>(nil)
    private let done = DispatchSemaphore(value: 0)

    func fulfil(_ bytes: [UInt8]) {
        answer.withLock { $0 = bytes }
        done.signal()
    }

    /// The answer, or nil when none came within `timeout` (the loop has stopped, or is stuck).
    func wait(timeout: Duration) -> [UInt8]? {
        let nanos = Int(clamping: timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000)
        guard done.wait(timeout: .now() + .nanoseconds(nanos)) == .success else { return nil }
        return answer.withLock { $0 }
    }
}

/// The broker's one I/O thread: it owns the front ROUTER (clients), the stats ROUTER, the back ROUTER
/// (workers), the back socket's monitor, the event proxy's capture and control, and a PUB into the
/// event stream. It moves bytes and drives `BrokerCore`; no request is decoded here beyond the scan
/// that finds its op and key.
///
/// With CURVE the front and stats sockets are secured as the single daemon's (`AccessGate`): each
/// request's caller comes from its connection's User-Id and goes to the worker with the request.
///
/// Not Sendable: made, run and closed on one thread, like its sockets.
final class BrokerLoop {
    private let front: Socket
    private let statsSocket: Socket
    private let back: Socket
    private let monitor: Socket
    private let capture: Socket
    private let publisher: Socket
    private let proxyControl: Socket
    private let mailbox: Mailbox<BrokerSignal>
    private let health: DaemonHealth
    /// `cluster.rejoinMillis` in effect, in nanoseconds.
    private let rejoinNanos: Nanos
    private let logger: Logger
    private let heartbeatNanos: Nanos
    private let graceNanos: Nanos
    /// Until when this broker may answer, grant read leases and acknowledge (its PostgreSQL lease).
    private let servingWindow: ServingWindow
    private var core: BrokerCore?
    private var signals: [BrokerSignal] = []
    /// Whether a send may have consumed a socket's edge-triggered readiness signal (see `IOLoop`).
    private var sentOnFront = false
    private var sentOnBack = false
    /// The route table's version last published on the events socket (`route`).
    private var publishedRouteVersion = 0
    /// With CURVE: who may do what, asked per message (see `AccessGate`); nil without CURVE.
    private let gate: AccessGate?
    /// The recipes' journal; nil with `journal.url: none`.
    private let journal: Journal?
    /// Journal writes asked for, and committed (in order: the journal commits in the order it is asked).
    private var journalAsked = 0
    private var journalCommitted = 0
    /// Writes that failed, by number, until the replies waiting on them have left.
    private var journalFailures: [Int: String] = [:]
    /// Replies acknowledging changes, waiting for the writes asked for before them, in order.
    private var journaledReplies: [JournaledReply] = []
    private var journaledRepliesHead = 0
    /// The writes the replies sent so far waited for.
    private var journalReleased = 0

    private struct JournaledReply {
        var after: Int
        var envelope: Envelope
        var body: HeldBody
        var trailing: [HeldBody]
        var id: RequestID?
    }

    let frontEndpoint: String
    let statsEndpoint: String
    let backEndpoint: String

    init(
        context: Context, configuration: ServerConfiguration, cluster: ClusterConfiguration, proxy: EventProxy, mailbox: Mailbox<BrokerSignal>,
        health: DaemonHealth, stats: ServerStats, access: AccessControl?, journaled: JournaledRecipes? = nil, boundFront: Socket? = nil,
        servingWindow: ServingWindow = .unbounded, logger: Logger
    ) throws {
        self.servingWindow = servingWindow
        journal = journaled?.journal
        if let boundFront {
            front = boundFront
        } else {
            front = try Socket(.router, in: context)
            try Self.configureFront(front, configuration: configuration, access: access)
            try front.bind(configuration.frontEndpoint)
        }
        statsSocket = try Socket(.router, in: context)
        back = try Socket(.router, in: context)
        monitor = try Socket(.pair, in: context)
        capture = try Socket(.sub, in: context)
        publisher = try Socket(.pub, in: context)
        proxyControl = try Socket(.pair, in: context)
        try statsSocket.set(.sendHighWaterMark, configuration.sendHighWaterMark)
        try statsSocket.set(.maxMessageSize, 64 * 1024)
        if let access {
            try AccessGate.secureStats(statsSocket, with: access)
        }
        gate = access.map { AccessGate(access: $0) }
        // Requests to a worker are bounded by its credit, so its queue never needs a limit; a send to a
        // worker whose connection is gone fails (EHOSTUNREACH) instead of vanishing.
        try back.set(.sendHighWaterMark, 0)
        try back.set(.receiveHighWaterMark, 0)
        try back.set(.routerMandatory, true)
        if let access { try ClusterCurve.secureBack(back, with: access) }
        try capture.set(.receiveHighWaterMark, 0)
        try statsSocket.bind(configuration.statsEndpoint)
        try back.bind(cluster.backEndpoint)
        let monitorEndpoint = "inproc://layoutd-broker-\(UInt64.random(in: 0 ... .max))-monitor"
        try back.monitor(monitorEndpoint, events: [.disconnected])
        try monitor.connect(monitorEndpoint)
        try capture.subscribe()
        try capture.connect(proxy.captureEndpoint)
        // With CURVE a change of the live workers publishes one `route` event per namespace of the
        // allow-list at once, which may outnumber a bounded inproc queue (a PUB drops what does not fit);
        // the event thread drains it without ever blocking on a client, so it needs no bound.
        if access != nil { try publisher.set(.sendHighWaterMark, 0) }
        try publisher.connect(proxy.internalPublishEndpoint)
        try proxyControl.connect(proxy.controlEndpoint)
        frontEndpoint = try front.lastEndpoint
        statsEndpoint = try statsSocket.lastEndpoint
        backEndpoint = try back.lastEndpoint
        self.mailbox = mailbox
        self.health = health
        self.logger = logger
        heartbeatNanos = Nanos(cluster.heartbeatMilliseconds) * 1_000_000
        rejoinNanos = Nanos(cluster.resolvedRejoinMilliseconds) * 1_000_000
        graceNanos = Nanos(configuration.shutdownGraceSeconds * 1e9)
        core = BrokerCore(
            settings: .init(
                heartbeatNanos: heartbeatNanos, liveness: cluster.liveness, recipeBytes: cluster.recipeBytes,
                restoresPerWorker: cluster.restoresPerWorker, secured: access != nil,
                compaction: CompactionPolicy(afterBytes: cluster.compactAfterBytes, afterChanges: cluster.compactAfterChanges),
                epochFollowsClock: journaled?.leased != true,
                dropGraceNanos: Nanos(cluster.dropGraceMilliseconds) * 1_000_000,
                servingWindow: servingWindow
            ),
            output: self, stats: stats, epoch: journaled?.epoch, logger: logger
        )
        if let journaled {
            core?.loadJournaled(journaled.recipes, dropped: journaled.dropped)
            core?.journalStatistics = { journaled.journal.statistics }
        }
    }

    /// The front ROUTER's options, set before it binds (a standby's front is set up the same way and
    /// handed over).
    static func configureFront(_ front: Socket, configuration: ServerConfiguration, access: AccessControl?) throws {
        try front.set(.sendHighWaterMark, configuration.sendHighWaterMark)
        try front.set(.maxMessageSize, configuration.maxMessageBytes)
        if let access { try AccessGate.secureFront(front, with: access) }
    }

    /// Serves until a shutdown signal and every admitted request is answered (or the grace period is
    /// over); then tells the workers, stops the proxy and closes the sockets.
    func run() {
        guard let core else { return }
        var poll: DescriptorPoll
        do {
            poll = DescriptorPoll([
                try front.get(.fileDescriptor), try statsSocket.get(.fileDescriptor), try back.get(.fileDescriptor),
                try monitor.get(.fileDescriptor), try capture.get(.fileDescriptor), mailbox.wakeUp.fileDescriptor,
            ])
        } catch {
            logger.error("cannot read the sockets' descriptors; stopping", metadata: ["error": "\(error)"])
            close()
            return
        }
        var frontPending = true, statsPending = true, backPending = true, monitorPending = true, capturePending = true
        var nextTick = now() + heartbeatNanos
        var drainingSince: Nanos?
        // Workers of a previous broker may still hold layouts: none is served, and no key assigned, until
        // they had the time to register again (issue 14).
        if rejoinNanos > 0 {
            core.holdKeyedRequests(until: now() + rejoinNanos)
            logger.info("waiting for workers to register again before serving keys", metadata: ["millis": "\(rejoinNanos / 1_000_000)"])
            nextTick = Swift.min(nextTick, now() + rejoinNanos)
        } else {
            health.advance(to: .serving)
        }

        while true {
            health.notePass()
            if monitorPending { monitorPending = receiveMonitorEvents(core) }
            // Replies first: they give credit back before new requests look for it.
            if backPending { backPending = receiveFromWorkers(core) }
            if frontPending { frontPending = receiveRequests(core, accepting: drainingSince == nil) }
            if capturePending { capturePending = receiveCaptured(core) }
            if statsPending { statsPending = answerStats(core) }
            if sentOnFront { frontPending = true; sentOnFront = false }
            if sentOnBack { backPending = true; sentOnBack = false }
            mailbox.takeAll(into: &signals)
            for signal in signals {
                switch signal {
                case .shutdown:
                    if drainingSince == nil {
                        drainingSince = now()
                        logger.info("shutting down: answering admitted requests")
                    }
                case .metrics(let ask):
                    ask.fulfil(core.statsAnswer(.metrics, now: now()))
                case .journaled(let sequence, let failure):
                    journalCommitted = Swift.max(journalCommitted, sequence)
                    if let failure { journalFailures[sequence] = failure }
                }
            }
            signals.removeAll(keepingCapacity: true)
            releaseJournaledReplies()
            if core.routeVersion != publishedRouteVersion {
                // Once per pass, however many keys moved in it: subscribers fetch the table again. The
                // changes are taken even when no event goes out, so that a later pass does not tell of them.
                publishedRouteVersion = core.routeVersion
                let changes = core.takeRouteChanges()
                if core.publishesRoutes { publishRoute(core.routeEvent, to: changes) }
            }
            let time = now()
            if let due = core.nextReturnDeadline, time >= due { core.endReturnWaits(now: time) }
            if time >= nextTick {
                // Everything the workers sent so far is read before anyone is judged silent.
                if backPending { backPending = receiveFromWorkers(core) }
                core.tick(now: time, backlogged: backPending)
                nextTick = time + heartbeatNanos
                if let until = core.rejoinUntil { nextTick = Swift.min(nextTick, until) } else { health.advance(to: .serving) }
            }
            if let since = drainingSince {
                // Past its window the broker answers nothing: nothing left to drain.
                if !servingWindow.isOpen { break }
                if core.clientsInFlight <= 0 && journaledRepliesHead == journaledReplies.count { break }
                if time > since, time - since > graceNanos {
                    logger.warning("shutdown grace period over with requests unanswered")
                    break
                }
            }
            let busy = frontPending || statsPending || backPending || monitorPending || capturePending || !mailbox.prepareToBlock()
            let wakeAt = Swift.min(nextTick, core.nextReturnDeadline ?? nextTick)
            let untilTick = wakeAt > time ? wakeAt - time : 0
            let wait: Duration = busy ? .zero : drainingSince == nil ? .nanoseconds(Int64(untilTick)) : .milliseconds(20)
            let ready: DescriptorPoll.Ready
            do {
                ready = try poll.wait(timeout: wait)
            } catch {
                logger.error("poll failed; stopping", metadata: ["error": "\(error)"])
                break
            }
            if ready.contains(0) { frontPending = true }
            if ready.contains(1) { statsPending = true }
            if ready.contains(2) { backPending = true }
            if ready.contains(3) { monitorPending = true }
            if ready.contains(4) { capturePending = true }
            if ready.contains(5) { mailbox.wakeUp.drain() }
        }
        for worker in core.workers where worker.isConnected {
            _ = send(.disconnect, to: worker.routingID)
        }
        journal?.close()
        close()
    }

    /// Sends the replies whose journal writes are committed, in order; one whose write failed is
    /// answered `unavailable`: the change is on its worker but not durable, so not acknowledged.
    private func releaseJournaledReplies() {
        while journaledRepliesHead < journaledReplies.count, journaledReplies[journaledRepliesHead].after <= journalCommitted {
            let waiting = journaledReplies[journaledRepliesHead]
            journaledRepliesHead += 1
            let failure = journalFailures.first { $0.key > journalReleased && $0.key <= waiting.after }?.value
            journalReleased = waiting.after
            journalFailures = journalFailures.filter { $0.key > journalReleased }
            if let failure {
                core?.counters.unavailable += 1
                core?.stats.recordLateError(code: WireError.Code.unavailable.rawValue)
                let error = WireError(.unavailable, "the change was made on its worker but the broker's journal could not keep it (\(failure)), so it is not acknowledged; read the layout's version before trying again")
                reply(to: waiting.envelope, bytes: ReplyEncoder.failure(id: waiting.id, error: error))
            } else {
                reply(to: waiting.envelope, body: waiting.body, trailing: waiting.trailing)
            }
        }
        if journaledRepliesHead == journaledReplies.count {
            journaledReplies.removeAll(keepingCapacity: true)
            journaledRepliesHead = 0
        }
    }

    private func now() -> Nanos {
        DispatchTime.now().uptimeNanoseconds
    }

    // MARK: Receiving

    /// Client requests, a bounded batch at a time; true when it stopped at the bound.
    private func receiveRequests(_ core: BrokerCore, accepting: Bool) -> Bool {
        for _ in 0..<256 {
            var envelope = Envelope()
            let body: HeldBody
            var caller: Caller?
            var attachments = 0
            do {
                guard var frame = try front.receive(flags: .dontWait) else { return false }
                // The envelope ends at the first empty frame or before the last frame, as at a single
                // daemon (PROTOCOL.md §1); frames after a delimited body are attachments.
                var delimited = false
                while frame.more && !delimited {
                    delimited = frame.count == 0
                    frame.withUnsafeBytes { envelope.append($0) }
                    frame = try front.receiveFollowingFrame()
                }
                var more = frame.more
                while more {
                    more = try front.receiveFollowingFrame().more
                    attachments += 1
                }
                if let gate {
                    // With CURVE: who sent it, from the connection's User-Id; a key taken off the
                    // list meanwhile gets nothing.
                    guard let known = gate.caller(of: frame) else { continue }
                    caller = known
                }
                body = HeldBody(frame)
            } catch {
                logger.warning("front receive failed", metadata: ["error": "\(error)"])
                return false
            }
            guard !envelope.isEmpty else { continue }
            if attachments > 0 {
                // Recipes, RESTORE and the worker protocol carry one body per request; frames after it
                // would be lost on a rebuild, so they are refused here rather than half-served.
                let id = body.withUnsafeBytes { RequestRoute(scanning: $0).id }
                let error = WireError(.invalidRequest, "a cluster's broker does not take binary frames after the body; send the sizes as JSON arrays")
                reply(to: envelope, bytes: ReplyEncoder.failure(id: id, error: error))
                continue
            }
            if accepting {
                core.clientRequest(envelope: envelope, body: body, caller: caller, now: now())
            } else {
                let id = body.withUnsafeBytes { RequestRoute(scanning: $0).id }
                reply(to: envelope, bytes: ReplyEncoder.failure(id: id, error: WireError(.busy, "the daemon is shutting down")))
            }
        }
        return true
    }

    /// Worker commands, a bounded batch at a time; true when it stopped at the bound.
    private func receiveFromWorkers(_ core: BrokerCore) -> Bool {
        for _ in 0..<256 {
            var head = WorkerMessageHead()
            // A REPLY's frames after its delimiter but the last: kept as messages (a binary reply's
            // columns pass to the client without a copy).
            var replyFrames: [HeldBody] = []
            let last: Message
            do {
                guard let message = try back.receiveMessage(flags: .dontWait, leading: { frame in
                    if head.command == .reply && head.count >= 6, let shared = try? frame.copy() {
                        replyFrames.append(HeldBody(shared))
                        head.skip()
                    } else {
                        frame.withUnsafeBytes { head.read($0) }
                    }
                }) else {
                    return false
                }
                last = message
            } catch {
                logger.warning("back receive failed", metadata: ["error": "\(error)"])
                return false
            }
            handle(head, replyFrames: replyFrames, last: last, core)
        }
        return true
    }

    private func handle(_ head: WorkerMessageHead, replyFrames: [HeldBody], last: consuming Message, _ core: BrokerCore) {
        // The last frame is the command itself when a command has no frames of its own.
        let lastIndex = head.count
        var command = head.command
        if lastIndex == 3 { command = last.withUnsafeBytes { $0.count == 1 ? WorkerCommand(rawValue: $0[0]) : nil } }
        guard head.wellFormed, lastIndex >= 3, let command else {
            logger.debug("malformed message on the back socket ignored")
            return
        }
        let time = now()
        switch command {
        case .reply:
            // `token, "", body`; a snapshot taken has its header frame before the body, a binary reply
            // its columns after it.
            guard lastIndex >= 6, let token = head.token, head.delimiterEmpty, let worker = core.heard(from: head.identity, now: time) else { return }
            core.workerReply(from: worker, token: token, frames: replyFrames + [HeldBody(last)])
        case .heartbeat:
            guard let worker = core.heard(from: head.identity, now: time) else { return }
            // A worker whose key was taken off the list (or is no longer admin) on SIGHUP goes at its
            // next heartbeat; its handshake to join again is refused.
            if let gate, !gate.admitsWorker(last, eventsIn: false) {
                _ = send(.disconnect, to: head.identity)
                core.workerDied(worker, reason: "its key is no longer listed as admin")
                return
            }
            if lastIndex == 4, let load = WorkerLoad(frame: last.bytes) {
                worker.load = load
                if let sequence = load.leaseSequence, core.heardNumberedHeartbeat(sequence, from: worker, now: time) {
                    // Granted at once rather than at the next tick: a lease waiting up to a heartbeat for
                    // its grant would have that much less of its window left, and lapse between grants.
                    _ = send(.heartbeat, to: head.identity)
                }
            }
        case .ready:
            guard lastIndex == 5, head.extra.first.map({ String(decoding: $0, as: UTF8.self) }) == WorkerProtocol.serviceName,
                  let ready = ReadyInfo(frame: last.bytes), gate?.admitsWorker(last, eventsIn: false) ?? true else {
                _ = send(.disconnect, to: head.identity)
                return
            }
            // A connection that dropped before this one arrived may have had the same descriptor:
            // its monitor event was queued before this READY, so take it first.
            _ = receiveMonitorEvents(core)
            core.workerReady(
                routingID: head.identity, ready: ready, fileDescriptor: last.sourceFileDescriptor,
                address: last.peerAddress ?? "", now: time
            )
        case .disconnect:
            guard let worker = core.heard(from: head.identity, now: time) else { return }
            core.workerLeaving(worker)
        case .evicted:
            guard lastIndex == 4, let worker = core.heard(from: head.identity, now: time), let report = EvictionReport(frame: last.bytes) else { return }
            core.workerEvicted(report.evicted, at: worker)
        case .request, .restore, .release, .snapshot, .fence:
            logger.debug("broker command from a worker ignored")
        }
    }

    /// Socket monitor events: a dropped worker connection is a dead worker.
    private func receiveMonitorEvents(_ core: BrokerCore) -> Bool {
        for _ in 0..<64 {
            guard let event = try? monitor.receiveMonitorEvent(flags: .dontWait) else { return false }
            if event.kind == .disconnected { core.connectionDropped(fileDescriptor: event.fileDescriptor, now: now()) }
        }
        return true
    }

    private func receiveCaptured(_ core: BrokerCore) -> Bool {
        for _ in 0..<256 {
            guard let frames = try? capture.receiveMultipart(flags: .dontWait) else { return false }
            core.observeCaptured(frames)
        }
        return true
    }

    private func answerStats(_ core: BrokerCore) -> Bool {
        for _ in 0..<64 {
            if let gate {
                // With CURVE, only a key listed as admin now, as the single daemon answers.
                guard let received = try? statsSocket.receiveMultipartMessage(flags: .dontWait) else { return false }
                let head = received.head
                guard gate.admitsStats(received.last), !head.isEmpty else { continue }
                let answer = core.statsAnswer(StatsRequestKind(body: received.last.bytes), now: now())
                _ = try? statsSocket.send(multipart: head + [answer], flags: .dontWait)
                continue
            }
            guard let frames = try? statsSocket.receiveMultipart(flags: .dontWait) else { return false }
            guard frames.count >= 2, let body = frames.last else { continue }
            let answer = core.statsAnswer(StatsRequestKind(body: body), now: now())
            _ = try? statsSocket.send(multipart: Array(frames.dropLast()) + [answer], flags: .dontWait)
        }
        return true
    }

    private func close() {
        _ = try? proxyControl.send(Proxy.Command.terminate.rawValue)
        try? front.set(.linger, 1000)
        try? back.set(.linger, 1000)
        try? proxyControl.set(.linger, 1000)
        try? back.stopMonitoring()
        for socket in [front, statsSocket, back, monitor, capture, publisher, proxyControl] { socket.close() }
    }
}

extension BrokerLoop: BrokerOutput {
    func journal(_ change: RecipeBook.Change, epoch: UInt64) {
        guard let journal else { return }
        if case .appended(let key, let version, _) = change, !journal.follows(JournalKey(namespace: key.namespace, name: key.name), changeVersion: version),
           let recipe = core?.recipes.recipe(for: key) {
            // The journal's chain for the key is broken (a write of it failed): the whole recipe, as this
            // broker holds it, is written again, this change included, so a restart can rebuild the key.
            write(.started(key, version: recipe.base, body: recipe.bodies[0]), to: journal, epoch: epoch)
            for (offset, body) in recipe.bodies.enumerated().dropFirst() {
                write(.appended(key, version: recipe.base + offset, body: body), to: journal, epoch: epoch)
            }
            return
        }
        write(change, to: journal, epoch: epoch)
    }

    func journalEpoch(of key: LayoutKey, epoch: UInt64) {
        guard let journal else { return }
        write(.epoch(JournalKey(namespace: key.namespace, name: key.name), epoch: epoch), to: journal)
    }

    private func write(_ change: RecipeBook.Change, to journal: Journal, epoch: UInt64) {
        write(change.write(epoch: epoch), to: journal)
    }

    private func write(_ record: JournalWrite, to journal: Journal) {
        journalAsked += 1
        let sequence = journalAsked
        let mailbox = self.mailbox
        journal.append(record) { result in
            switch result {
            case .success: mailbox.post(.journaled(sequence: sequence, failure: nil))
            case .failure(let error): mailbox.post(.journaled(sequence: sequence, failure: error.message))
            }
        }
    }

    func replyWhenJournaled(to envelope: Envelope, body: HeldBody, trailing: [HeldBody], id: RequestID?) {
        guard journal != nil else { return reply(to: envelope, body: body, trailing: trailing) }
        journaledReplies.append(JournaledReply(after: journalAsked, envelope: envelope, body: body, trailing: trailing, id: id))
    }

    func reply(to envelope: Envelope, body: HeldBody, trailing: [HeldBody]) {
        do {
            guard try sendEnvelope(envelope) else { return }
            // Only the first frame can meet a full queue (libzmq queues a message whole or not at all).
            guard try front.send(body.frame(), flags: trailing.isEmpty ? .dontWait : [.dontWait, .sendMore]) else { return }
            for (index, frame) in trailing.enumerated() {
                _ = try front.send(frame.frame(), flags: index == trailing.count - 1 ? .dontWait : [.dontWait, .sendMore])
            }
        } catch {
            logger.debug("reply not sent", metadata: ["error": "\(error)"])
        }
    }

    func reply(to envelope: Envelope, bytes: [UInt8]) {
        do {
            guard try sendEnvelope(envelope) else { return }
            _ = try front.send(bytes, flags: .dontWait)
        } catch {
            logger.debug("reply not sent", metadata: ["error": "\(error)"])
        }
    }

    /// The envelope's frames; false when the client's queue is full. A client that went away or stopped
    /// reading loses its reply: the broker never blocks on one client. Only the first frame can meet a
    /// full queue (libzmq queues a multipart message whole or not at all).
    private func sendEnvelope(_ envelope: Envelope) throws(ZeroMQError) -> Bool {
        // Past its lease's window, a broker says nothing: another may be acknowledging newer changes.
        guard servingWindow.isOpen else { return false }
        sentOnFront = true
        let front = self.front
        return try envelope.forEachFrame { (frame) throws(ZeroMQError) -> Bool in
            try front.send(frame, flags: [.dontWait, .sendMore])
        }
    }

    func send(_ order: WorkerOrder, to routingID: [UInt8]) -> Bool {
        sentOnBack = true
        do {
            // Only the first frame can fail: a ROUTER with routerMandatory refuses an unknown peer there.
            guard try back.send(routingID, flags: [.dontWait, .sendMore]) else { return false }
            try back.send(WorkerMessageHead.empty, flags: .sendMore)
            try back.send(WorkerProtocol.header, flags: .sendMore)
            switch order {
            case .request(let token, let body, let caller):
                try back.send(WorkerCommand.request.frame, flags: .sendMore)
                try back.send(token.frame, flags: .sendMore)
                try back.send(WorkerMessageHead.empty, flags: .sendMore)
                if let caller { try back.send(caller.workerFrame, flags: .sendMore) }
                try back.send(body.frame())
            case .restore(let token, let header, let bodies):
                try back.send(WorkerCommand.restore.frame, flags: .sendMore)
                try back.send(token.frame, flags: .sendMore)
                try back.send(WorkerMessageHead.empty, flags: .sendMore)
                try back.send(header.frame, flags: bodies.isEmpty ? [] : .sendMore)
                for (index, body) in bodies.enumerated() {
                    try back.send(body.frame(), flags: index == bodies.count - 1 ? [] : .sendMore)
                }
            case .release(let keys):
                let frames = ReleaseFrames.encode(keys)
                try back.send(WorkerCommand.release.frame, flags: frames.isEmpty ? [] : .sendMore)
                for (index, frame) in frames.enumerated() {
                    try back.send(frame, flags: index == frames.count - 1 ? [] : .sendMore)
                }
            case .snapshot(let token, let request):
                try back.send(WorkerCommand.snapshot.frame, flags: .sendMore)
                try back.send(token.frame, flags: .sendMore)
                try back.send(WorkerMessageHead.empty, flags: .sendMore)
                try back.send(request.frame)
            case .fence(let token, let request):
                try back.send(WorkerCommand.fence.frame, flags: .sendMore)
                try back.send(token.frame, flags: .sendMore)
                try back.send(WorkerMessageHead.empty, flags: .sendMore)
                try back.send(request.frame)
            case .heartbeat:
                // The broker's epoch (protocol 4); a worker of an earlier protocol ignores the frame.
                try back.send(WorkerCommand.heartbeat.frame, flags: .sendMore)
                var epoch = (core?.epoch ?? 0).littleEndian
                let grant = servingWindow.isOpen ? core?.leaseGrant(forWorkerAt: routingID) : nil
                try back.send(withUnsafeBytes(of: &epoch) { Array($0) }, flags: grant == nil ? [] : .sendMore)
                // To a worker with a direct endpoint, its read lease (`LeaseGrant`).
                if let grant { try back.send(grant.frame) }
            case .disconnect:
                try back.send(WorkerCommand.disconnect.frame)
            }
            return true
        } catch {
            if error.code != .hostUnreachable {
                logger.warning("send to a worker failed", metadata: ["error": "\(error)"])
            }
            return false
        }
    }

    /// The `route` event of one pass. Without CURVE, once, to everyone (topic `route`). With CURVE an
    /// event without a namespace reaches nobody, so it goes to each namespace whose table changed, and the
    /// event thread sends it under each of that namespace's keys (`<key>route`); a change of the live
    /// workers goes to every namespace of the allow-list as it stands now (admins' too: `route` answers an
    /// admin in its own namespace, as anyone).
    private func publishRoute(_ event: WireEvent, to changes: RouteChanges) {
        guard let gate else {
            publish(event, namespace: "")
            return
        }
        let namespaces = changes.everyone ? gate.namespaces : Array(changes.namespaces)
        // With CURVE no key is kept in "" (`adopt` releases such copies), and "" reaches nobody anyway.
        for namespace in namespaces where !namespace.isEmpty {
            publish(event, namespace: namespace)
        }
    }

    /// Into the event stream as a worker publishes: `[topic, body]`, and the namespace third when there
    /// is one (the events thread publishes it under that namespace's keys). Without CURVE no client
    /// could receive an event of a namespace: none is published.
    func publish(_ event: WireEvent, namespace: String) {
        if namespace.isEmpty {
            _ = try? publisher.send(multipart: [event.topic, event.body], flags: .dontWait)
        } else if gate != nil {
            _ = try? publisher.send(multipart: [event.topic, event.body, Array(namespace.utf8)], flags: .dontWait)
        }
    }
}

/// The leading frames of a message on the back socket, read in place as they arrive:
/// `[identity, "", "MDPW01", command, …]`, the last frame kept apart.
struct WorkerMessageHead {
    static let empty: [UInt8] = []

    private(set) var count = 0
    private(set) var identity: [UInt8] = []
    private(set) var wellFormed = true
    private(set) var command: WorkerCommand?
    private(set) var token: RequestToken?
    private(set) var delimiterEmpty = false
    /// Frames after the command that are neither a REPLY's token nor its delimiter (READY's service, a
    /// snapshot's header).
    private(set) var extra: [[UInt8]] = []

    /// Counts a frame kept elsewhere (a REPLY's frames after its delimiter).
    mutating func skip() {
        count += 1
    }

    mutating func read(_ frame: UnsafeRawBufferPointer) {
        switch count {
        case 0: identity = Array(frame)
        case 1: wellFormed = wellFormed && frame.isEmpty
        case 2: wellFormed = wellFormed && WorkerProtocol.isHeader(frame)
        case 3: command = frame.count == 1 ? WorkerCommand(rawValue: frame[0]) : nil
        case 4 where command == .reply: token = RequestToken(frame: frame)
        case 5 where command == .reply: delimiterEmpty = frame.isEmpty
        default: extra.append(Array(frame))
        }
        count += 1
    }
}
