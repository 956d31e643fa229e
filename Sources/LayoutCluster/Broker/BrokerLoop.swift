import Dispatch
import LayoutJournal
import LayoutServer
import LayoutWire
import Logging
import Synchronization
import ZeroMQ

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
    let front: FrontSocket
    private let statsSocket: StatsResponder
    let back: Socket
    private let monitor: Socket
    private let capture: Socket
    let publisher: Socket
    private let proxyControl: Socket
    let mailbox: Mailbox<BrokerSignal>
    private let health: DaemonHealth
    /// `cluster.rejoinMillis` in effect, in nanoseconds.
    private let rejoinNanos: Nanos
    let logger: Logger
    private let heartbeatNanos: Nanos
    private var drain: ShutdownDrain
    /// Until when this broker may answer, grant read leases and acknowledge (its PostgreSQL lease).
    let servingWindow: ServingWindow
    var core: BrokerCore?
    private var signals: [BrokerSignal] = []
    /// Whether a send may have consumed the back socket's edge-triggered readiness signal (see `IOLoop`).
    var sentOnBack = false
    /// The route table's version last published on the events socket (`route`).
    private var publishedRouteVersion = 0
    /// With CURVE: who may do what, asked per message (see `AccessGate`); nil without CURVE.
    let gate: AccessGate?
    /// The recipes' journal; nil with `journal.url: none`.
    let journal: Journal?
    /// Replies acknowledging changes, held until the journal has what they acknowledge.
    var journaled = JournaledReplies()

    var frontEndpoint: String { front.endpoint }
    var statsEndpoint: String { statsSocket.endpoint }
    let backEndpoint: String

    init(
        context: Context, configuration: ServerConfiguration, cluster: ClusterConfiguration, proxy: EventProxy, mailbox: Mailbox<BrokerSignal>,
        health: DaemonHealth, stats: ServerStats, access: AccessControl?, journaled: JournaledRecipes? = nil, boundFront: FrontSocket? = nil,
        servingWindow: ServingWindow = .unbounded, logger: Logger
    ) throws {
        self.servingWindow = servingWindow
        journal = journaled?.journal
        front = try boundFront ?? Self.makeFront(context: context, configuration: configuration, access: access, stats: stats, logger: logger)
        statsSocket = try StatsResponder(context: context, endpoint: configuration.statsEndpoint, sendHighWaterMark: configuration.sendHighWaterMark, access: access)
        back = try Socket(.router, in: context)
        monitor = try Socket(.pair, in: context)
        capture = try Socket(.sub, in: context)
        publisher = try Socket(.pub, in: context)
        proxyControl = try Socket(.pair, in: context)
        gate = access.map { AccessGate(access: $0) }
        // Requests to a worker are bounded by its credit, so its queue never needs a limit; a send to a
        // worker whose connection is gone fails (EHOSTUNREACH) instead of vanishing.
        try back.set(.sendHighWaterMark, 0)
        try back.set(.receiveHighWaterMark, 0)
        try back.set(.routerMandatory, true)
        if let access { try ClusterCurve.secureBack(back, with: access) }
        try capture.set(.receiveHighWaterMark, 0)
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
        backEndpoint = try back.lastEndpoint
        self.mailbox = mailbox
        self.health = health
        self.logger = logger
        heartbeatNanos = Nanos(cluster.heartbeatMilliseconds) * 1_000_000
        rejoinNanos = Nanos(cluster.resolvedRejoinMilliseconds) * 1_000_000
        drain = ShutdownDrain(graceSeconds: configuration.shutdownGraceSeconds)
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

    /// The broker's front (a standby's is made the same way and handed over): the single daemon's front,
    /// but for frames after the body, which recipes, RESTORE and the worker protocol cannot carry (one
    /// body per request; frames after it would be lost on a rebuild), so they are refused rather than
    /// half-served.
    static func makeFront(context: Context, configuration: ServerConfiguration, access: AccessControl?, stats: ServerStats, logger: Logger) throws -> FrontSocket {
        let policy = FrontPolicy(
            roleName: "broker", maxMessageBytes: configuration.maxMessageBytes,
            attachmentRefusal: "a cluster's broker does not take binary frames after the body; send the sizes as JSON arrays"
        )
        return try FrontSocket(
            context: context, endpoint: configuration.frontEndpoint, configuration: configuration, access: access, policy: policy, stats: stats, logger: logger
        )
    }

    /// Serves until a shutdown signal and every admitted request is answered (or the grace period is
    /// over); then tells the workers, stops the proxy and closes the sockets.
    func run() {
        guard let core else { return }
        var poll: DescriptorPoll
        do {
            poll = DescriptorPoll([
                front.fileDescriptor, statsSocket.fileDescriptor, try back.get(.fileDescriptor),
                try monitor.get(.fileDescriptor), try capture.get(.fileDescriptor), mailbox.wakeUp.fileDescriptor,
            ])
        } catch {
            logger.error("cannot read the sockets' descriptors; stopping", metadata: ["error": "\(error)"])
            close()
            return
        }
        var frontPending = true, statsPending = true, backPending = true, monitorPending = true, capturePending = true
        var nextTick = now() + heartbeatNanos
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
            if frontPending { frontPending = receiveRequests(core, accepting: drain.isAccepting) }
            if capturePending { capturePending = receiveCaptured(core) }
            if statsPending { statsPending = statsSocket.answerWaiting { core.statsAnswer($0, now: now()) } }
            if front.takeSentSinceLook() { frontPending = true }
            if sentOnBack { backPending = true; sentOnBack = false }
            mailbox.takeAll(into: &signals)
            for signal in signals {
                switch signal {
                case .shutdown:
                    if drain.begin(at: now()) { logger.info("shutting down: answering admitted requests") }
                case .metrics(let ask):
                    ask.fulfil(core.statsAnswer(.metrics, now: now()))
                case .journaled(let sequence, let failure):
                    journaled.noteCommitted(sequence, failure: failure)
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
            if !drain.isAccepting {
                // Past its window the broker answers nothing: nothing left to drain.
                if !servingWindow.isOpen { break }
                if core.clientsInFlight <= 0 && journaled.isEmpty { break }
                if drain.isOverGrace(at: time) {
                    logger.warning("shutdown grace period over with requests unanswered")
                    break
                }
            }
            let busy = frontPending || statsPending || backPending || monitorPending || capturePending || !mailbox.prepareToBlock()
            let wakeAt = Swift.min(nextTick, core.nextReturnDeadline ?? nextTick)
            let untilTick = wakeAt > time ? wakeAt - time : 0
            let wait = drain.pollTimeout(busy: busy, serving: .nanoseconds(Int64(untilTick)))
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
        while let (waiting, failure) = journaled.nextReleased() {
            if let failure {
                core?.counters.unavailable += 1
                core?.stats.recordLateError(code: WireError.Code.unavailable.rawValue)
                let error = WireError(.unavailable, "the change was made on its worker but the broker's journal could not keep it (\(failure)), so it is not acknowledged; read the layout's version before trying again")
                reply(to: waiting.envelope, bytes: ReplyEncoder.failure(id: waiting.id, error: error))
            } else {
                reply(to: waiting.envelope, body: waiting.body, trailing: waiting.trailing)
            }
        }
    }

    private func now() -> Nanos {
        DispatchTime.now().uptimeNanoseconds
    }

    // MARK: Receiving

    /// Client requests, a bounded batch at a time; true when it stopped at the bound.
    private func receiveRequests(_ core: BrokerCore, accepting: Bool) -> Bool {
        front.receive(accepting: accepting) { arrived, _ in
            let envelope = arrived.envelope
            let caller = gate == nil ? nil : arrived.caller
            core.clientRequest(envelope: envelope, body: HeldBody(arrived.takeBody()), caller: caller, now: now())
        }
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
            if gate == nil, frames.count == 1, frames[0].first == 1, let token = SubscriptionConfirmation.token(inTopic: frames[0].dropFirst()) {
                // The proxy shows a subscription as its XPUB applies it: everything the subscriber
                // subscribed to before is in effect, and this event, published after, reaches it.
                publish(SubscriptionConfirmation.event(topic: Array(frames[0].dropFirst()), token: token), namespace: "")
            }
        }
        return true
    }

    private func close() {
        _ = try? proxyControl.send(Proxy.Command.terminate.rawValue)
        front.close()
        statsSocket.close()
        try? back.set(.linger, 1000)
        try? proxyControl.set(.linger, 1000)
        try? back.stopMonitoring()
        for socket in [back, monitor, capture, publisher, proxyControl] { socket.close() }
    }
}
